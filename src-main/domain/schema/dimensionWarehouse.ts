import type { Warehouse } from '../../warehouse'
import type { Dialect } from '../../warehouse/dialect'
import type { PreparedRows } from './dimensionRules'
import type { DataType } from './types'

/**
 * The warehouse side of dimension tables: one warehouse table per dimension table, under its plain
 * name so that custom SQL can join it by that name, its SQL text written by the dialect (the
 * tables part). Every function runs inside the caller's transaction; values are appended, never
 * written into SQL text.
 */

/**
 * The comment every dimension table carries in the warehouse. It tells a table this feature made
 * apart from any other, so that a table left behind by a create whose metadata write failed can be
 * recognised and replaced.
 */
export const DIMENSION_MARKER = 'uba-desk dimension table'

export interface WarehouseColumn {
  id: string
  dataType: DataType
}

/** Runs `work` in one DuckDB transaction: everything it wrote is kept, or none of it. */
export function inTransaction<T>(conn: Warehouse, work: () => Promise<T>): Promise<T> {
  return conn.transaction(work)
}

/** Whether the name is free, a dimension table (by its marker), or some other table or view. */
export async function tableKind(dialect: Dialect, conn: Warehouse, name: string): Promise<'absent' | 'dimension' | 'other'> {
  const { sql, values } = dialect.tableOrView(name)
  const rows = await conn.rows(sql, values)
  if (rows.length === 0) return 'absent'
  return rows[0][0] === DIMENSION_MARKER ? 'dimension' : 'other'
}

/** The table's columns in order, with their data types; null when the table does not exist. */
export async function warehouseColumns(dialect: Dialect, conn: Warehouse, name: string): Promise<WarehouseColumn[] | null> {
  const { sql, values } = dialect.tableColumns(name)
  const rows = await conn.rows(sql, values)
  if (rows.length === 0) return null
  return rows.map((r) => ({ id: String(r[0]), dataType: dialect.valueTypeOf(String(r[1])) }))
}

export async function rowCount(dialect: Dialect, conn: Warehouse, name: string): Promise<number> {
  const rows = await conn.rows(dialect.rowCount(name))
  return Number(rows[0][0])
}

/** Creates the table (relation fields NOT NULL), marks it, and loads the rows. */
export async function createTable(dialect: Dialect, conn: Warehouse, name: string, columns: Map<string, DataType>, relations: string[], rows: PreparedRows): Promise<void> {
  await conn.run(dialect.createTable(name, [...columns].map(([id, type]) => ({ id, type, notNull: relations.includes(id) }))))
  await conn.run(dialect.commentOn(name, DIMENSION_MARKER))
  await conn.appendRows(name, [...columns.values()], rows.rows)
}

export async function addTableColumns(dialect: Dialect, conn: Warehouse, name: string, columns: WarehouseColumn[]): Promise<void> {
  for (const c of columns) await conn.run(dialect.addColumn(name, { id: c.id, type: c.dataType }))
}

/**
 * Upserts by the relation fields: rows are staged in a temporary table, rows whose key exists
 * take the values the request gave (a column the row left out keeps its value, an explicit null
 * clears it), and the other rows are inserted. `table`: every column of the table, when known.
 */
export async function upsertRows(dialect: Dialect, conn: Warehouse, name: string, types: Map<string, DataType>, relations: string[], rows: PreparedRows, table?: WarehouseColumn[]): Promise<void> {
  const columns = rows.columns.map((id) => ({ id, type: types.get(id) as DataType }))
  const upsert = dialect.upsert(name, columns, relations, table?.map((c) => ({ id: c.id, type: c.dataType })))
  await conn.run(upsert.stage)
  // each value's column is followed by one telling whether the row gave it
  const flagged = rows.rows.map((row) => columns.flatMap((_, i) => [row[i], row[i] !== undefined]))
  await conn.appendRows(upsert.staging, columns.flatMap((c) => [c.type, 'boolean' as const]), flagged, { temp: true })
  for (const sql of upsert.apply) await conn.run(sql)
}
