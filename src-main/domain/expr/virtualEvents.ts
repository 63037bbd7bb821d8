import type { MetaDb } from '../../store/meta'
import type { DomainContext, Operator } from '../context'
import { alreadyExists, badParam } from '../errors'
import { plainFilter, validateFilter, type Filter } from './filters'
import { recordOperation } from '../project/operations'
import { ANY_EVENT, planLookup } from '../schema/lookup'
import { checkVirtualEventId, storedText } from '../schema/naming'
import { findEvent, type EventRow } from '../schema/planRows'
import { serialized } from '../schema/planWrite'

/**
 * Virtual events (spec 2.8, 4.4): a named OR of real events, each optionally filtered. Stored in
 * plan_events with type 'virtual' and the rule as `content`; only their creator may change them.
 */

export interface VirtualMember {
  expression: string
  filter?: unknown
}

/** The stored rule: members as `event.<id>` with a checked filter, combined by OR. */
export interface VirtualEventRule {
  events: { expression: string; filter?: Filter }[]
  relation: 'OR'
}

export interface VirtualEventInput {
  id: string
  name?: string | null
  remark?: string | null
  events?: VirtualMember[]
}

/**
 * Each member is `event.<eventId>` of a real event (not a virtual one, not `$Anything`); its filter
 * may use `user.<p>` and the properties of that same event.
 */
function checkRule(meta: MetaDb, appKey: string, members: VirtualMember[]): VirtualEventRule {
  const lookup = planLookup(meta, appKey)
  const events = members.map((m, i) => {
    const path = `events[${i}]`
    const eventId = /^event\.([^.\s]+)$/.exec(m.expression)?.[1]
    if (!eventId) throw badParam(`${path}.expression`, `${path}.expression must be event.<eventId>`)
    if (eventId === ANY_EVENT) throw badParam(`${path}.expression`, `${path}.expression: a virtual event combines named events, not ${ANY_EVENT}`)
    const member = findEvent(meta, appKey, eventId)
    if (!member) throw badParam(`${path}.expression`, `${path}.expression: event ${eventId} does not exist`)
    if (member.type === 'virtual') throw badParam(`${path}.expression`, `${path}.expression: ${eventId} is a virtual event; members must be real events`)
    if (m.filter === undefined || m.filter === null) return { expression: `event.${eventId}` }
    const filter = validateFilter(m.filter, `${path}.filter`, (ref) => (ref.kind === 'event' && ref.eventId !== eventId ? undefined : lookup(ref)))
    return { expression: `event.${eventId}`, filter: plainFilter(filter) }
  })
  return { events, relation: 'OR' }
}

/** Creator-only changes: the API's own events without loginUser, an account's with that loginUser. */
function checkCreator(event: EventRow, operator: Operator | null): void {
  if ((operator?.id ?? null) === event.created_by) return
  throw badParam(
    'loginUser',
    operator
      ? `virtual event ${event.id} was not created by ${operator.email}; only its creator may change it`
      : `virtual event ${event.id} was created by an account; only that account (as loginUser) may change it`,
  )
}

/** Plan writes of a project are serialised (planWrite.ts), so an id cannot be taken in between. */
export function createVirtualEvent(ctx: DomainContext, appKey: string, input: VirtualEventInput, operator: Operator | null): Promise<void> {
  return serialized(ctx, appKey, async () => createNow(ctx, appKey, input, operator))
}

function createNow(ctx: DomainContext, appKey: string, input: VirtualEventInput, operator: Operator | null): void {
  checkVirtualEventId(input.id, 'id')
  const existing = findEvent(ctx.meta, appKey, input.id)
  if (existing?.type === 'virtual') throw alreadyExists(`virtual event ${input.id} already exists`)
  if (existing) throw badParam('id', `${input.id} is the id of an event; a virtual event id must differ from every event id`)
  if (!input.events || input.events.length === 0) throw badParam('events', 'events must list at least one event')
  const rule = checkRule(ctx.meta, appKey, input.events)
  const now = Date.now()
  ctx.meta.transaction(() => {
    ctx.meta
      .prepare(
        `INSERT INTO plan_events (app_key, id, name, remark, type, content, plan, created_by, create_time, update_time)
         VALUES (?, ?, ?, ?, 'virtual', ?, 1, ?, ?, ?)`,
      )
      .run(appKey, input.id, storedText(input.name), storedText(input.remark), JSON.stringify(rule), operator?.id ?? null, now, now)
    recordOperation(ctx.meta, operator, 'meta.virtualEvent.create', appKey, input.id)
  })()
}

export function updateVirtualEvent(ctx: DomainContext, appKey: string, input: VirtualEventInput, operator: Operator | null): Promise<void> {
  return serialized(ctx, appKey, async () => updateNow(ctx, appKey, input, operator))
}

function updateNow(ctx: DomainContext, appKey: string, input: VirtualEventInput, operator: Operator | null): void {
  const existing = findEvent(ctx.meta, appKey, input.id)
  if (!existing) throw badParam('id', `virtual event ${input.id} does not exist`)
  if (existing.type !== 'virtual') throw badParam('id', `${input.id} is a tracked event, not a virtual event`)
  checkCreator(existing, operator)
  if (input.name === undefined && input.remark === undefined && input.events === undefined) {
    throw badParam('body', 'nothing to change: send at least one of name, remark, events')
  }
  if (input.events !== undefined && input.events.length === 0) throw badParam('events', 'events must list at least one event')
  const rule = input.events === undefined ? undefined : checkRule(ctx.meta, appKey, input.events)
  const fields: [string, unknown][] = [['update_time', Date.now()]]
  if (input.name !== undefined) fields.push(['name', storedText(input.name)])
  if (input.remark !== undefined) fields.push(['remark', storedText(input.remark)])
  if (rule) fields.push(['content', JSON.stringify(rule)])
  const sets = fields.map(([column]) => `${column} = ?`).join(', ')
  ctx.meta.transaction(() => {
    ctx.meta.prepare(`UPDATE plan_events SET ${sets} WHERE app_key = ? AND id = ?`).run(...fields.map(([, v]) => v), appKey, input.id)
    recordOperation(ctx.meta, operator, 'meta.virtualEvent.update', appKey, input.id)
  })()
}
