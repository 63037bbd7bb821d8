import type { SqlRow } from '../../api/sql'

/** How result values read in the grid: as the JSON answer has them, NULL spelled out. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return 'NULL'
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

/** Rows looked at to size columns: enough to be representative, few enough to stay instant. */
const SAMPLE = 200
const CHAR_PX = 7.6
const PADDING_PX = 24
const MIN_PX = 72
const MAX_PX = 360

/** A width per column from its name and the longest of the first values. */
export function columnWidths(columns: string[], rows: SqlRow[]): number[] {
  const sample = rows.slice(0, SAMPLE)
  return columns.map((column) => {
    let longest = column.length
    for (const row of sample) longest = Math.max(longest, cellText(row[column]).length)
    return Math.round(Math.min(MAX_PX, Math.max(MIN_PX, longest * CHAR_PX + PADDING_PX)))
  })
}

/** A column whose values are all numbers (or null) is right-aligned. */
export function isNumeric(rows: SqlRow[], column: string): boolean {
  let any = false
  for (const row of rows.slice(0, SAMPLE)) {
    const value = row[column]
    if (value === null || value === undefined) continue
    if (typeof value !== 'number') return false
    any = true
  }
  return any
}
