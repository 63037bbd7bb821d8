import type { AppendType, ColumnType } from '..'
import { literal, LONE_SURROGATE, type Literal } from './literal'
import { toTsv } from './values'

// How the executor writes: the property columns' types, the statements it recognises, the values it appends.

/** ClickHouse types of the product's property types (docs/clickhouse.md: why each). */
export const COLUMN_TYPES: Record<ColumnType, string> = {
  string: 'Nullable(String)',
  number: 'Nullable(Float64)',
  boolean: 'Nullable(UInt8)',
  datetime: 'Nullable(Int64)',
  'array<string>': 'Array(Nullable(String))',
}

/** Statements whose target the executor must know: an INSERT to stage, a table created in a transaction. */
export const INSERT = /^(\s*INSERT\s+INTO\s+(?:TABLE\s+)?)(`(?:[^`\\]|\\.)*`|"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*)(?!\s*\.)/i
export const CREATE_TABLE = /^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(`(?:[^`\\]|\\.)*`|"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*)(?!\s*\.)/i
export const CREATE_TEMPORARY = /^\s*CREATE\s+TEMPORARY\s+TABLE/i
export const IF_NOT_EXISTS = /IF\s+NOT\s+EXISTS/i

export function unquote(name: string): string {
  return /^[`"]/.test(name) ? name.slice(1, -1).replace(/\\(.)/g, '$1') : name
}

/** A `datetime` value (µs since the epoch) as epoch milliseconds, rounded down. */
function millis(us: unknown): bigint {
  const v = BigInt(us as bigint | number)
  return v >= 0n ? v / 1000n : -((-v + 999n) / 1000n)
}

const NEEDS_ESCAPE = /[\\\t\n\r\0\b\f']/
const ESCAPES = /[\\\t\n\r\0\b\f']/g
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0', '\b': '\\b', '\f': '\\f', "'": "\\'" }
const SURROGATE = /[\ud800-\udfff]/

/** A text field: escaped only when it must be; a lone surrogate refused, as `toTsv` does. */
function textField(text: string): string {
  if (SURROGATE.test(text) && LONE_SURROGATE.test(text)) throw new RangeError('text contains a lone UTF-16 surrogate and cannot be sent as UTF-8')
  return NEEDS_ESCAPE.test(text) ? text.replace(ESCAPES, (c) => ESCAPED[c]) : text
}

/** One value of an appended row as a TabSeparated field, by its type: the same text `toTsv(appendValue(…))` gives, written ~5x faster. */
function field(value: unknown, type: AppendType): string {
  if (type === 'array<string>') return value == null ? '[]' : literal(value as Literal)
  if (value === undefined || value === null) return '\\N'
  switch (type) {
    case 'string':
      return textField(value as string)
    case 'bigint':
    case 'integer':
      if (typeof value === 'bigint' || Number.isInteger(value)) return String(value)
      break
    case 'datetime':
      return String(millis(value))
    case 'boolean':
      return value ? '1' : '0'
  }
  return toTsv(value as Literal)
}

/** A row as one TabSeparated line, its values in `types`' order. */
export function tsvLine(row: readonly unknown[], types: readonly AppendType[]): string {
  if (row.length !== types.length) throw new RangeError(`a row has ${row.length} values for ${types.length} columns`)
  let line = field(row[0], types[0])
  for (let i = 1; i < types.length; i++) line += '\t' + field(row[i], types[i])
  return line + '\n'
}
