import type { MetaDb } from '../../store/meta'
import { badParam } from '../errors'
import { parsePropertyExpression, validateFilter, type CheckedFilter, type PropertyLookup } from './filters'
import { ANY_EVENT } from '../schema/lookup'
import { findEvent } from '../schema/planRows'
import { column, DUCK_TYPES, type DataType } from '../schema/types'
import { filterSql, type Columns } from './filterSql'
import type { SqlParams } from '../../warehouse/dialect'

/**
 * Event expressions (spec 2.7): `event.<id>` (a tracked event), a virtual event (an OR of member
 * events, each with its own filter), or `event.$Anything`. And property expressions:
 * `event.<id>.<property>` and `user.<property>`, checked against the plan.
 */

export interface EventRef {
  expression: string
  eventId: string
  kind: 'event' | 'virtual' | 'any'
  members: { eventId: string; filter?: CheckedFilter }[]
}

export function resolveEvent(meta: MetaDb, appKey: string, expression: unknown, field: string, lookup: PropertyLookup): EventRef {
  if (typeof expression !== 'string' || !/^event\.[^.\s]+$/.test(expression)) throw badParam(field, `${field} must be event.<eventId>`)
  const eventId = expression.slice('event.'.length)
  if (eventId === ANY_EVENT) return { expression, eventId, kind: 'any', members: [] }
  const event = findEvent(meta, appKey, eventId)
  if (!event) throw badParam(field, `${field}: ${eventId} is not an event of this project`)
  if (event.type !== 'virtual') return { expression, eventId, kind: 'event', members: [{ eventId }] }
  const content = JSON.parse(event.content ?? '{"events":[]}') as { events: { expression: string; filter?: unknown }[] }
  const members = content.events.map((m, i) => ({
    eventId: m.expression.slice('event.'.length),
    filter: m.filter ? validateFilter(m.filter, `${field}.virtual.events[${i}].filter`, lookup) : undefined,
  }))
  return { expression, eventId, kind: 'virtual', members }
}

/** The rows of event_vd (as `e`) that an event expression selects. */
export function eventSql(ref: EventRef, columns: Columns, p: SqlParams, nowLocal: string): string {
  if (ref.kind === 'any') return 'true'
  if (ref.kind === 'event') return `e.xwhat = ${p.add(ref.eventId)}`
  const parts = ref.members.map((m) => `(e.xwhat = ${p.add(m.eventId)} AND ${filterSql(m.filter, columns, p, nowLocal)})`)
  return parts.length === 0 ? 'false' : `(${parts.join(' OR ')})`
}

export interface PropertyExpr {
  expression: string
  kind: 'event' | 'user'
  eventId?: string
  propertyId: string
  dataType: DataType
  /** SQL over `e` (event row) and `u` (profile row). */
  sql: string
}

/** A property expression checked against the plan; its SQL reads NULL where no column exists yet. */
export function resolveProperty(expression: unknown, field: string, lookup: PropertyLookup, columns: Columns): PropertyExpr {
  const ref = typeof expression === 'string' ? parsePropertyExpression(expression) : undefined
  if (!ref) throw badParam(field, `${field} must be event.<eventId>.<propertyId> or user.<propertyId>`)
  const dataType = lookup(ref)
  if (!dataType) throw badParam(field, `${field}: ${String(expression)} is not a known property`)
  const base = { expression: String(expression), propertyId: ref.propertyId, dataType }
  if (ref.kind === 'event') {
    const sql = columns.event.has(ref.propertyId) ? `e.${column(ref.propertyId)}` : `NULL::${DUCK_TYPES[dataType]}`
    return { ...base, kind: 'event', eventId: ref.eventId, sql }
  }
  if (ref.propertyId === 'xwho' || ref.propertyId === 'distinct_id') return { ...base, kind: 'user', sql: `e.${ref.propertyId}` }
  const sql = columns.user.has(ref.propertyId) ? `u.${column(ref.propertyId)}` : `NULL::${DUCK_TYPES[dataType]}`
  return { ...base, kind: 'user', sql }
}
