import { dsOf } from '../time/calendar'
import { eventSql, resolveEvent, type EventRef } from '../expr/eventRefs'
import { needsProfile, type ExprScope } from '../expr/filterSql'
import { dateRange } from '../analysis/request'
import type { SqlParams } from '../../warehouse/dialect'
import { badParam } from '../errors'
import type { PropertyLookup } from '../schema/lookup'
import { EVENT_BASE_COLUMNS } from '../schema/types'
import type { MetaDb } from '../../store/meta'
import { plannedValue, shownValue } from '../schema/shownValues'

/**
 * The behaviour sequence of one user (spec 2.9, 4.6), shared by the sequence and its export:
 * the user's events on the days fromDate..toDate of the project's time zone, newest first.
 */

export interface SequenceFields {
  fromDate: string
  toDate: string
  /** The selected events, or null for every event. */
  events: EventRef[] | null
}

/** Output columns that are not properties; property ids never start with '#'. */
const EVENT_KEY = '#event'
const TIME_KEY = '#time'
/** Beside each list column, its engine's test of a missing list: ClickHouse keeps no NULL list (a missing one is []). */
const MISSING_KEY = '#missing:'

/**
 * fromDate, toDate and events. `events` are event ids of the plan (else 400 naming `events[i]`):
 * a tracked event selects its records; a virtual event the records of its member events that pass
 * the member's filter (rows still show the tracked event id); `$Anything`, an omitted or empty
 * list: every event.
 */
export function sequenceFields(body: Record<string, unknown>, meta: MetaDb, appKey: string, lookup: PropertyLookup): SequenceFields {
  const { fromDate, toDate } = dateRange(body)
  const value = body.events
  if (value === undefined || value === null) return { fromDate, toDate, events: null }
  if (!Array.isArray(value)) throw badParam('events', 'events must be an array of event ids')
  const events = value.map((id, i) => {
    const field = `events[${i}]`
    if (typeof id !== 'string' || id === '') throw badParam(field, `${field} must be an event id`)
    if (!/^[^.\s]+$/.test(id)) throw badParam(field, `${field}: ${id} is not an event of this project`)
    return resolveEvent(meta, appKey, `event.${id}`, field, lookup)
  })
  if (events.length === 0 || events.some((e) => e.kind === 'any')) return { fromDate, toDate, events: null }
  return { fromDate, toDate, events }
}

/**
 * The query: the event id, the time (`time` is the SQL of xwhen as it is shown) and every property
 * column. Ties in time are broken by event id, then the later-loaded record first, so the order is
 * the same on every call.
 */
export function sequenceSql(
  distinctId: number,
  fields: SequenceFields,
  scope: ExprScope,
  p: SqlParams,
  time: (xwhen: string) => string,
  limit?: number,
  types?: Map<string, string>,
): string {
  const profile = fields.events?.some((ref) => ref.members.some((m) => needsProfile(m.filter))) ?? false
  const lists = [...scope.columns.event].filter((id) => types?.get(id) === 'array<string>')
  const missing = lists.map((id) => `, ${scope.dialect.listMissing(`e.${scope.dialect.ident(id)}`, true)} AS "${MISSING_KEY}${id}"`).join('')
  const match = fields.events ? `(${fields.events.map((ref) => eventSql(ref, scope, p)).join(' OR ')})` : scope.dialect.truth(true)
  return `SELECT e.xwhat AS "${EVENT_KEY}", ${time('e.xwhen')} AS "${TIME_KEY}", ${scope.dialect.allColumnsBut('e', [...EVENT_BASE_COLUMNS], [...EVENT_BASE_COLUMNS, ...scope.columns.event])}${missing}
    FROM event_vd e ${profile ? 'LEFT JOIN profile_vd u ON u.distinct_id = e.distinct_id' : ''}
    WHERE e.distinct_id = ${p.add(distinctId)}
      AND e.ds BETWEEN ${p.add(dsOf(fields.fromDate))} AND ${p.add(dsOf(fields.toDate))}
      AND ${match}
    ORDER BY e.xwhen DESC, e.xwhat, ${scope.dialect.storedOrder('e')} DESC
    ${limit === undefined ? '' : `LIMIT ${p.add(limit)}`}`
}

/** One result row: its event id, its time as the query showed it, and its non-null properties (`types`: their plan types). */
export function sequenceRow(row: Record<string, unknown>, masked: Set<string>, types?: Map<string, string>): { eventId: string; time: unknown; properties: Record<string, unknown> } {
  const properties: Record<string, unknown> = {}
  for (const key in row) {
    if (key === EVENT_KEY || key === TIME_KEY || key.startsWith(MISSING_KEY) || row[key] === null || row[key] === undefined) continue
    if (row[MISSING_KEY + key]) continue
    properties[key] = shownValue(plannedValue(row[key], types?.get(key)), masked.has(key))
  }
  return { eventId: String(row[EVENT_KEY]), time: row[TIME_KEY], properties }
}
