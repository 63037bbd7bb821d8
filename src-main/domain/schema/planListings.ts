import type { MetaDb } from '../../store/meta'
import { badParam } from '../errors'
import { ANY_EVENT } from './lookup'
import { asFlag, type Stored } from '../../store/meta/flags'
import { allEventProperties, eventRow, findEvent, membersOf, propertiesOfEvents, userPropertyRow, type EventRow, type UserPropertyRow } from './planRows'
import type { DataType } from './types'

/**
 * The listings of the schema API (4.3: the tracking plan with its plan and data states) and of
 * the metadata API (4.4: what analyses can pick). Records are shaped as spec 2.8 names them.
 */

/** The optional `plan` / `dataStatus` filters of the schema listings (0 or 1). */
export interface PlanStateFilter {
  plan?: number
  dataStatus?: number
}

export interface UserPropertyRecord {
  id: string
  name: string | null
  remark: string | null
  enable: number
  visible: number
  preset: number
  dataType: DataType
  plan: number
  dataStatus: number
  dict: number
  masking: number
}

export interface EventRecord {
  id: string
  name: string | null
  remark: string | null
  plan: number
  dataStatus: number
  preset: number
  enable: number
  platform: string | null
}

export interface EventPropertyRecord {
  id: string
  name: string | null
  remark: string | null
  enable: number
  global: number
  preset: number
  dataType: DataType
  plan: number
  dataStatus: number
  dict: number
  masking: number
}

export interface MetaEventRecord {
  id: string
  name: string | null
  enable: number
  remark: string | null
  preset: number
  platform: string | null
  type: 'event' | 'virtual'
  content: unknown
}

const matches = (filter: PlanStateFilter, plan: boolean, dataStatus: boolean) =>
  (filter.plan === undefined || filter.plan === asFlag(plan)) && (filter.dataStatus === undefined || filter.dataStatus === asFlag(dataStatus))

function userPropertyRows(meta: MetaDb, appKey: string): UserPropertyRow[] {
  return (meta.prepare('SELECT * FROM plan_user_properties WHERE app_key = ? ORDER BY preset DESC, id').all(appKey) as Stored<UserPropertyRow>[]).map(userPropertyRow)
}

function eventRows(meta: MetaDb, appKey: string, type?: 'event' | 'virtual'): EventRow[] {
  const rows = (meta.prepare('SELECT * FROM plan_events WHERE app_key = ? ORDER BY preset DESC, id').all(appKey) as Stored<EventRow>[]).map(eventRow)
  return type ? rows.filter((r) => r.type === type) : rows
}

/** A real event by id; a virtual one or an unknown id is a 400 naming `param`. */
function realEvent(meta: MetaDb, appKey: string, eventId: string, param: string): EventRow {
  const event = findEvent(meta, appKey, eventId)
  if (!event || event.type !== 'event') throw badParam(param, `event ${eventId} does not exist`)
  return event
}

export function schemaUserProperties(meta: MetaDb, appKey: string, filter: PlanStateFilter): UserPropertyRecord[] {
  return userPropertyRows(meta, appKey)
    .filter((r) => matches(filter, r.plan, r.data_status))
    .map((r) => ({
      id: r.id, name: r.name, remark: r.remark, enable: asFlag(r.enable), visible: asFlag(r.visible), preset: asFlag(r.preset),
      dataType: r.data_type, plan: asFlag(r.plan), dataStatus: asFlag(r.data_status), dict: asFlag(r.dict), masking: asFlag(r.masking),
    }))
}

/** Real events only: virtual events are defined by rules, not tracked, and listed by the metadata API. */
export function schemaEvents(meta: MetaDb, appKey: string, filter: PlanStateFilter): EventRecord[] {
  return eventRows(meta, appKey, 'event')
    .filter((r) => matches(filter, r.plan, r.data_status))
    .map((r) => ({ id: r.id, name: r.name, remark: r.remark, plan: asFlag(r.plan), dataStatus: asFlag(r.data_status), preset: asFlag(r.preset), enable: asFlag(r.enable), platform: r.platform }))
}

/** The event's properties, with `plan` / `dataStatus` as they stand for that event (see propertiesOfEvents). */
export function schemaEventProperties(meta: MetaDb, appKey: string, eventId: string, filter: PlanStateFilter): EventPropertyRecord[] {
  realEvent(meta, appKey, eventId, 'eventId')
  return propertiesOfEvents(meta, appKey, [eventId])
    .filter((r) => matches(filter, r.eventPlan, r.eventDataStatus))
    .map((r) => ({
      id: r.id, name: r.name, remark: r.remark, enable: asFlag(r.enable), global: asFlag(r.global), preset: asFlag(r.preset),
      dataType: r.data_type, plan: asFlag(r.eventPlan), dataStatus: asFlag(r.eventDataStatus), dict: asFlag(r.dict), masking: asFlag(r.masking),
    }))
}

/** Planned or reported user properties (every known one), hidden presets included. */
export function metaUserProperties(meta: MetaDb, appKey: string) {
  return userPropertyRows(meta, appKey)
    .filter((r) => r.plan || r.data_status)
    .map((r) => ({ id: r.id, name: r.name, enable: asFlag(r.enable), visible: asFlag(r.visible), preset: asFlag(r.preset), dataType: r.data_type, dict: asFlag(r.dict) }))
}

/**
 * Planned or reported events, disabled ones included, real and virtual. A virtual event's
 * `platform` joins its member events' platforms; `content` is its rule, else null.
 */
export function metaEvents(meta: MetaDb, appKey: string, type: 'all' | 'event' | 'virtual', enable?: number): MetaEventRecord[] {
  const rows = eventRows(meta, appKey, type === 'all' ? undefined : type)
  const platformOf = new Map(rows.map((r) => [r.id, r.platform]))
  return rows
    .filter((r) => (r.plan || r.data_status) && (enable === undefined || asFlag(r.enable) === enable))
    .map((r) => {
      let platform = r.platform
      if (r.type === 'virtual') {
        const known = new Set<string>()
        for (const member of membersOf(r.content)) {
          const value = platformOf.has(member) ? platformOf.get(member) : findEvent(meta, appKey, member)?.platform
          for (const p of (value ?? '').split(',')) if (p) known.add(p)
        }
        platform = known.size > 0 ? [...known].sort().join(',') : null
      }
      return { id: r.id, name: r.name, enable: asFlag(r.enable), remark: r.remark, preset: asFlag(r.preset), platform, type: r.type, content: r.content ? JSON.parse(r.content) : null }
    })
}

/**
 * An event's properties, common and event-defined. For a virtual event: those of its member
 * events together. For `$Anything`: every event property.
 */
export function metaEventProperties(meta: MetaDb, appKey: string, eventId: string) {
  let rows
  if (eventId === ANY_EVENT) rows = allEventProperties(meta, appKey)
  else {
    const event = findEvent(meta, appKey, eventId)
    if (!event) throw badParam('eventId', `event ${eventId} does not exist`)
    rows = propertiesOfEvents(meta, appKey, event.type === 'virtual' ? membersOf(event.content) : [eventId])
  }
  return rows.map((r) => ({ id: r.id, name: r.name, enable: asFlag(r.enable), global: asFlag(r.global), preset: asFlag(r.preset), dataType: r.data_type, dict: asFlag(r.dict) }))
}
