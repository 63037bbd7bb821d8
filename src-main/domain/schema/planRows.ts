import type { MetaDb } from '../../store/meta'
import { flag, type Stored } from '../../store/meta/flags'
import type { DataType } from './types'

/**
 * The plan tables' rows as the domain reads them (migration 2), and the few reads every plan
 * module needs. The flags are booleans (store/meta/flags.ts); every read of a row goes through the
 * table's row mapper below.
 */

export interface UserPropertyRow {
  id: string
  name: string | null
  remark: string | null
  data_type: DataType
  plan: boolean
  data_status: boolean
  preset: boolean
  enable: boolean
  visible: boolean
  dict: boolean
  masking: boolean
}

export interface EventRow {
  id: string
  name: string | null
  remark: string | null
  type: 'event' | 'virtual'
  content: string | null
  plan: boolean
  data_status: boolean
  preset: boolean
  enable: boolean
  platform: string | null
  created_by: number | null
}

export interface EventPropertyRow {
  id: string
  name: string | null
  remark: string | null
  data_type: DataType
  plan: boolean
  data_status: boolean
  preset: boolean
  enable: boolean
  global: boolean
  dict: boolean
  masking: boolean
}

export interface LinkRow {
  plan: boolean
  data_status: boolean
}

/** In the plan, and data reported (spec 2.8 plan and dataStatus): every plan table has both. */
const states = (r: Stored<LinkRow>): LinkRow => ({ plan: flag(r.plan), data_status: flag(r.data_status) })

export function userPropertyRow(r: Stored<UserPropertyRow>): UserPropertyRow {
  return { ...r, ...states(r), preset: flag(r.preset), enable: flag(r.enable), visible: flag(r.visible), dict: flag(r.dict), masking: flag(r.masking) }
}

export function eventRow(r: Stored<EventRow>): EventRow {
  return { ...r, ...states(r), preset: flag(r.preset), enable: flag(r.enable) }
}

export function eventPropertyRow<R extends Stored<EventPropertyRow>>(r: R): Omit<R, keyof EventPropertyRow> & EventPropertyRow {
  return { ...r, ...states(r), preset: flag(r.preset), enable: flag(r.enable), global: flag(r.global), dict: flag(r.dict), masking: flag(r.masking) }
}

export function findUserProperty(meta: MetaDb, appKey: string, id: string): UserPropertyRow | undefined {
  const row = meta.prepare('SELECT * FROM plan_user_properties WHERE app_key = ? AND id = ?').get(appKey, id) as Stored<UserPropertyRow> | undefined
  return row && userPropertyRow(row)
}

export function findEvent(meta: MetaDb, appKey: string, id: string): EventRow | undefined {
  const row = meta.prepare('SELECT * FROM plan_events WHERE app_key = ? AND id = ?').get(appKey, id) as Stored<EventRow> | undefined
  return row && eventRow(row)
}

export function findEventProperty(meta: MetaDb, appKey: string, id: string): EventPropertyRow | undefined {
  const row = meta.prepare('SELECT * FROM plan_event_properties WHERE app_key = ? AND id = ?').get(appKey, id) as Stored<EventPropertyRow> | undefined
  return row && eventPropertyRow(row)
}

export function findLink(meta: MetaDb, appKey: string, eventId: string, propertyId: string): LinkRow | undefined {
  const row = meta
    .prepare('SELECT plan, data_status FROM plan_event_property_links WHERE app_key = ? AND event_id = ? AND property_id = ?')
    .get(appKey, eventId, propertyId) as Stored<LinkRow> | undefined
  return row && states(row)
}

/**
 * The properties of some real events: the common (global) ones, which every event carries, plus
 * those linked to one of them. `plan` and `dataStatus` are the property's state on the event: a
 * common property is planned wherever the property is; an event-defined one as its link says.
 * Data status is the link's (0 while no data of the event carried the property). For several
 * events the states are combined (planned or reported on any of them).
 */
export function propertiesOfEvents(meta: MetaDb, appKey: string, eventIds: string[]): (EventPropertyRow & { eventPlan: boolean; eventDataStatus: boolean })[] {
  const marks = eventIds.map(() => '?').join(', ')
  const rows = meta
    .prepare(
      `SELECT p.*,
         MAX(CASE WHEN p.global = 1 THEN p.plan ELSE COALESCE(l.plan, 0) END) AS eventPlan,
         MAX(COALESCE(l.data_status, 0)) AS eventDataStatus
       FROM plan_event_properties p
       LEFT JOIN plan_event_property_links l ON l.app_key = p.app_key AND l.property_id = p.id AND l.event_id IN (${marks || 'NULL'})
       WHERE p.app_key = ? AND (p.global = 1 OR l.event_id IS NOT NULL)
       GROUP BY p.id
       ORDER BY p.preset DESC, p.id`,
    )
    .all(...eventIds, appKey) as (Stored<EventPropertyRow> & { eventPlan: number; eventDataStatus: number })[]
  return rows.map((r) => ({ ...eventPropertyRow(r), eventPlan: flag(r.eventPlan), eventDataStatus: flag(r.eventDataStatus) }))
}

/** Every event property of the project (what `event.$Anything` may carry). */
export function allEventProperties(meta: MetaDb, appKey: string): EventPropertyRow[] {
  return (meta.prepare('SELECT * FROM plan_event_properties WHERE app_key = ? ORDER BY preset DESC, id').all(appKey) as Stored<EventPropertyRow>[]).map(eventPropertyRow)
}

/** The member event ids of a virtual event's stored rule. */
export function membersOf(content: string | null): string[] {
  if (!content) return []
  const rule = JSON.parse(content) as { events: { expression: string }[] }
  return [...new Set(rule.events.map((e) => e.expression.slice('event.'.length)))]
}
