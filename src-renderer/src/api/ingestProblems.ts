import type { Answer } from '../../../src-shared/contract'
import { request, type ProjectAuth } from './http'

/** The collector's data quality log of a project (GET /uba/api/ingest/problems), as the route schema describes it. */
export type ProblemLog = Answer<'/uba/api/ingest/problems'>
export type ProblemCount = ProblemLog['counts'][number]
export type ProblemExample = ProblemLog['examples'][number]
/** refused: a record not stored; dropped: a value left out of a stored record; upload: a whole upload refused. */
export type ProblemKind = ProblemCount['kind']
/** Records naming no known project (server-wide, in every project's log). */
export type UnknownProjects = NonNullable<ProblemLog['unknownProjects']>
export type UnknownAppid = UnknownProjects['appids'][number]
/** Uploads answered 503 "send again" because the collector was busy (most SDKs drop the batch then). */
export type BusyRefusals = NonNullable<ProblemLog['busyRefusals']>
export type BusyRefusal = BusyRefusals['refusals'][number]

const PROBLEMS = '/uba/api/ingest/problems'

export function getProblemLog(auth: ProjectAuth, limit = 100): Promise<ProblemLog> {
  return request<ProblemLog>(auth, 'GET', `${PROBLEMS}?limit=${limit}`)
}

export function clearProblemLog(auth: ProjectAuth): Promise<Answer<typeof PROBLEMS, 'delete'>> {
  return request<Answer<typeof PROBLEMS, 'delete'>>(auth, 'DELETE', PROBLEMS)
}
