import type { AppendType, ColumnType, Warehouse } from '..'

/**
 * Rows between the local DuckDB of a load and the ClickHouse project (docs/clickhouse.md,
 * "Loading"): each column travels as the type appendRows takes, chosen by its DuckDB type. Times
 * travel as epoch milliseconds, as ClickHouse keeps them: `xwhen` (TIMESTAMPTZ, an instant) and
 * datetime properties (TIMESTAMP, the wall clock read as UTC, as the executor's appendRows writes).
 */

export interface LocalColumn {
  name: string
  /** DuckDB's type name (information_schema). */
  type: string
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`

const INSTANT = /^TIMESTAMP(TZ| WITH TIME ZONE)$/
const WALL = /^TIMESTAMP$/

/** The type a column travels as. */
export function wireType(type: string): AppendType {
  if (INSTANT.test(type) || WALL.test(type) || type === 'BIGINT') return 'bigint'
  if (type === 'INTEGER') return 'integer'
  if (type === 'BOOLEAN') return 'boolean'
  if (type === 'DOUBLE') return 'number'
  if (type === 'VARCHAR[]') return 'array<string>'
  if (type === 'VARCHAR') return 'string'
  throw new Error(`a column of type ${type} cannot be written to ClickHouse`)
}

/** The local SQL that reads a column as it travels. */
export function wireSelect(c: LocalColumn, row = ''): string {
  const col = `${row}${quote(c.name)}`
  return INSTANT.test(c.type) || WALL.test(c.type) ? `epoch_ms(${col})` : col
}

/** The local SQL that turns a travelled value (column `col` of the landing table) into the column's own type. */
function fromWire(c: LocalColumn, col: string): string {
  if (INSTANT.test(c.type)) return `TIMESTAMPTZ '1970-01-01 00:00:00+00' + to_milliseconds(${col})`
  if (WALL.test(c.type)) return `epoch_ms(${col})`
  return col
}

/** The product type of a local property column (ClickHouse's columns are added from it). */
export function columnTypeOf(type: string): ColumnType {
  if (type === 'VARCHAR[]') return 'array<string>'
  if (type === 'BOOLEAN') return 'boolean'
  if (WALL.test(type) || INSTANT.test(type)) return 'datetime'
  if (type === 'VARCHAR') return 'string'
  return 'number'
}

/** A local table's columns, in order. */
export async function localColumns(local: Warehouse, table: string): Promise<LocalColumn[]> {
  const rows = await local.rows(`SELECT column_name, data_type FROM information_schema.columns WHERE table_catalog = current_database() AND table_schema = 'main' AND table_name = $1 ORDER BY ordinal_position`, [table])
  return rows.map(([name, type]) => ({ name: String(name), type: String(type) }))
}

/** A value read from ClickHouse as the local appender takes it (ClickHouse's booleans are 1/0). */
function landed(value: unknown, type: AppendType): unknown {
  if (value === null || value === undefined) return null
  if (type === 'boolean') return Number(value) !== 0
  return value
}

/**
 * Writes rows read from ClickHouse (values in `columns`' order, as they travel) into the local
 * table `table`: through a landing table of the travelled types, then converted by one INSERT.
 */
export async function landRows(local: Warehouse, table: string, columns: LocalColumn[], rows: unknown[][], extra: { name: string; sql: string }[] = []): Promise<void> {
  if (rows.length === 0) return
  const types = columns.map((c) => wireType(c.type))
  const sqlType: Record<AppendType, string> = { bigint: 'BIGINT', integer: 'INTEGER', boolean: 'BOOLEAN', number: 'DOUBLE', 'array<string>': 'VARCHAR[]', string: 'VARCHAR', datetime: 'TIMESTAMP' }
  await local.run(`CREATE OR REPLACE TEMP TABLE _uba_landing (${types.map((t, i) => `c${i} ${sqlType[t]}`).join(', ')})`)
  await local.appendRows('_uba_landing', types, rows.map((r) => r.map((v, i) => landed(v, types[i]))), { temp: true })
  const names = [...columns.map((c) => quote(c.name)), ...extra.map((e) => quote(e.name))]
  const values = [...columns.map((c, i) => fromWire(c, `c${i}`)), ...extra.map((e) => e.sql)]
  await local.run(`INSERT INTO ${quote(table)} (${names.join(', ')}) SELECT ${values.join(', ')} FROM temp._uba_landing`)
  await local.run('DROP TABLE temp._uba_landing')
}
