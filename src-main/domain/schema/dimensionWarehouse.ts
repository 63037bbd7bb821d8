import {
  BOOLEAN,
  DOUBLE,
  DuckDBDataChunk,
  DuckDBTimestampValue,
  LIST,
  listValue,
  TIMESTAMP,
  VARCHAR,
  type DuckDBAppender,
  type DuckDBConnection,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api'
import { dataTypeOf } from './columns'
import type { DimensionValue, PreparedRows } from './dimensionRules'
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
export async function inTransaction<T>(conn: DuckDBConnection, work: () => Promise<T>): Promise<T> {
  await conn.run('BEGIN TRANSACTION')
  try {
    const out = await work()
    await conn.run('COMMIT')
    return out
  } catch (err) {
    try {
      await conn.run('ROLLBACK')
    } catch {
      // a failed COMMIT has already ended the transaction: nothing is left to roll back
    }
    throw err
  }
}

/** Whether the name is free, a dimension table (by its marker), or some other table or view. */
export async function tableKind(conn: DuckDBConnection, name: string): Promise<'absent' | 'dimension' | 'other'> {
  const reader = await conn.runAndReadAll(
    `SELECT comment FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = $1
     UNION ALL
     SELECT NULL FROM duckdb_views() WHERE database_name = current_database() AND schema_name = 'main' AND view_name = $1`,
    [name],
  )
  const rows = reader.getRows()
  if (rows.length === 0) return 'absent'
  return rows[0][0] === DIMENSION_MARKER ? 'dimension' : 'other'
}

/** The table's columns in order, with their data types; null when the table does not exist. */
export async function warehouseColumns(conn: DuckDBConnection, name: string): Promise<WarehouseColumn[] | null> {
  const reader = await conn.runAndReadAll(
    `SELECT column_name, data_type FROM information_schema.columns
     WHERE table_catalog = current_database() AND table_schema = 'main' AND table_name = $1 ORDER BY ordinal_position`,
    [name],
  )
  const rows = reader.getRows()
  if (rows.length === 0) return null
  return rows.map((r) => ({ id: String(r[0]), dataType: dataTypeOf(String(r[1])) }))
}

export async function rowCount(conn: DuckDBConnection, name: string): Promise<number> {
  const reader = await conn.runAndReadAll(`SELECT count(*) FROM ${ident(name)}`)
  return Number(reader.getRows()[0][0])
}

/** Creates the table (relation fields NOT NULL), marks it, and loads the rows. */
export async function createTable(conn: DuckDBConnection, name: string, columns: Map<string, DataType>, relations: string[], rows: PreparedRows): Promise<void> {
  const defs = [...columns].map(([id, type]) => `${ident(id)} ${DUCK_TYPES[type]}${relations.includes(id) ? ' NOT NULL' : ''}`)
  await conn.run(`CREATE TABLE ${ident(name)} (${defs.join(', ')})`)
  await conn.run(`COMMENT ON TABLE ${ident(name)} IS '${DIMENSION_MARKER}'`)
  appendRows(await conn.createAppender(name), rows, [...columns.values()], false)
}

export async function addTableColumns(conn: DuckDBConnection, name: string, columns: WarehouseColumn[]): Promise<void> {
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
export async function upsertRows(conn: DuckDBConnection, name: string, types: Map<string, DataType>, relations: string[], rows: PreparedRows): Promise<void> {
  const table = ident(name)
  const staged = rows.columns.map((id, i) => ({ id, col: `${S}.c${i}`, given: `${S}.g${i}`, type: types.get(id) as DataType }))
  const defs = staged.flatMap((s, i) => [`c${i} ${DUCK_TYPES[s.type]}`, `g${i} BOOLEAN`])
  await conn.run(`CREATE TEMP TABLE ${STAGED} (${defs.join(', ')})`)
  appendRows(await conn.createAppender('$staged_rows', 'main', 'temp'), rows, staged.map((s) => s.type), true)

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

const CHUNK_TYPES: Record<DataType, DuckDBType> = {
  string: VARCHAR,
  number: DOUBLE,
  boolean: BOOLEAN,
  datetime: TIMESTAMP,
  'array<string>': LIST(VARCHAR),
}

/** A data chunk holds at most this many rows (DuckDB's vector size). */
const CHUNK_ROWS = 2048

function duckValue(value: DimensionValue | undefined, type: DataType): DuckDBValue {
  if (value === undefined || value === null) return null
  if (type === 'datetime') return new DuckDBTimestampValue(value as bigint)
  if (type === 'array<string>') return listValue(value as string[])
  return value as DuckDBValue
}

/**
 * Appends the rows a data chunk at a time (several times faster than value by value); with
 * `flags`, each value's column is followed by a column telling whether the row gave it.
 */
function appendRows(appender: DuckDBAppender, prepared: PreparedRows, types: DataType[], flags: boolean): void {
  const chunkTypes = types.flatMap((t) => (flags ? [CHUNK_TYPES[t], BOOLEAN] : [CHUNK_TYPES[t]]))
  let appended = false
  try {
    for (let start = 0; start < prepared.rows.length; start += CHUNK_ROWS) {
      const rows = prepared.rows.slice(start, start + CHUNK_ROWS)
      const chunk = DuckDBDataChunk.create(chunkTypes, rows.length)
      types.forEach((type, i) => {
        const at = flags ? 2 * i : i
        chunk.setColumnValues(at, rows.map((row) => duckValue(row[i], type)))
        if (flags) chunk.setColumnValues(at + 1, rows.map((row) => row[i] !== undefined))
      })
      appender.appendDataChunk(chunk)
    }
    appender.flushSync()
    appended = true
  } finally {
    try {
      appender.closeSync()
    } catch (err) {
      // after a failed append the first error is the one worth reporting
      if (appended) throw err
    }
  }
}
