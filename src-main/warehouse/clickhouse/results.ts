import type { Row } from '..'
import { policyRow, policyValue, type ValuePolicy } from '../values'
import type { Column } from './client'
import type { Value } from './values'

/**
 * ClickHouse's values as the `exact` policy promises them, the same JavaScript values DuckDB's
 * node API gives for the same data: the client already turns Int64/UInt64 into bigint, other
 * numbers into number (NaN and infinities kept: results are read as TabSeparated), DateTime into
 * Date, Nullable into null and arrays into arrays. Left here: a `Date` column (the client keeps
 * its `yyyy-MM-dd` text) becomes a Date at UTC midnight, as DuckDB's DATE; a Decimal (text in
 * TabSeparated) a number, as DuckDB's DECIMAL.
 */

function unwrap(type: string, wrapper: string): string | null {
  return type.startsWith(`${wrapper}(`) && type.endsWith(')') ? type.slice(wrapper.length + 1, -1) : null
}

/** Whether values of `type` need a conversion beyond the client's (so plain columns skip the walk). */
export function needsConversion(type: string): boolean {
  return /\bDate\b(?!Time)|Decimal/.test(type)
}

/** One value of a column of `type`, exact. */
export function exactValue(value: Value, type: string): unknown {
  if (value === null) return null
  const inner = unwrap(type, 'Nullable') ?? unwrap(type, 'LowCardinality')
  if (inner) return exactValue(value, inner)
  const element = unwrap(type, 'Array')
  if (element) return (value as Value[]).map((v) => exactValue(v, element))
  if (type === 'Date') return typeof value === 'string' ? dateOf(value) : value
  if (type.startsWith('Decimal')) return Number(value)
  return value
}

/** 18.16 prints day 0 as `0000-00-00`. */
function dateOf(text: string): Date {
  return text.startsWith('0000') ? new Date(0) : new Date(`${text}T00:00:00Z`)
}

/** Converts the rows of a result in place to exact values, column by column. */
export function exactRows(columns: Column[], rows: Value[][]): unknown[][] {
  columns.forEach((c, i) => {
    if (!needsConversion(c.type)) return
    for (const row of rows) (row as unknown[])[i] = exactValue(row[i], c.type)
  })
  return rows
}

/** Rows as arrays under a policy. */
export function policyRows(rows: unknown[][], policy: ValuePolicy): unknown[][] {
  return policy === 'exact' ? rows : rows.map((row) => row.map((v) => policyValue(v, policy)))
}

/** Rows as objects by column name under a policy (a later column of the same name wins, as in DuckDB's objects). */
export function rowObjects(columns: Column[], rows: unknown[][], policy: ValuePolicy): Row[] {
  const names = columns.map((c) => c.name)
  return rows.map((row) => {
    const out: Row = {}
    names.forEach((name, i) => (out[name] = row[i]))
    return policyRow(out, policy)
  })
}
