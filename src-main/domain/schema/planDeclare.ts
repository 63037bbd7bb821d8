import type { DomainContext, Operator } from '../context'
import { badParam } from '../errors'
import { recordOperation } from '../project/operations'
import type { ProjectScope } from '../project/scope'
import { checkNewEventId, checkNewPropertyId, foldPropertyId, storedText } from './naming'
import { findEvent, findEventProperty, findLink, findUserProperty } from './planRows'
import { applyPlanChange, serialized, type ColumnChange } from './planWrite'
import type { DataType } from './types'

/**
 * POST of the schema API (spec 3.4, 4.3): declaring items in the tracking plan.
 * - a new item enters the plan (plan 1, dataStatus 0); a new property gets its column at once;
 * - an item outside the plan is put into it, with the display name and remark sent;
 * - an item in the plan with the same data type is skipped (no change at all);
 * - a different data type is refused once data has reported (or for a preset); before any data,
 *   the declaration wins: the type (and the column) change, name and remark are updated.
 */

export interface PropertyDeclaration {
  id: string
  name?: string
  dataType: DataType
  remark?: string
}

export interface EventDeclaration {
  id: string
  name?: string
  remark?: string
  properties?: PropertyDeclaration[]
}

type Outcome = 'create' | 'skip' | 'plan' | 'redeclare'

interface KnownProperty {
  data_type: DataType
  plan: boolean
  data_status: boolean
  preset: boolean
}

function outcomeFor(existing: KnownProperty | undefined, dataType: DataType, id: string, param: string): Outcome {
  if (!existing) return 'create'
  if (existing.data_type !== dataType) {
    if (existing.preset) throw badParam(param, `${id} is a preset ${existing.data_type} property; its data type cannot change`)
    if (existing.data_status) throw badParam(param, `${id} has reported data as ${existing.data_type}; its data type cannot change`)
    return 'redeclare'
  }
  return existing.plan ? 'skip' : 'plan'
}

const needsColumn = (o: Outcome) => o === 'create' || o === 'redeclare'

/** Name and remark after a declaration: those sent replace the stored ones. */
function texts(sent: { name?: string; remark?: string }, stored?: { name: string | null; remark: string | null }) {
  return {
    name: sent.name !== undefined ? storedText(sent.name) : (stored?.name ?? null),
    remark: sent.remark !== undefined ? storedText(sent.remark) : (stored?.remark ?? null),
  }
}

export function declareUserProperty(ctx: DomainContext, scope: ProjectScope, input: PropertyDeclaration, operator: Operator | null): Promise<void> {
  const { appKey } = scope
  return serialized(ctx, appKey, async () => {
    const id = foldPropertyId(input.id)
    const existing = findUserProperty(ctx.meta, appKey, id)
    if (!existing) checkNewPropertyId(id, 'profile_vd', 'id')
    const outcome = outcomeFor(existing, input.dataType, id, 'dataType')
    if (outcome === 'skip') return
    const columns: ColumnChange[] = needsColumn(outcome) ? [{ table: 'profile_vd', id, dataType: input.dataType, retype: outcome === 'redeclare' }] : []
    const { name, remark } = texts(input, existing)
    const now = Date.now()
    await applyPlanChange(ctx, scope, columns, () => {
      ctx.meta
        .prepare(
          `INSERT INTO plan_user_properties (app_key, id, name, remark, data_type, plan, create_time, update_time) VALUES (?, ?, ?, ?, ?, 1, ?, ?)
           ON CONFLICT (app_key, id) DO UPDATE SET plan = 1, name = excluded.name, remark = excluded.remark,
             data_type = excluded.data_type, update_time = excluded.update_time`,
        )
        .run(appKey, id, name, remark, input.dataType, now, now)
      recordOperation(ctx.meta, operator, `schema.userProperty.${outcome}`, appKey, id)
    })
  })
}

export function declareEvent(ctx: DomainContext, scope: ProjectScope, input: EventDeclaration, operator: Operator | null): Promise<void> {
  const { appKey } = scope
  return serialized(ctx, appKey, async () => {
    const eventId = input.id
    const event = findEvent(ctx.meta, appKey, eventId)
    if (event?.type === 'virtual') throw badParam('id', `${eventId} is a virtual event; change it through /uba/api/meta/event/virtual`)
    if (!event) checkNewEventId(eventId, 'id')
    const eventOutcome: Outcome = !event ? 'create' : event.plan ? 'skip' : 'plan'

    const first = new Map<string, number>()
    const properties = (input.properties ?? []).map((p, i) => {
      const id = foldPropertyId(p.id)
      const param = `properties[${i}]`
      if (first.has(id)) throw badParam(`${param}.id`, `${id} is already listed as properties[${first.get(id)}].id`)
      first.set(id, i)
      const existing = findEventProperty(ctx.meta, appKey, id)
      if (!existing) checkNewPropertyId(id, 'event_vd', `${param}.id`)
      const outcome = outcomeFor(existing, p.dataType, id, `${param}.dataType`)
      const link = event ? findLink(ctx.meta, appKey, eventId, id) : undefined
      return { id, declared: p, existing, outcome, linkToPlan: !link?.plan }
    })
    if (eventOutcome === 'skip' && properties.every((p) => p.outcome === 'skip' && !p.linkToPlan)) return

    const columns: ColumnChange[] = properties
      .filter((p) => needsColumn(p.outcome))
      .map((p) => ({ table: 'event_vd', id: p.id, dataType: p.declared.dataType, retype: p.outcome === 'redeclare' }))
    const now = Date.now()
    await applyPlanChange(ctx, scope, columns, () => {
      if (eventOutcome !== 'skip') {
        const { name, remark } = texts(input, event)
        ctx.meta
          .prepare(
            `INSERT INTO plan_events (app_key, id, name, remark, plan, created_by, create_time, update_time) VALUES (?, ?, ?, ?, 1, ?, ?, ?)
             ON CONFLICT (app_key, id) DO UPDATE SET plan = 1, name = excluded.name, remark = excluded.remark, update_time = excluded.update_time`,
          )
          .run(appKey, eventId, name, remark, operator?.id ?? null, now, now)
        recordOperation(ctx.meta, operator, `schema.event.${eventOutcome}`, appKey, eventId)
      }
      const property = ctx.meta.prepare(
        `INSERT INTO plan_event_properties (app_key, id, name, remark, data_type, plan, create_time, update_time) VALUES (?, ?, ?, ?, ?, 1, ?, ?)
         ON CONFLICT (app_key, id) DO UPDATE SET plan = 1, name = excluded.name, remark = excluded.remark,
           data_type = excluded.data_type, update_time = excluded.update_time`,
      )
      const link = ctx.meta.prepare(
        `INSERT INTO plan_event_property_links (app_key, event_id, property_id, plan) VALUES (?, ?, ?, 1)
         ON CONFLICT (app_key, event_id, property_id) DO UPDATE SET plan = 1`,
      )
      for (const p of properties) {
        if (p.outcome !== 'skip') {
          const { name, remark } = texts(p.declared, p.existing)
          property.run(appKey, p.id, name, remark, p.declared.dataType, now, now)
        }
        if (p.linkToPlan) link.run(appKey, eventId, p.id)
        if (p.outcome !== 'skip' || p.linkToPlan) {
          recordOperation(ctx.meta, operator, `schema.eventProperty.${p.outcome === 'skip' ? 'link' : p.outcome}`, appKey, `${eventId}.${p.id}`)
        }
      }
    })
  })
}
