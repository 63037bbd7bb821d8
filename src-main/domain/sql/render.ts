import type { Dialect } from '../../warehouse/dialect'
import type { CustomSqlColumn } from '../../warehouse/parts/customSql'
import { csvText } from './csv'

/**
 * Custom SQL results are written as text by the engine itself (the dialect's resultText part: one
 * CSV line or one JSON object per row, in the formats every export uses); here are the names the
 * text carries: the JSON keys and the CSV header.
 */

export type SqlFormat = 'csv' | 'json'

/** A result column: its name, and the engine's type, which only the dialect reads. */
export type OutColumn = CustomSqlColumn

/** JSON keys: the column names, a repeated name made unique with _1, _2, ... */
export function jsonKeys(columns: OutColumn[]): string[] {
  const used = new Set<string>()
  return columns.map(({ name }) => {
    let key = name
    for (let k = 1; used.has(key); k++) key = `${name}_${k}`
    used.add(key)
    return key
  })
}

/** The CSV header line's fields. */
export function csvHeader(columns: OutColumn[]): string {
  return columns.map(({ name }) => csvText(name)).join(',')
}

/**
 * The query that yields one text `line` per row of `inner` (a checked SELECT), with the bound
 * values it needs (the JSON keys). Row order is the inner query's.
 */
export function renderQuery(dialect: Dialect, inner: string, columns: OutColumn[], format: SqlFormat): { sql: string; values: string[] } {
  return dialect.resultLines(inner, columns, format, format === 'json' ? jsonKeys(columns) : [])
}
