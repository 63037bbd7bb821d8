import type { Answer, RequestBody } from '../../../src-shared/contract'
import { request, type ProjectAuth } from './http'

/** An import job (GET /uba/api/import/jobs/{id}); sample data runs as one too (kind `sample`). */
export type ImportJob = Answer<'/uba/api/import/jobs/{id}'>
export type JobState = ImportJob['state']
export type JobPhase = NonNullable<ImportJob['phase']>
/** A record that did not load, and why. */
export type Rejection = ImportJob['rejected'][number]

export type SampleRequest = NonNullable<RequestBody<'/uba/api/import/sample'>>

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
