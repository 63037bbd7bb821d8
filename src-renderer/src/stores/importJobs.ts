import { defineStore } from 'pinia'
import { computed, ref, shallowRef } from 'vue'
import type { ProjectAuth } from '../api/http'
import { cancelJob, getJob, isFinished, listJobs, type ImportJob } from '../api/importJobs'
import { useProjectStore } from './project'
import { projectResource } from './projectResource'
import { useSessionStore } from './session'

const POLL_MS = 400
/** Polls that may fail in a row (a busy or restarting server) before the job is given up on. */
const MAX_POLL_FAILURES = 10

/**
 * The file import jobs of the current project: the recent list, and the one job the Import view
 * follows (polled until it ends). Sample data jobs appear in the list but are followed by the
 * sample store.
 */
export const useImportJobsStore = defineStore('importJobs', () => {
  const session = useSessionStore()
  const projects = useProjectStore()

  const { data: jobs, current: recent, state: listState, error: listError, load: read } = projectResource<ImportJob[]>([])

  const job = shallowRef<ImportJob | null>(null)
  const owner = ref('')
  /** The highest percent seen: the server's figure restarts with each statement of a phase. */
  const percent = ref(0)
  const followError = ref<Error | null>(null)
  const cancelling = ref(false)
  let timer: ReturnType<typeof setTimeout> | undefined
  let failures = 0

  const current = computed(() => (owner.value === session.appKey ? job.value : null))
  const running = computed(() => current.value !== null && !isFinished(current.value))

  function load(): Promise<void> {
    return read(listJobs)
  }

  function adopt(auth: ProjectAuth, next: ImportJob): void {
    if (job.value?.id !== next.id) percent.value = 0
    owner.value = auth.appKey
    job.value = next
    percent.value = next.state === 'succeeded' ? 100 : Math.max(percent.value, next.percent)
    clearTimeout(timer)
    if (!isFinished(next)) {
      timer = setTimeout(() => void poll(auth, next.id), POLL_MS)
      return
    }
    if (auth.appKey !== session.appKey) return
    void load()
    if (next.state === 'succeeded') void projects.loadOverview()
  }

  async function poll(auth: ProjectAuth, id: string): Promise<void> {
    try {
      const next = await getJob(auth, id)
      failures = 0
      followError.value = null
      if (job.value?.id === id) adopt(auth, next)
    } catch (err) {
      if (++failures >= MAX_POLL_FAILURES) {
        followError.value = err as Error
        return
      }
      timer = setTimeout(() => void poll(auth, id), POLL_MS)
    }
  }

  /** Shows a job (just started, or picked from the list) and follows it while it runs. */
  function follow(next: ImportJob): void {
    failures = 0
    followError.value = null
    adopt(session.projectAuth, next)
    if (!jobs.value.some((j) => j.id === next.id)) void load()
  }

  async function cancel(): Promise<void> {
    const auth = session.projectAuth
    const id = current.value?.id
    if (!id) return
    cancelling.value = true
    try {
      adopt(auth, await cancelJob(auth, id))
    } catch (err) {
      // it may have ended meanwhile: the next poll shows how
      followError.value = err as Error
    } finally {
      cancelling.value = false
    }
  }

  /** Follows a file import of the current project that is still queued or running (after a reload). */
  async function resume(): Promise<void> {
    await load()
    if (running.value) return
    const pending = recent.value.find((j) => j.kind !== 'sample' && !isFinished(j))
    if (pending) follow(pending)
  }

  /** Stops showing the followed job (after it ended). */
  function dismiss(): void {
    if (running.value) return
    clearTimeout(timer)
    job.value = null
    followError.value = null
    percent.value = 0
  }

  return { recent, listState, listError, current, running, percent, followError, cancelling, load, follow, cancel, resume, dismiss }
})
