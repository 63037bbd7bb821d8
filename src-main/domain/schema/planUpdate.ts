import type { MetaDb } from '../../store/meta'
import type { DomainContext, Operator } from '../context'
import { badParam } from '../errors'
import { recordOperation } from '../project/operations'
import type { ProjectScope } from '../project/scope'
import type { WarehouseTable } from './columns'
import { foldPropertyId, storedText } from './naming'
import { findEvent, findUserProperty, propertiesOfEvents } from './planRows'
import { applyPlanChange, serialized } from './planWrite'
import type { DataType } from './types'

/**
 * PUT of the schema API (spec 4.3): only the fields sent change; `null` or "" clears a name or
 * remark. A data type changes only while no data has reported (dataStatus 0) and never for a
 * preset; its column is re-typed with it. A PUT changes neither `plan` nor `dataStatus`. `masking`
 * (properties only) changes how values are shown; the data version moves, so no cached answer keeps
 * showing raw values.
 */

export interface PropertyChanges {
  name?: string | null
  dataType?: DataType
  remark?: string | null
  /** 1: values are shown masked in user details, sequences and exports (UBA Desk addition). */
  masking?: 0 | 1
}

export interface EventChanges {
  name?: string | null
  remark?: string | null
}

function requireChanges(changes: object, fields: string): void {
  if (Object.keys(changes).length === 0) throw badParam('body', `nothing to change: send at least one of ${fields}`)
}

/** Whether a property's column must be re-typed; refuses a change that data or a preset fixes. */
function retypeNeeded(current: { data_type: DataType; data_status: boolean; preset: boolean }, wanted: DataType | undefined, id: string): boolean {
  if (wanted === undefined || wanted === current.data_type) return false
  if (current.preset) throw badParam('dataType', `${id} is a preset ${current.data_type} property; its data type cannot change`)
  if (current.data_status) throw badParam('dataType', `${id} has reported data as ${current.data_type}; its data type cannot change`)
  return true
}

type PlanTable = 'plan_user_properties' | 'plan_events' | 'plan_event_properties'

/** Writes the fields sent; the column names come from this fixed list, never from the request. */
function writeChanges(meta: MetaDb, table: PlanTable, appKey: string, id: string, changes: PropertyChanges): void {
  const fields: [string, unknown][] = [['update_time', Date.now()]]
  if (changes.name !== undefined) fields.push(['name', storedText(changes.name)])
  if (changes.remark !== undefined) fields.push(['remark', storedText(changes.remark)])
  if (changes.dataType !== undefined) fields.push(['data_type', changes.dataType])
  if (changes.masking !== undefined) fields.push(['masking', changes.masking])
  const sets = fields.map(([column]) => `${column} = ?`).join(', ')
  meta.prepare(`UPDATE ${table} SET ${sets} WHERE app_key = ? AND id = ?`).run(...fields.map(([, value]) => value), appKey, id)
}

async function updateProperty(
  ctx: DomainContext,
  scope: ProjectScope,
  target: { table: PlanTable; column: WarehouseTable; id: string; current: { data_type: DataType; data_status: boolean; preset: boolean } },
  changes: PropertyChanges,
  operation: { action: string; target: string; operator: Operator | null },
): Promise<void> {
  requireChanges(changes, 'name, dataType, remark, masking')
  const retype = retypeNeeded(target.current, changes.dataType, target.id)
  const columns = retype ? [{ table: target.column, id: target.id, dataType: changes.dataType as DataType, retype: true }] : []
  await applyPlanChange(ctx, scope, columns, () => {
    writeChanges(ctx.meta, target.table, scope.appKey, target.id, changes)
    recordOperation(ctx.meta, operation.operator, operation.action, scope.appKey, operation.target)
  })
}

export function updateUserProperty(ctx: DomainContext, scope: ProjectScope, rawId: string, changes: PropertyChanges, operator: Operator | null): Promise<void> {
  return serialized(ctx, scope.appKey, async () => {
    const id = foldPropertyId(rawId)
    const current = findUserProperty(ctx.meta, scope.appKey, id)
    if (!current) throw badParam('id', `user property ${id} does not exist`)
    await updateProperty(ctx, scope, { table: 'plan_user_properties', column: 'profile_vd', id, current }, changes, {
      action: 'schema.userProperty.update',
      target: id,
      operator,
    })
  })
}

/** The properties carry one name, remark and type across all events (one column per property id). */
export function updateEventProperty(
  ctx: DomainContext,
  scope: ProjectScope,
  eventId: string,
  rawPropertyId: string,
  changes: PropertyChanges,
  operator: Operator | null,
): Promise<void> {
  return serialized(ctx, scope.appKey, async () => {
    const event = findEvent(ctx.meta, scope.appKey, eventId)
    if (!event || event.type !== 'event') throw badParam('eventId', `event ${eventId} does not exist`)
    const id = foldPropertyId(rawPropertyId)
    const current = propertiesOfEvents(ctx.meta, scope.appKey, [eventId]).find((p) => p.id === id)
    if (!current) throw badParam('propertyId', `${id} is not a property of event ${eventId}`)
    await updateProperty(ctx, scope, { table: 'plan_event_properties', column: 'event_vd', id, current }, changes, {
      action: 'schema.eventProperty.update',
      target: `${eventId}.${id}`,
      operator,
    })
  })
}

export function updateEvent(ctx: DomainContext, appKey: string, id: string, changes: EventChanges, operator: Operator | null): Promise<void> {
  return serialized(ctx, appKey, async () => {
    const event = findEvent(ctx.meta, appKey, id)
    if (!event) throw badParam('id', `event ${id} does not exist`)
    if (event.type === 'virtual') throw badParam('id', `${id} is a virtual event; change it through /uba/api/meta/event/virtual`)
    requireChanges(changes, 'name, remark')
    ctx.meta.transaction(() => {
      writeChanges(ctx.meta, 'plan_events', appKey, id, changes)
      recordOperation(ctx.meta, operator, 'schema.event.update', appKey, id)
    })()
  })
}
