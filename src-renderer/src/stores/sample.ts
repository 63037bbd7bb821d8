import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { ProjectAuth } from '../api/http'
import { cancelJob, getJob, isFinished, listJobs, startSample, type ImportJob, type SampleRequest } from '../api/importJobs'
import { useProjectStore } from './project'
import { useSessionStore } from './session'

const POLL_MS = 300
/** Polls that may fail in a row (a busy or restarting server) before the job is given up on. */
const MAX_POLL_FAILURES = 10

/**
 * The sample data job of the current project: started here, followed by polling its job until it
 * ends. The job belongs to the project it was started in; switching projects hides it, and coming
 * back (or reloading the page) picks a running one up again.
 */
export const useSampleStore = defineStore('sample', () => {
  const session = useSessionStore()
  const projects = useProjectStore()

  const job = ref<ImportJob | null>(null)
  const owner = ref('')
  /** The highest percent seen: the server's figure restarts with each statement of a phase. */
  const percent = ref(0)
  const starting = ref(false)
  const error = ref<Error | null>(null)
  let timer: ReturnType<typeof setTimeout> | undefined
  let failures = 0

  const current = computed(() => (owner.value === session.appKey ? job.value : null))
  const running = computed(() => current.value !== null && !isFinished(current.value))

  function adopt(auth: ProjectAuth, next: ImportJob): void {
    if (job.value?.id !== next.id) percent.value = 0
    owner.value = auth.appKey
    job.value = next
    percent.value = next.state === 'succeeded' ? 100 : Math.max(percent.value, next.percent)
    clearTimeout(timer)
    if (!isFinished(next)) timer = setTimeout(() => void poll(auth, next.id), POLL_MS)
    else if (next.state === 'succeeded' && auth.appKey === session.appKey) void projects.loadOverview()
  }

  async function poll(auth: ProjectAuth, id: string): Promise<void> {
    try {
      const next = await getJob(auth, id)
      failures = 0
      error.value = null
      if (job.value?.id === id) adopt(auth, next)
    } catch (err) {
      if (++failures >= MAX_POLL_FAILURES) {
        error.value = err as Error
        return
      }
      timer = setTimeout(() => void poll(auth, id), POLL_MS)
    }
  }

  async function start(sample: SampleRequest): Promise<void> {
    const auth = session.projectAuth
    starting.value = true
    error.value = null
    try {
      adopt(auth, await startSample(auth, sample))
    } catch (err) {
      error.value = err as Error
    } finally {
      starting.value = false
    }
  }

  async function cancel(): Promise<void> {
    const auth = session.projectAuth
    const id = current.value?.id
    if (!id) return
    try {
      adopt(auth, await cancelJob(auth, id))
    } catch (err) {
      // it may have ended meanwhile: the next poll shows how
      error.value = err as Error
    }
  }

  /** Follows a sample job of the current project that is still queued or running (after a reload). */
  async function resume(): Promise<void> {
    const auth = session.projectAuth
    if (!auth.appKey || running.value) return
    try {
      const pending = (await listJobs(auth)).find((j) => j.kind === 'sample' && !isFinished(j))
      if (pending && auth.appKey === session.appKey) adopt(auth, pending)
    } catch {
      // nothing to resume is the same as not knowing of one: the form stays available
    }
  }

  /** Back to the form (after a finished job). */
  function dismiss(): void {
    if (running.value) return
    job.value = null
    error.value = null
    percent.value = 0
  }

  return { current, running, percent, starting, error, start, cancel, resume, dismiss }
})
