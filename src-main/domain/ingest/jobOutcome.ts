import type { DuckDBConnection } from '@duckdb/node-api'
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
  reported: {
    events: [string, { properties: string[]; platforms: string[] }][]
    eventProperties: [string, DataType][]
    userProperties: [string, DataType][]
    /** The SDKs (`$lib`) whose records arrived; absent in outcomes sealed before it was kept. */
    libs?: string[]
  }
}

export const jobKey = (id: string): string => `job:${id}`

export function sealJob(conn: DuckDBConnection, id: string, result: LoadResult): Promise<void> {
  const { reported, ...counts } = result
  const outcome: JobOutcome = {
    ...counts,
    reported: {
      events: [...reported.events].map(([e, seen]) => [e, { properties: [...seen.properties], platforms: [...seen.platforms] }]),
      eventProperties: [...reported.eventProperties],
      userProperties: [...reported.userProperties],
      libs: [...reported.libs],
    },
  }
  return sealOutcome(conn, jobKey(id), outcome)
}

/** The load result a sealed outcome describes. */
export function resultOf(outcome: JobOutcome): LoadResult {
  const reported: Reported = {
    events: new Map(outcome.reported.events.map(([e, seen]) => [e, { properties: new Set(seen.properties), platforms: new Set(seen.platforms) }])),
    eventProperties: new Map(outcome.reported.eventProperties),
    userProperties: new Map(outcome.reported.userProperties),
    libs: new Set(outcome.reported.libs ?? []),
  }
  return { aliasesMerged: 0, aliasesIgnored: 0, aliasProblems: [], ...outcome, reported }
}
