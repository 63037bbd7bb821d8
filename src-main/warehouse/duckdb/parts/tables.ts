import type { ValueType } from '../../dialect'
import type { TablesPart } from '../../parts/tables'
import { DUCK_TYPES, names } from './names'

const { ident } = names

/**
 * The staging table and its alias contain `$`, which no checked table name can, so neither can
 * shadow the target table (the temp catalog comes first in DuckDB's search path).
 */
const STAGING = '$staged_rows'
const STAGED = `"${STAGING}"`
const S = '"$s"'

/** The property type a DuckDB column type stands for. */
function valueTypeOf(duckType: string): ValueType {
  const t = duckType.toUpperCase()
  if (t.endsWith('[]')) return 'array<string>'
  if (t === 'BOOLEAN') return 'boolean'
  if (t.startsWith('TIMESTAMP') || t === 'DATE') return 'datetime'
  if (t === 'VARCHAR') return 'string'
  return 'number'
}

export const tables: TablesPart = {
  tableOrView: (name) => ({
    sql: `SELECT comment FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = $1
     UNION ALL
     SELECT NULL FROM duckdb_views() WHERE database_name = current_database() AND schema_name = 'main' AND view_name = $1`,
    values: [name],
  }),
  tableColumns: (name) => ({
    sql: `SELECT column_name, data_type FROM information_schema.columns
     WHERE table_catalog = current_database() AND table_schema = 'main' AND table_name = $1 ORDER BY ordinal_position`,
    values: [name],
  }),
  valueTypeOf,
  rowCount: (name) => `SELECT count(*) FROM ${ident(name)}`,
  createTable: (name, columns) => `CREATE TABLE ${ident(name)} (${columns.map((c) => `${ident(c.id)} ${DUCK_TYPES[c.type]}${c.notNull ? ' NOT NULL' : ''}`).join(', ')})`,
  commentOn: (name, comment) => `COMMENT ON TABLE ${ident(name)} IS '${comment.replace(/'/g, "''")}'`,
  addColumn: (name, c) => `ALTER TABLE ${ident(name)} ADD COLUMN ${ident(c.id)} ${DUCK_TYPES[c.type]}`,
  dropTable: (name, ifExists) => `DROP TABLE ${ifExists ? 'IF EXISTS ' : ''}${ident(name)}`,
  clearTable: (name) => `DELETE FROM ${ident(name)}`,
  upsert(name, columns, keys) {
    const table = ident(name)
    const staged = columns.map((c, i) => ({ id: c.id, col: `${S}.c${i}`, given: `${S}.g${i}`, type: c.type }))
    const defs = staged.flatMap((s, i) => [`c${i} ${DUCK_TYPES[s.type]}`, `g${i} BOOLEAN`])
    const match = staged.filter((s) => keys.includes(s.id)).map((s) => `${table}.${ident(s.id)} = ${s.col}`).join(' AND ')
    const sets = staged
      .filter((s) => !keys.includes(s.id))
      .map((s) => `${ident(s.id)} = CASE WHEN ${s.given} THEN ${s.col} ELSE ${table}.${ident(s.id)} END`)
    const update = sets.length > 0 ? [`UPDATE ${table} SET ${sets.join(', ')} FROM temp.${STAGED} AS ${S} WHERE ${match}`] : []
    const insert = `INSERT INTO ${table} (${staged.map((s) => ident(s.id)).join(', ')})
     SELECT ${staged.map((s) => s.col).join(', ')} FROM temp.${STAGED} AS ${S}
     WHERE NOT EXISTS (SELECT 1 FROM ${table} WHERE ${match})`
    return { stage: `CREATE TEMP TABLE ${STAGED} (${defs.join(', ')})`, staging: STAGING, apply: [...update, insert, `DROP TABLE temp.${STAGED}`] }
  },
  addPropertyColumn: (table, c) => `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${ident(c.id)} ${DUCK_TYPES[c.type]}`,
  retypePropertyColumn: (table, c) => `ALTER TABLE ${table} ALTER COLUMN ${ident(c.id)} TYPE ${DUCK_TYPES[c.type]}`,
}
