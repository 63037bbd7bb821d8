import type { Warehouse } from '../../warehouse'
import { EVENT_BASE_COLUMNS, PROFILE_BASE_COLUMNS, PROPERTY_ID, type DataType } from './types'

export type WarehouseTable = 'event_vd' | 'profile_vd'

/**
 * Adds one typed column per property that the table does not have yet (inside the caller's
 * transaction). Columns appear when a property first gets data or is declared in the plan: a
 * column of nothing but NULLs still costs time on every insert.
 */
export async function addColumns(conn: Warehouse, table: WarehouseTable, columns: { id: string; dataType: DataType }[]): Promise<void> {
  // only checked property ids become column names
  for (const c of columns) if (!PROPERTY_ID.test(c.id)) throw new Error(`not a checked identifier: ${c.id}`)
  await conn.addColumns(table, columns)
}

/**
 * The property columns a table has, with their engine types (base columns left out; dialect.valueTypeOf
 * reads them), from the engine's catalog as the warehouse's dialect asks it.
 */
export async function propertyColumns(conn: Warehouse, table: WarehouseTable): Promise<Map<string, string>> {
  const { sql, values } = conn.dialect.tableColumns(table)
  const base: readonly string[] = table === 'event_vd' ? EVENT_BASE_COLUMNS : PROFILE_BASE_COLUMNS
  const out = new Map<string, string>()
  for (const [name, type] of await conn.rows(sql, values)) {
    if (!base.includes(String(name))) out.set(String(name), String(type))
  }
  return out
}

