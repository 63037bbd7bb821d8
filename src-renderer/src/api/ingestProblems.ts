import { request, type ProjectAuth } from './http'

/** refused: a record not stored; dropped: a value left out of a stored record; upload: a whole upload refused. */
export type ProblemKind = 'refused' | 'dropped' | 'upload'

export interface ProblemCount {
  kind: ProblemKind
  property: string
  reason: string
  /** Records (for kind upload: uploads) with this problem. */
  count: number
  /** For kind upload, the records the refused uploads held; else equal to count. */
  records: number
  lastTime: number
}

export interface ProblemExample {
  time: number
  kind: 'refused' | 'dropped'
  property: string
  value: string | null
  reason: string
  lib: string | null
  libVersion: string | null
  /** The record as received, cut to 500 characters. */
  record: string
}

/** Records that named an appid no project has (null: they named none), server-wide. */
export interface UnknownAppid {
  appid: string | null
  records: number
  uploads: number
  lastTime: number
  lib: string | null
  libVersion: string | null
  /** The latest such record as received, cut to 500 characters. */
  record: string
}

export interface UnknownProjects {
  records: number
  lastTime: number
  /** At most 50 appids, the latest first. */
  appids: UnknownAppid[]
  /** Records naming appids beyond the ones named. */
  otherRecords: number
}

/** The collector's data quality log of a project (GET /uba/api/ingest/problems). */
export interface ProblemLog {
  total: number
  lastTime: number | null
  counts: ProblemCount[]
  examples: ProblemExample[]
  /** Present when records named no known project (server-wide, in every project's log). */
  unknownProjects?: UnknownProjects
}

const PROBLEMS = '/uba/api/ingest/problems'

export function getProblemLog(auth: ProjectAuth, limit = 100): Promise<ProblemLog> {
  return request<ProblemLog>(auth, 'GET', `${PROBLEMS}?limit=${limit}`)
}

export function clearProblemLog(auth: ProjectAuth): Promise<{ success: 0 }> {
  return request<{ success: 0 }>(auth, 'DELETE', PROBLEMS)
}
