import { addColumns, propertyColumns, type WarehouseTable } from '../../src-main/domain/schema/columns'
import { emptyReported, recordReported } from '../../src-main/domain/schema/plan'
import type { DataType } from '../../src-main/domain/schema/types'
import type { TestServer } from '../helpers/server'

/** What a load would report: events with their properties (and platforms), and user properties. */
export interface FakeLoad {
  events?: Record<string, { properties?: Record<string, DataType>; platforms?: string[] }>
  userProperties?: Record<string, DataType>
}

/** Marks data as reported the way an import does: columns first, then `recordReported`. */
export async function report(s: TestServer, load: FakeLoad): Promise<void> {
  const reported = emptyReported()
  for (const [id, e] of Object.entries(load.events ?? {})) {
    reported.events.set(id, { properties: new Set(Object.keys(e.properties ?? {})), platforms: new Set(e.platforms ?? []) })
    for (const [p, type] of Object.entries(e.properties ?? {})) reported.eventProperties.set(p, type)
  }
  for (const [p, type] of Object.entries(load.userProperties ?? {})) reported.userProperties.set(p, type)
  const { appKey } = s.project
  await s.app.ctx.warehouse.withConnection(appKey, 'UTC', async (conn) => {
    await addColumns(conn, 'event_vd', [...reported.eventProperties].map(([id, dataType]) => ({ id, dataType })))
    await addColumns(conn, 'profile_vd', [...reported.userProperties].map(([id, dataType]) => ({ id, dataType })))
  })
  recordReported(s.app.ctx.meta, appKey, reported)
}

/** The DuckDB type of each property column of a table. */
export async function columnsOf(s: TestServer, table: WarehouseTable): Promise<Record<string, string>> {
  const columns = await s.app.ctx.warehouse.withConnection(s.project.appKey, 'UTC', (conn) => propertyColumns(conn, table))
  return Object.fromEntries(columns)
}

/** Everything a plan write could touch, to prove that a refused request changed nothing. */
export async function planSnapshot(s: TestServer): Promise<unknown> {
  const meta = s.app.ctx.meta
  const appKey = s.project.appKey
  const rows = (table: string, order: string) => meta.prepare(`SELECT * FROM ${table} WHERE app_key = ? ORDER BY ${order}`).all(appKey)
  return {
    events: rows('plan_events', 'id'),
    eventProperties: rows('plan_event_properties', 'id'),
    links: rows('plan_event_property_links', 'event_id, property_id'),
    userProperties: rows('plan_user_properties', 'id'),
    operations: meta.prepare('SELECT COUNT(*) FROM operation_log').pluck().get(),
    eventColumns: await columnsOf(s, 'event_vd'),
    profileColumns: await columnsOf(s, 'profile_vd'),
  }
}

export function row(s: TestServer, table: 'plan_events' | 'plan_event_properties' | 'plan_user_properties', id: string): any {
  return s.app.ctx.meta.prepare(`SELECT * FROM ${table} WHERE app_key = ? AND id = ?`).get(s.project.appKey, id)
}

export function link(s: TestServer, eventId: string, propertyId: string): any {
  return s.app.ctx.meta
    .prepare('SELECT plan, data_status FROM plan_event_property_links WHERE app_key = ? AND event_id = ? AND property_id = ?')
    .get(s.project.appKey, eventId, propertyId)
}

export function lastOperation(s: TestServer): any {
  return s.app.ctx.meta.prepare('SELECT operator_id, app_key, action, target FROM operation_log ORDER BY id DESC LIMIT 1').get()
}
