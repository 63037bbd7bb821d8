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

/** An upload answered 503 "send again" because the collector was busy (most SDKs drop the batch then). */
export interface BusyRefusal {
  /** project: this project's uploads; server: uploads whose project could not be told (in every project's log). */
  scope: 'project' | 'server'
  /** decoders: the decode threads and their queue were full (before decoding); writer: the project was busy writing. */
  reason: 'decoders' | 'writer'
  appid: string | null
  lib: string | null
  libVersion: string | null
  uploads: number
  /** Counted for writer only (decoders refuse before decoding). */
  records: number
  bytes: number
  lastTime: number
}

export interface BusyRefusals {
  uploads: number
  bytes: number
  lastTime: number
  refusals: BusyRefusal[]
}

/** The collector's data quality log of a project (GET /uba/api/ingest/problems). */
export interface ProblemLog {
  total: number
  lastTime: number | null
  counts: ProblemCount[]
  examples: ProblemExample[]
  /** Present when records named no known project (server-wide, in every project's log). */
  unknownProjects?: UnknownProjects
  /** Present when uploads were refused because the collector was busy. */
  busyRefusals?: BusyRefusals
}

const PROBLEMS = '/uba/api/ingest/problems'

export function getProblemLog(auth: ProjectAuth, limit = 100): Promise<ProblemLog> {
  return request<ProblemLog>(auth, 'GET', `${PROBLEMS}?limit=${limit}`)
}

export function clearProblemLog(auth: ProjectAuth): Promise<{ success: 0 }> {
  return request<{ success: 0 }>(auth, 'DELETE', PROBLEMS)
}
