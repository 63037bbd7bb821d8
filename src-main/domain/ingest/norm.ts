import type { Dialect } from '../../warehouse/dialect'
import { EVENT_BASE_COLUMNS, PROPERTY_ID, PROPERTY_ID_MAX, type DataType } from '../schema/types'
import type { TypedRead } from '../../warehouse/parts/typedReads'

/**
 * The normalized table every source is turned into before loading, `norm`:
 *   _row, is_profile, op, xwho, xwhat, xwhen (TIMESTAMPTZ), ds, debug, platform,
 *   "e:<id>" per event property, "u:<id>" per user property, "x:<id>" (unset flags),
 *   _problem STRUCT(property, value, reason) — NULL for a record that loads;
 *   for SDK records read leniently (the collector), `_notes`: the values left out of a stored record.
 * The first failing check gives a record's problem.
 */

/** A property as one load sees it: its id, its type (from the plan or inferred now), where its value is read. */
export interface PropertyPlan {
  id: string
  type: DataType
  /** True when the plan did not know it: the load adds its column and plan item. */
  isNew: boolean
  read: TypedRead
  /** SQL text of the raw value, quoted in a rejection reason (evaluated for rejected records only). */
  rawText: string
}

export interface Check {
  when: string
  property: string
  value: string
  reason: string
}

export function eventCol(id: string): string {
  return `"e:${id}"`
}
export function userCol(id: string): string {
  return `"u:${id}"`
}
export function unsetCol(id: string): string {
  return `"x:${id}"`
}

/** Folds a raw key to a property id, or null when it cannot be one (spec-notes limits). */
export function propertyIdOf(key: string): string | null {
  const id = key.toLowerCase()
  if (id.length > PROPERTY_ID_MAX || !PROPERTY_ID.test(id)) return null
  return id
}

/**
 * The checks that apply to a property's value: its type, and the array limits of spec-notes.
 * `column` names where the value was computed (see TypedRead).
 */
export function propertyChecks(d: Dialect, p: PropertyPlan, column: string, gate = 'true'): Check[] {
  const checks: Check[] = [
    { when: `(${gate}) AND ${p.read.misfit(column)}`, property: p.id, value: p.rawText, reason: `is not ${p.type.startsWith('a') ? 'an' : 'a'} ${p.type}` },
  ]
  if (p.type === 'array<string>') {
    checks.push(
      { when: `(${gate}) AND ${d.length(column)} > 100`, property: p.id, value: p.rawText, reason: 'has more than 100 items' },
      {
        when: `(${gate}) AND ${d.some(column, (x) => `length(${x}) > 255`)}`,
        property: p.id,
        value: p.rawText,
        reason: 'has an item longer than 255 characters',
      },
    )
  }
  return checks
}

/** CASE over the checks, in order: the first failing check is the record's problem. */
export function problemCase(d: Dialect, checks: Check[]): string {
  if (checks.length === 0) return d.noProblem()
  const arms = checks.map((c) => `WHEN ${c.when} THEN ${problemStruct(d, c)}`)
  return `CASE ${arms.join('\n    ')} END`
}

/** A check's problem as norm stores it: property, the value (at most 200 characters), reason. */
export function problemStruct(d: Dialect, c: Check): string {
  return d.problem(c.property, `left(${d.cast(c.value, 'string')}, 200)`, c.reason)
}

/**
 * The collector's notes of a record (the `_notes` column of norm in lenient mode): the problem of
 * every failing check, as a list (NULL when none fails). The record itself is stored; these values
 * are left out of it.
 */
export function notesList(d: Dialect, checks: Check[], first?: string): string {
  const arms = [...(first ? [first] : []), ...checks.map((c) => `CASE WHEN ${c.when} THEN ${problemStruct(d, c)} END`)]
  if (arms.length === 0) return d.noProblems()
  // almost every record has no note: the list is built only for those that have one (else NULL)
  const any = [...(first ? [`${first} IS NOT NULL`] : []), ...checks.map((c) => `(${c.when})`)].join(' OR ')
  return `CASE WHEN ${any} THEN ${d.problemList(arms)} END`
}

/** The SDK's event id (spec-notes): a letter or $ first, at most 99 characters. */
const SDK_EVENT_ID = `'[A-Za-z$][A-Za-z0-9_$]{0,98}'`
/** A plan id (part 8): letters, digits and _, not a digit first, at most 100 (`_checkout_v2`). */
const PLAN_EVENT_ID = `'[A-Za-z_][A-Za-z0-9_]{0,99}'`

/**
 * Which event ids a load takes: `sdk`, the SDK's rule, for records the SDKs send to the collector;
 * `plan`, for imported files, the SDK's ids and the plan's too, so that an event the plan may hold
 * (`_checkout_v2`) can be imported.
 */
export type EventIdRule = 'sdk' | 'plan'

function eventIdCheck(d: Dialect, xwhat: string, rule: EventIdRule): Check {
  if (rule === 'sdk') {
    return { when: `NOT ${d.matches(xwhat, SDK_EVENT_ID)}`, property: 'xwhat', value: xwhat, reason: 'must start with a letter or $, hold only letters, digits, _ and $, and be at most 99 characters' }
  }
  return {
    when: `NOT (${d.matches(xwhat, SDK_EVENT_ID)} OR ${d.matches(xwhat, PLAN_EVENT_ID)})`,
    property: 'xwhat',
    value: xwhat,
    reason: 'must be an SDK event id (a letter or $ first, then letters, digits, _ and $, at most 99 characters) or a plan id (letters, digits and _, not a digit first, at most 100 characters)',
  }
}

/** The checks every record goes through: user id, event id, time (spec-notes limits). */
export function identityChecks(d: Dialect, xwho: string, xwhat: string, xwhen: string, xwhenRaw: string, eventIds: EventIdRule): Check[] {
  return [
    { when: `${xwho} IS NULL OR ${xwho} = ''`, property: 'xwho', value: "''", reason: 'is missing' },
    { when: `length(${xwho}) > 254`, property: 'xwho', value: xwho, reason: 'is longer than 254 characters' },
    { when: `${xwhat} IS NULL OR ${xwhat} = ''`, property: 'xwhat', value: "''", reason: 'is missing' },
    eventIdCheck(d, xwhat, eventIds),
    { when: `${xwhen} IS NULL`, property: 'xwhen', value: `COALESCE(${xwhenRaw}, '')`, reason: 'is not a time (epoch ms or s, ISO 8601, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd)' },
  ]
}

export const RESERVED_IDS: readonly string[] = EVENT_BASE_COLUMNS
