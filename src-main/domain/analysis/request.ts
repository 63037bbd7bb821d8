import { membersTable } from '../userSets/membership'
import { flag, numeric, word } from '../lenient'
import { ignoreUnknown } from '../ignored'
import { badParam } from '../errors'
import { day, MAX_RANGE_DAYS } from '../time/days'
import type { Dialect } from '../../warehouse/dialect'
import type { Unit } from '../time/calendar'

/**
 * The request fields every analysis shares (spec 2.7, 4.10): dates, unit, crowds, sampling,
 * cache, limit. Each check names the field in its 400.
 */


/** fromDate and toDate, inclusive calendar days in the project's time zone. */
export function dateRange(body: Record<string, unknown>): { fromDate: string; toDate: string } {
  if (body.fromDate === undefined) throw badParam('fromDate', 'fromDate is required')
  if (body.toDate === undefined) throw badParam('toDate', 'toDate is required')
  const fromDate = day(body.fromDate, 'fromDate')
  const toDate = day(body.toDate, 'toDate')
  if (fromDate > toDate) throw badParam('toDate', 'toDate must not be before fromDate')
  if ((Date.parse(toDate) - Date.parse(fromDate)) / 86400000 > MAX_RANGE_DAYS) throw badParam('toDate', `a range covers at most ${MAX_RANGE_DAYS} days`)
  return { fromDate, toDate }
}

export function unitOf(raw: unknown, field = 'unit', fallback: Unit = 'DAY'): Unit {
  if (raw === undefined || raw === null) return fallback
  const value = word(raw, ['DAY', 'WEEK', 'MONTH'])
  if (value !== 'DAY' && value !== 'WEEK' && value !== 'MONTH') throw badParam(field, `${field} must be DAY, WEEK or MONTH`)
  return value
}

/** Why a cohort code cannot be a crowd (unknown, never computed), or null when it can. */
export type CohortCheck = (code: string) => string | null

/**
 * crowds: required, `$ALL` or codes of cohorts that `cohortCheck` accepts (userSets/membership.ts).
 * The users analysed are the union of the cohorts; `$ALL` anywhere means everyone.
 */
export function crowdsOf(value: unknown, cohortCheck: CohortCheck = (code) => `no cohort has the code ${code}`): string[] {
  if (value === undefined) throw badParam('crowds', 'crowds is required: ["$ALL"] for all users, or cohort codes')
  if (!Array.isArray(value) || value.length === 0) throw badParam('crowds', 'crowds must be a non-empty list')
  value.forEach((c, i) => {
    if (typeof c !== 'string' || c === '') throw badParam(`crowds[${i}]`, `crowds[${i}] must be a cohort code or $ALL`)
    const problem = c === '$ALL' ? null : cohortCheck(c)
    if (problem) throw badParam(`crowds[${i}]`, `crowds[${i}]: ${problem}`)
  })
  return value as string[]
}

/**
 * The cohort filter of every analysis, written once: a condition on a user id column (default
 * `e.distinct_id`) that keeps the members of any of the crowds (their materialised tables), or
 * `true` for `$ALL`. Codes must have passed crowdsOf.
 */
export function crowdSql(crowds: string[], distinctId = 'e.distinct_id'): string {
  if (crowds.length === 0 || crowds.includes('$ALL')) return 'true'
  const members = [...new Set(crowds)].map((code) => `SELECT distinct_id FROM ${membersTable(code)}`)
  return `${distinctId} IN (${members.join(' UNION ALL ')})`
}

/** crowdSql in the engine's words: everyone is the dialect's `true` (ClickHouse 18.16 has no `true`). */
export function crowdFilter(crowds: string[], d: Dialect, distinctId = 'e.distinct_id'): string {
  return crowds.length === 0 || crowds.includes('$ALL') ? d.truth(true) : crowdSql(crowds, distinctId)
}

/** samplingFactor: (0, 1], 1 (the default) reads every user. */
export function samplingOf(raw: unknown): number {
  if (raw === undefined || raw === null) return 1
  const value = numeric(raw)
  if (typeof value !== 'number' || !(value > 0 && value <= 1)) throw badParam('samplingFactor', 'samplingFactor must be a number above 0 and at most 1 (1 = all data)')
  return value
}

export function booleanOf(raw: unknown, field: string, fallback = false): boolean {
  if (raw === undefined || raw === null) return fallback
  const value = flag(raw)
  if (typeof value !== 'boolean') throw badParam(field, `${field} must be true or false`)
  return value
}

export function limitOf(raw: unknown, fallback: number, field = 'limit'): number {
  if (raw === undefined || raw === null) return fallback
  const value = numeric(raw)
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 10000) throw badParam(field, `${field} must be a whole number from 1 to 10000`)
  return value
}

/** Fields the analysis does not read (the common parameters of other analyses among them) are ignored. */
export function knownFields(body: Record<string, unknown>, allowed: string[]): void {
  ignoreUnknown(body, allowed)
}

export function recordOf(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badParam(field, `${field} must be an object`)
  return value as Record<string, unknown>
}

/** Users sampled by a stable hash of their id (dialect.userSample), so a sample is the same users every time. */
export function samplingSql(factor: number, d: Dialect, distinctId = 'e.distinct_id'): string {
  return d.userSample(factor, distinctId)
}
