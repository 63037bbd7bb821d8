import type { ColumnRef, SqlType } from '../../dialect'
import type { NamesPart } from '../../parts/names'
import { LiteralParams } from '../params'

/**
 * One ClickHouse type per type name, on 18.16 and current versions. A `datetime` is the local
 * wall-clock time as a DateTime labelled UTC (naive, as DuckDB's TIMESTAMP): seconds only, since
 * 18.16 has no DateTime64. An `instant` is epoch milliseconds (event_vd.xwhen). A boolean is UInt8
 * (18.16 has no Bool). Lists are never Nullable (18.16 refuses Nullable(Array)): a missing list is [].
 */
export const CH_TYPES: Record<SqlType, string> = {
  string: 'String',
  number: 'Float64',
  boolean: 'UInt8',
  datetime: "DateTime('UTC')",
  'array<string>': 'Array(String)',
  integer: 'Int32',
  bigint: 'Int64',
  date: 'Date',
  instant: 'Int64',
}

/** The conversion functions: unlike CAST, they let a NULL through (CAST to a non-Nullable type fails on one). */
const CONVERT: Record<SqlType, (x: string) => string> = {
  string: (x) => `toString(${x})`,
  number: (x) => `toFloat64(${x})`,
  boolean: (x) => `toUInt8(${x})`,
  datetime: (x) => `toDateTime(${x}, 'UTC')`,
  'array<string>': (x) => `CAST(${x} AS Array(String))`,
  integer: (x) => `toInt32(${x})`,
  bigint: (x) => `toInt64(${x})`,
  date: (x) => `toDate(${x})`,
  instant: (x) => `toInt64(${x})`,
}

/** The type a column of `type` has when it may hold NULL. */
export function nullableType(type: SqlType): string {
  return type === 'array<string>' ? CH_TYPES[type] : `Nullable(${CH_TYPES[type]})`
}

/** NULL of a type; a list has no NULL on 18.16, so an empty list stands for it. */
export function nullOf(type: SqlType): string {
  return type === 'array<string>' ? 'emptyArrayString()' : `CAST(NULL AS ${nullableType(type)})`
}

/** Property ids as data may carry them, and the base columns' ids. */
const CHECKED_ID = /^\$?[a-z_][a-z0-9_]*$/

export function ident(id: string): string {
  if (!CHECKED_ID.test(id)) throw new Error(`not a checked identifier: ${id}`)
  return `\`${id}\``
}

export const names: NamesPart = {
  params: () => new LiteralParams(),
  ident,
  typeName: (type) => CH_TYPES[type],
  cast: (expr, type) => (expr.trim().toUpperCase() === 'NULL' ? nullOf(type) : CONVERT[type](expr)),
  nullOf,
  // a column named `e.xwho` is what `e.xwho` reads when no table is called e (18.16 and current)
  record: (columns, alias) => columns.map((c) => `${c} AS \`${alias}.${c}\``).join(', '),
  columnOf(ref: ColumnRef) {
    if (ref.column === null) return nullOf(ref.type)
    if (ref.base) return `${ref.row}.${ref.column}`
    // a datetime property is stored as epoch ms of its local time (the executor's Int64): read as
    // the local timestamp the dialect compares, formats and buckets (whole seconds)
    return ref.type === 'datetime' ? `toDateTime(intDiv(${ref.row}.${ident(ref.column)}, 1000), 'UTC')` : `${ref.row}.${ident(ref.column)}`
  },
}
