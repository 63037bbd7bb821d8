import type { ColumnRef, SqlType } from '../../dialect'
import type { NamesPart } from '../../parts/names'
import { SqlParams } from '../params'

/** One DuckDB type per type name (architecture.md: wide typed columns). */
export const DUCK_TYPES: Record<SqlType, string> = {
  string: 'VARCHAR',
  number: 'DOUBLE',
  boolean: 'BOOLEAN',
  datetime: 'TIMESTAMP',
  'array<string>': 'VARCHAR[]',
  integer: 'INTEGER',
  bigint: 'BIGINT',
  date: 'DATE',
  instant: 'TIMESTAMPTZ',
}

/** Property ids as data may carry them, and the base columns' ids. */
const CHECKED_ID = /^\$?[a-z_][a-z0-9_]*$/

function ident(id: string): string {
  if (!CHECKED_ID.test(id)) throw new Error(`not a checked identifier: ${id}`)
  return `"${id}"`
}

export const names: NamesPart = {
  params: () => new SqlParams(),
  ident,
  typeName: (type) => DUCK_TYPES[type],
  cast: (expr, type) => `CAST(${expr} AS ${DUCK_TYPES[type]})`,
  nullOf: (type) => `NULL::${DUCK_TYPES[type]}`,
  record: (columns, alias) => `{${columns.map((c) => `'${c}': ${c}`).join(', ')}} AS ${alias}`,
  columnOf(ref: ColumnRef) {
    if (ref.column === null) return `NULL::${DUCK_TYPES[ref.type]}`
    return ref.base ? `${ref.row}.${ref.column}` : `${ref.row}.${ident(ref.column)}`
  },
}
