import type { MetaDb } from '../../store/meta'
import { dialectOf, type DomainContext } from '../context'
import { dataChanged } from '../project/dataVersion'
import type { ProjectScope } from '../project/scope'
import { propertyColumns } from './columns'
import { PRESET_EVENT_PROPERTIES, PRESET_EVENTS, PRESET_USER_PROPERTIES } from './presets'
import type { DataType } from './types'

/**
 * The tracking plan's core, shared by the importers, the collector and the schema API: which
 * events and properties a project knows, their fixed types, and what data has reported.
 */

/** Puts the preset events and properties into a project's plan (planned, not yet reported). */
export function seedPresets(meta: MetaDb, appKey: string): void {
  const now = Date.now()
  const event = meta.prepare(
    `INSERT OR IGNORE INTO plan_events (app_key, id, name, plan, preset, create_time, update_time) VALUES (?, ?, ?, 1, 1, ?, ?)`,
  )
  const eventProperty = meta.prepare(
    `INSERT OR IGNORE INTO plan_event_properties (app_key, id, name, data_type, plan, preset, global, create_time, update_time)
     VALUES (?, ?, ?, ?, 1, 1, 1, ?, ?)`,
  )
  const userProperty = meta.prepare(
    `INSERT OR IGNORE INTO plan_user_properties (app_key, id, name, data_type, plan, preset, visible, create_time, update_time)
     VALUES (?, ?, ?, ?, 1, 1, ?, ?, ?)`,
  )
  meta.transaction(() => {
    for (const e of PRESET_EVENTS) event.run(appKey, e.id, e.name, now, now)
    for (const p of PRESET_EVENT_PROPERTIES) eventProperty.run(appKey, p.id, p.name, p.dataType, now, now)
    for (const p of PRESET_USER_PROPERTIES) userProperty.run(appKey, p.id, p.name, p.dataType, p.visible, now, now)
  })()
}

/** Seeds the plan: the last step of creating a project. Preset columns come with their data. */
export async function preparePlan(ctx: DomainContext, scope: ProjectScope): Promise<void> {
  seedPresets(ctx.meta, scope.appKey)
}

export function eventPropertyTypes(meta: MetaDb, appKey: string): Map<string, DataType> {
  const rows = meta.prepare('SELECT id, data_type FROM plan_event_properties WHERE app_key = ?').all(appKey) as { id: string; data_type: DataType }[]
  return new Map(rows.map((r) => [r.id, r.data_type]))
}

export function userPropertyTypes(meta: MetaDb, appKey: string): Map<string, DataType> {
  const rows = meta.prepare('SELECT id, data_type FROM plan_user_properties WHERE app_key = ?').all(appKey) as { id: string; data_type: DataType }[]
  return new Map(rows.map((r) => [r.id, r.data_type]))
}

/** What one load brought in: events (with their properties and platforms), user properties, and the SDKs (`$lib`) of its records. */
export interface Reported {
  events: Map<string, { properties: Set<string>; platforms: Set<string> }>
  eventProperties: Map<string, DataType>
  userProperties: Map<string, DataType>
  libs: Set<string>
}

export function emptyReported(): Reported {
  return { events: new Map(), eventProperties: new Map(), userProperties: new Map(), libs: new Set() }
}

/** The project's `sdkBack` (spec 2.1): the SDK platforms (`$lib`) whose data arrived, sorted, comma separated. */
function addSdkBack(meta: MetaDb, appKey: string, libs: Set<string>): void {
  const known = ((meta.prepare('SELECT sdk_back FROM projects WHERE app_key = ?').pluck().get(appKey) as string | null) ?? '').split(',').filter(Boolean)
  const all = [...new Set([...known, ...[...libs].map((l) => l.trim().replaceAll(',', ' ')).filter(Boolean)])].sort()
  if (all.length > known.length) meta.prepare('UPDATE projects SET sdk_back = ? WHERE app_key = ?').run(all.join(','), appKey)
}

/**
 * Marks what a committed load reported (`dataStatus` 1). Items new to the project enter it outside
 * the plan (`plan` 0) with the type they were first seen with; known items keep their plan state.
 */
export function recordReported(meta: MetaDb, appKey: string, reported: Reported): void {
  const now = Date.now()
  const property = meta.prepare(
    `INSERT INTO plan_event_properties (app_key, id, data_type, data_status, create_time, update_time) VALUES (?, ?, ?, 1, ?, ?)
     ON CONFLICT (app_key, id) DO UPDATE SET data_status = 1`,
  )
  const userProperty = meta.prepare(
    `INSERT INTO plan_user_properties (app_key, id, data_type, data_status, create_time, update_time) VALUES (?, ?, ?, 1, ?, ?)
     ON CONFLICT (app_key, id) DO UPDATE SET data_status = 1`,
  )
  const event = meta.prepare(
    `INSERT INTO plan_events (app_key, id, data_status, create_time, update_time) VALUES (?, ?, 1, ?, ?)
     ON CONFLICT (app_key, id) DO UPDATE SET data_status = 1`,
  )
  const platformOf = meta.prepare('SELECT platform FROM plan_events WHERE app_key = ? AND id = ?').pluck()
  const setPlatform = meta.prepare('UPDATE plan_events SET platform = ? WHERE app_key = ? AND id = ?')
  const link = meta.prepare(
    `INSERT INTO plan_event_property_links (app_key, event_id, property_id, data_status) VALUES (?, ?, ?, 1)
     ON CONFLICT (app_key, event_id, property_id) DO UPDATE SET data_status = 1`,
  )
  meta.transaction(() => {
    dataChanged(meta, appKey)
    if (reported.libs.size > 0) addSdkBack(meta, appKey, reported.libs)
    for (const [id, type] of reported.eventProperties) property.run(appKey, id, type, now, now)
    for (const [id, type] of reported.userProperties) userProperty.run(appKey, id, type, now, now)
    for (const [id, seen] of reported.events) {
      event.run(appKey, id, now, now)
      if (seen.platforms.size > 0) {
        const known = new Set(((platformOf.get(appKey, id) as string | null) ?? '').split(',').filter(Boolean))
        for (const p of seen.platforms) known.add(p)
        setPlatform.run([...known].sort().join(','), appKey, id)
      }
      for (const p of seen.properties) link.run(appKey, id, p)
    }
  })()
}

/**
 * Brings the plan in line with the warehouse after a crash between a load's commit and its plan
 * update: a column without a plan item is data that reported.
 */
export async function reconcilePlan(ctx: DomainContext, scope: ProjectScope): Promise<void> {
  const { eventColumns, profileColumns, eventIds } = await ctx.warehouse.withConnection(scope.appKey, scope.timeZone, async (conn) => ({
    eventColumns: await propertyColumns(conn, 'event_vd'),
    profileColumns: await propertyColumns(conn, 'profile_vd'),
    eventIds: (await conn.rows('SELECT DISTINCT xwhat FROM event_vd')).map((r) => String(r[0])),
  }))
  const reported = emptyReported()
  const knownEvents = new Set(ctx.meta.prepare('SELECT id FROM plan_events WHERE app_key = ?').pluck().all(scope.appKey) as string[])
  for (const id of eventIds) if (!knownEvents.has(id)) reported.events.set(id, { properties: new Set(), platforms: new Set() })
  const knownEvent = eventPropertyTypes(ctx.meta, scope.appKey)
  const knownUser = userPropertyTypes(ctx.meta, scope.appKey)
  for (const [id, type] of eventColumns) if (!knownEvent.has(id)) reported.eventProperties.set(id, dialectOf(ctx, scope).valueTypeOf(type))
  for (const [id, type] of profileColumns) if (!knownUser.has(id)) reported.userProperties.set(id, dialectOf(ctx, scope).valueTypeOf(type))
  if (reported.events.size + reported.eventProperties.size + reported.userProperties.size > 0) recordReported(ctx.meta, scope.appKey, reported)
}

/** At start-up: plans for projects made before the plan existed, and reconciliation for all. */
export function preparePlansAtStartup(ctx: DomainContext): void {
  const projects = ctx.meta
    .prepare('SELECT app_key AS appKey, time_zone AS timeZone FROM projects WHERE status = 1 AND finish = 1')
    .all() as ProjectScope[]
  const seeded = ctx.meta.prepare('SELECT 1 FROM plan_events WHERE app_key = ? AND preset = 1 LIMIT 1').pluck()
  for (const scope of projects) {
    ctx.background.run(`prepare the plan of ${scope.appKey}`, async () => {
      if (!seeded.get(scope.appKey)) await preparePlan(ctx, scope)
      await reconcilePlan(ctx, scope)
    })
  }
}
