import type { AppendType, ColumnType } from '..'
import type { Literal } from './literal'

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

export function unquote(name: string): string {
  return /^[`"]/.test(name) ? name.slice(1, -1).replace(/\\(.)/g, '$1') : name
}

/** A `datetime` value (µs since the epoch) as epoch milliseconds, rounded down. */
function millis(us: unknown): bigint {
  const v = BigInt(us as bigint | number)
  return v >= 0n ? v / 1000n : -((-v + 999n) / 1000n)
}

/** One value as appendRows writes it: a datetime (µs) as epoch ms, a missing list as [] (no Nullable(Array)). */
export function appendValue(value: unknown, type: AppendType): Literal {
  if (type === 'array<string>') return (value ?? []) as Literal
  if (value === undefined || value === null) return null
  if (type === 'datetime') return millis(value)
  return value as Literal
}
