import { defineStore } from 'pinia'
import { cancelJob, getJob, isFinished, listJobs, type ImportJob } from '../api/importJobs'
import { followedJob } from './followedJob'
import { useProjectStore } from './project'
import { projectResource } from './projectResource'
import { useSessionStore } from './session'

/**
 * The file import jobs of the current project: the recent list, and the one job the Import view
 * follows (polled until it ends). Sample data jobs appear in the list but are followed by the
 * sample store.
 */
export const useImportJobsStore = defineStore('importJobs', () => {
  const session = useSessionStore()
  const projects = useProjectStore()

  const { data: jobs, current: recent, state: listState, error: listError, load: read } = projectResource<ImportJob[]>([])

  // a cancel that fails says so in `followError` too
  const { current, running, percent, error: followError, cancelling, follow: followJob, cancel, dismiss } = followedJob({
    everyMs: 400,
    get: getJob,
    stop: cancelJob,
    ended: (job) => {
      void load()
      if (job.state === 'succeeded') void projects.loadOverview()
    },
  })

  function load(): Promise<void> {
    return read(listJobs)
  }

  /** Shows a job (just started, or picked from the list) and follows it while it runs. */
  function follow(next: ImportJob): void {
    followJob(session.projectAuth, next)
    if (!jobs.value.some((j) => j.id === next.id)) void load()
  }

  /** Follows a file import of the current project that is still queued or running (after a reload). */
  async function resume(): Promise<void> {
    await load()
    if (running.value) return
    const pending = recent.value.find((j) => j.kind !== 'sample' && !isFinished(j))
    if (pending) follow(pending)
  }

  return { recent, listState, listError, current, running, percent, followError, cancelling, load, follow, cancel, resume, dismiss }
})
