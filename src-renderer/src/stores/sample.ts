import { defineStore } from 'pinia'
import { ref } from 'vue'
import { cancelJob, getJob, isFinished, listJobs, startSample, type SampleRequest } from '../api/importJobs'
import { followedJob } from './followedJob'
import { useProjectStore } from './project'
import { useSessionStore } from './session'

/**
 * The sample data job of the current project: started here, followed by polling its job until it
 * ends. The job belongs to the project it was started in; switching projects hides it, and coming
 * back (or reloading the page) picks a running one up again.
 */
export const useSampleStore = defineStore('sample', () => {
  const session = useSessionStore()
  const projects = useProjectStore()

  // a start or cancel that fails says so in the same `error` as a job given up on
  const { current, running, percent, error, adopt, follow, cancel, dismiss } = followedJob({
    everyMs: 300,
    get: getJob,
    stop: cancelJob,
    ended: (job) => {
      if (job.state === 'succeeded') void projects.loadOverview()
    },
  })
  const starting = ref(false)

  async function start(sample: SampleRequest): Promise<void> {
    const auth = session.projectAuth
    starting.value = true
    error.value = null
    try {
      follow(auth, await startSample(auth, sample))
    } catch (err) {
      error.value = err as Error
    } finally {
      starting.value = false
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

  return { current, running, percent, starting, error, start, cancel, resume, dismiss }
})
