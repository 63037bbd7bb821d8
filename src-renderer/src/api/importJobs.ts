import { request, type ProjectAuth } from './http'

export type JobState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled'
export type JobPhase = 'reading' | 'checking' | 'writing'

/** A record that did not load, and why. */
export interface Rejection {
  row: number
  property: string
  value: string | null
  reason: string
}

/** An import job (GET /uba/api/import/jobs/{id}); sample data runs as one too (kind `sample`). */
export interface ImportJob {
  id: string
  state: JobState
  phase: JobPhase | null
  kind: string
  format: string
  source: string
  rowsRead: number
  rowsWritten: number
  rowsRejected: number
  percent: number
  rejected: Rejection[]
  error: string | null
  createTime: number
  startTime: number | null
  endTime: number | null
  result: { eventsWritten: number; profilesChanged: number; debugSkipped: number; duplicatesSkipped: number } | null
}

export interface SampleRequest {
  users?: number
  days?: number
  seed?: number
  /** yyyy-MM-dd, yesterday or earlier. */
  endDate?: string
}

const JOBS = '/uba/api/import/jobs'

export function isFinished(job: ImportJob): boolean {
  return job.state !== 'queued' && job.state !== 'running'
}

export function listJobs(auth: ProjectAuth): Promise<ImportJob[]> {
  return request<ImportJob[]>(auth, 'GET', JOBS)
}

export function getJob(auth: ProjectAuth, id: string): Promise<ImportJob> {
  return request<ImportJob>(auth, 'GET', `${JOBS}/${encodeURIComponent(id)}`)
}

/** Cancels a queued or running job; a finished one is a 400. */
export function cancelJob(auth: ProjectAuth, id: string): Promise<ImportJob> {
  return request<ImportJob>(auth, 'DELETE', `${JOBS}/${encodeURIComponent(id)}`)
}

/** Queues the sample data job; only an empty project takes it (else a 400 naming `project`). */
export function startSample(auth: ProjectAuth, sample: SampleRequest): Promise<ImportJob> {
  return request<ImportJob>(auth, 'POST', '/uba/api/import/sample', sample)
}
