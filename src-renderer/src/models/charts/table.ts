/** The table beneath a chart: what it shows, and the raw values a CSV export and the tests read. */

export interface TableColumn {
  label: string
  /** The header an export writes when the screen's is shortened (a full date for "Oct 28"). */
  full?: string
  numeric?: boolean
}

export interface TableCell {
  /** The raw value (a count, a rate 0..1, seconds, a label); null for none. */
  value: string | number | null
  /** How it reads on screen, when not the plain number. */
  text?: string
  /** A second, fainter line (a count under a rate). */
  sub?: string
  /** 0..1 tints the cell (retention). */
  heat?: number
  /** Said on hover: what the cell counts, where that is not plain. */
  title?: string
}

export interface TableModel {
  columns: TableColumn[]
  rows: TableCell[][]
  /** Said under the table (rows left out of the chart, truncated lists). */
  note?: string
}

export function cell(value: string | number | null, text?: string, sub?: string): TableCell {
  return text === undefined && sub === undefined ? { value } : { value, text, sub }
}

/** The header row an export writes: full dates, not the screen's short ones. */
export function headerOf(column: TableColumn): string {
  return column.full ?? column.label
}

/**
 * RFC 4180 CSV of the table, raw values (rates as fractions), with a header row. It starts with a
 * UTF-8 byte-order mark: without one, Excel reads non-ASCII labels (city names, event names) as
 * Windows-1252.
 */
export function toCsv(table: TableModel): string {
  const quote = (v: string | number | null): string => {
    if (v === null) return ''
    const s = String(v)
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
  }
  const lines = [table.columns.map((c) => quote(headerOf(c))).join(',')]
  for (const row of table.rows) lines.push(row.map((c) => quote(c.value)).join(','))
  return `\uFEFF${lines.join('\r\n')}\r\n`
}
