import { computed, ref, shallowRef } from 'vue'
import type { ProjectAuth } from '../api/http'
import { isFinished, type ImportJob } from '../api/importJobs'
import { useSessionStore } from './session'

/** Polls that may fail in a row (a busy or restarting server) before the job is given up on. */
const MAX_POLL_FAILURES = 10

export interface FollowedJobOptions {
  /** How long between two reads of the job. */
  everyMs: number
  /** Reads the job as it stands (GET /uba/api/jobs/{id}). */
  get: (auth: ProjectAuth, id: string) => Promise<ImportJob>
  /** Asks the server to cancel the job; answers it as it then stands. */
  stop: (auth: ProjectAuth, id: string) => Promise<ImportJob>
  /** Called once a followed job has ended, when its project is still the current one. */
  ended?: (job: ImportJob) => void
}

/**
 * One job (an import, the sample data) for a store, followed by polling until it ends. The job
 * belongs to the project it was started in: `current` is null in another project. `percent` never
 * goes back for the same job (the server's figure restarts with each statement of a phase); polls
 * that fail are retried, and after ten in a row the job is given up on with `error`.
 */
export function followedJob(options: FollowedJobOptions) {
  const session = useSessionStore()

  const job = shallowRef<ImportJob | null>(null)
  const owner = ref('')
  const percent = ref(0)
  const error = ref<Error | null>(null)
  const cancelling = ref(false)
  let timer: ReturnType<typeof setTimeout> | undefined
  let failures = 0

  const current = computed(() => (owner.value === session.appKey ? job.value : null))
  const running = computed(() => current.value !== null && !isFinished(current.value))

  /** Shows the job as it stands now, and polls it again while it has not ended. */
  function adopt(auth: ProjectAuth, next: ImportJob): void {
    if (job.value?.id !== next.id) percent.value = 0
    owner.value = auth.appKey
    job.value = next
    percent.value = next.state === 'succeeded' ? 100 : Math.max(percent.value, next.percent)
    clearTimeout(timer)
    if (!isFinished(next)) timer = setTimeout(() => void poll(auth, next.id), options.everyMs)
    else if (auth.appKey === session.appKey) options.ended?.(next)
  }

  async function poll(auth: ProjectAuth, id: string): Promise<void> {
    try {
      const next = await options.get(auth, id)
      failures = 0
      error.value = null
      if (job.value?.id === id) adopt(auth, next)
    } catch (err) {
      if (++failures >= MAX_POLL_FAILURES) {
        error.value = err as Error
        return
      }
      timer = setTimeout(() => void poll(auth, id), options.everyMs)
    }
  }

  /** Starts following a job afresh (just started, or picked from a list): no failures or error of one before. */
  function follow(auth: ProjectAuth, next: ImportJob): void {
    failures = 0
    error.value = null
    adopt(auth, next)
  }

  async function cancel(): Promise<void> {
    const auth = session.projectAuth
    const id = current.value?.id
    if (!id) return
    cancelling.value = true
    try {
      adopt(auth, await options.stop(auth, id))
    } catch (err) {
      // it may have ended meanwhile: the next poll shows how
      error.value = err as Error
    } finally {
      cancelling.value = false
    }
  }

  /** Stops showing the job (after it ended). */
  function dismiss(): void {
    if (running.value) return
    clearTimeout(timer)
    job.value = null
    error.value = null
    percent.value = 0
  }

  return { current, running, percent, error, cancelling, adopt, follow, cancel, dismiss }
}
