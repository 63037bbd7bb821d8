import type { Warehouse } from '../../warehouse'
import { sealOutcome } from '../outcomes'
import type { Reported } from '../schema/plan'
import type { DataType } from '../schema/types'
import type { LoadResult, Rejection } from './load'

/**
 * What a job seals with its data (see domain/outcomes.ts): its counts, and what reported, from
 * which the plan is brought up to date again if the app stopped before it was.
 */
export interface JobOutcome {
  rowsRead: number
  rowsRejected: number
  eventsWritten: number
  profilesChanged: number
  debugSkipped: number
  duplicatesSkipped: number
  rejected: Rejection[]
  aliasesMerged?: number
  aliasesIgnored?: number
  aliasProblems?: Rejection[]
  reported: SealedReported
}

/** What a load reported (plan.ts `Reported`), as JSON. */
export interface SealedReported {
  events: [string, { properties: string[]; platforms: string[] }][]
  eventProperties: [string, DataType][]
  userProperties: [string, DataType][]
  /** The SDKs (`$lib`) whose records arrived; absent in outcomes sealed before it was kept. */
  libs?: string[]
}

export function sealedReported(reported: Reported): SealedReported {
  return {
    events: [...reported.events].map(([e, seen]) => [e, { properties: [...seen.properties], platforms: [...seen.platforms] }]),
    eventProperties: [...reported.eventProperties],
    userProperties: [...reported.userProperties],
    libs: [...reported.libs],
  }
}

export function reportedOf(sealed: SealedReported): Reported {
  return {
    events: new Map(sealed.events.map(([e, seen]) => [e, { properties: new Set(seen.properties), platforms: new Set(seen.platforms) }])),
    eventProperties: new Map(sealed.eventProperties),
    userProperties: new Map(sealed.userProperties),
    libs: new Set(sealed.libs ?? []),
  }
}

export const jobKey = (id: string): string => `job:${id}`

/** A collector batch's key: what it reported is sealed alone (its counts went to the SDK). */
export const uploadKey = (id: string): string => `collect:${id}`
export const UPLOAD_KEY_PREFIX = 'collect:'

export function sealJob(conn: Warehouse, id: string, result: LoadResult): Promise<void> {
  const { reported, ...counts } = result
  const outcome: JobOutcome = { ...counts, reported: sealedReported(reported) }
  return sealOutcome(conn, jobKey(id), outcome)
}

/** The load result a sealed outcome describes. */
export function resultOf(outcome: JobOutcome): LoadResult {
  return { aliasesMerged: 0, aliasesIgnored: 0, aliasProblems: [], ...outcome, reported: reportedOf(outcome.reported) }
}
