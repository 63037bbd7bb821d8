import type { Warehouse } from '../../warehouse'
import { dataTypeOf } from './columns'
import type { PreparedRows } from './dimensionRules'
import { column as ident, DUCK_TYPES, type DataType } from './types'

/**
 * The warehouse side of dimension tables: one DuckDB table per dimension table, under its plain
 * name so that custom SQL can join it by that name. Every function runs inside the caller's
 * transaction; values are appended, never written into SQL text.
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
export async function tableKind(conn: Warehouse, name: string): Promise<'absent' | 'dimension' | 'other'> {
  const rows = await conn.rows(
    `SELECT comment FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = $1
     UNION ALL
     SELECT NULL FROM duckdb_views() WHERE database_name = current_database() AND schema_name = 'main' AND view_name = $1`,
    [name],
  )
  if (rows.length === 0) return 'absent'
  return rows[0][0] === DIMENSION_MARKER ? 'dimension' : 'other'
}

/** The table's columns in order, with their data types; null when the table does not exist. */
export async function warehouseColumns(conn: Warehouse, name: string): Promise<WarehouseColumn[] | null> {
  const rows = await conn.rows(
    `SELECT column_name, data_type FROM information_schema.columns
     WHERE table_catalog = current_database() AND table_schema = 'main' AND table_name = $1 ORDER BY ordinal_position`,
    [name],
  )
  if (rows.length === 0) return null
  return rows.map((r) => ({ id: String(r[0]), dataType: dataTypeOf(String(r[1])) }))
}

export async function rowCount(conn: Warehouse, name: string): Promise<number> {
  const rows = await conn.rows(`SELECT count(*) FROM ${ident(name)}`)
  return Number(rows[0][0])
}

/** Creates the table (relation fields NOT NULL), marks it, and loads the rows. */
export async function createTable(conn: Warehouse, name: string, columns: Map<string, DataType>, relations: string[], rows: PreparedRows): Promise<void> {
  const defs = [...columns].map(([id, type]) => `${ident(id)} ${DUCK_TYPES[type]}${relations.includes(id) ? ' NOT NULL' : ''}`)
  await conn.run(`CREATE TABLE ${ident(name)} (${defs.join(', ')})`)
  await conn.run(`COMMENT ON TABLE ${ident(name)} IS '${DIMENSION_MARKER}'`)
  await conn.appendRows(name, [...columns.values()], rows.rows)
}

export async function addTableColumns(conn: Warehouse, name: string, columns: WarehouseColumn[]): Promise<void> {
  for (const c of columns) await conn.run(`ALTER TABLE ${ident(name)} ADD COLUMN ${ident(c.id)} ${DUCK_TYPES[c.dataType]}`)
}

/**
 * The staging table and its alias contain `$`, which no dimension table name can, so neither can
 * shadow the target table (the temp catalog comes first in DuckDB's search path).
 */
const STAGED = '"$staged_rows"'
const S = '"$s"'

/**
 * Upserts by the relation fields: rows are staged in a temporary table, rows whose key exists
 * take the values the request gave (a column the row left out keeps its value, an explicit null
 * clears it), and the other rows are inserted.
 */
export async function upsertRows(conn: Warehouse, name: string, types: Map<string, DataType>, relations: string[], rows: PreparedRows): Promise<void> {
  const table = ident(name)
  const staged = rows.columns.map((id, i) => ({ id, col: `${S}.c${i}`, given: `${S}.g${i}`, type: types.get(id) as DataType }))
  const defs = staged.flatMap((s, i) => [`c${i} ${DUCK_TYPES[s.type]}`, `g${i} BOOLEAN`])
  await conn.run(`CREATE TEMP TABLE ${STAGED} (${defs.join(', ')})`)
  // each value's column is followed by one telling whether the row gave it
  const flagged = rows.rows.map((row) => staged.flatMap((_, i) => [row[i], row[i] !== undefined]))
  await conn.appendRows('$staged_rows', staged.flatMap((s) => [s.type, 'boolean' as const]), flagged, { temp: true })

  const match = staged.filter((s) => relations.includes(s.id)).map((s) => `${table}.${ident(s.id)} = ${s.col}`).join(' AND ')
  const sets = staged
    .filter((s) => !relations.includes(s.id))
    .map((s) => `${ident(s.id)} = CASE WHEN ${s.given} THEN ${s.col} ELSE ${table}.${ident(s.id)} END`)
  if (sets.length > 0) await conn.run(`UPDATE ${table} SET ${sets.join(', ')} FROM temp.${STAGED} AS ${S} WHERE ${match}`)
  await conn.run(
    `INSERT INTO ${table} (${staged.map((s) => ident(s.id)).join(', ')})
     SELECT ${staged.map((s) => s.col).join(', ')} FROM temp.${STAGED} AS ${S}
     WHERE NOT EXISTS (SELECT 1 FROM ${table} WHERE ${match})`,
  )
  await conn.run(`DROP TABLE temp.${STAGED}`)
}
