import type { MetaDb } from '../../store/meta'
import { badParam } from '../errors'
import { parsePropertyExpression, validateFilter, type CheckedFilter } from './filters'
import { ANY_EVENT, type PropertyLookup } from '../schema/lookup'
import { findEvent } from '../schema/planRows'
import type { DataType } from '../schema/types'
import type { ColumnRef, SqlParams } from '../../warehouse/dialect'
import { filterSql, propertyColumn, type Columns, type ExprScope } from './filterSql'

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
export function eventSql(ref: EventRef, scope: ExprScope, p: SqlParams): string {
  if (ref.kind === 'any') return scope.dialect.truth(true)
  if (ref.kind === 'event') return `e.xwhat = ${p.add(ref.eventId)}`
  const parts = ref.members.map((m) => `(e.xwhat = ${p.add(m.eventId)} AND ${filterSql(m.filter, scope, p)})`)
  return parts.length === 0 ? scope.dialect.truth(false) : `(${parts.join(' OR ')})`
}

export interface PropertyExpr {
  expression: string
  kind: 'event' | 'user'
  eventId?: string
  propertyId: string
  dataType: DataType
  /** Where it is read: a column of the event row `e` or the profile row `u` (the dialect prints it). */
  column: ColumnRef
}

/** A property expression checked against the plan; it reads NULL where no column exists yet. */
export function resolveProperty(expression: unknown, field: string, lookup: PropertyLookup, columns: Columns): PropertyExpr {
  const ref = typeof expression === 'string' ? parsePropertyExpression(expression) : undefined
  if (!ref) throw badParam(field, `${field} must be event.<eventId>.<propertyId> or user.<propertyId>`)
  const dataType = lookup(ref)
  if (!dataType) throw badParam(field, `${field}: ${String(expression)} is not a known property`)
  const base = { expression: String(expression), propertyId: ref.propertyId, dataType, column: propertyColumn(ref, dataType, columns) }
  return ref.kind === 'event' ? { ...base, kind: 'event', eventId: ref.eventId } : { ...base, kind: 'user' }
}
