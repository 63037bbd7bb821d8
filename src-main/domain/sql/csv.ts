import { badParam } from '../errors'

/**
 * CSV as every export writes it (RFC 4180): comma separated, CRLF line ends, a field quoted (quotes
 * doubled) when it holds a comma, a quote or a line break; optionally a UTF-8 byte-order mark first
 * (csvUtfEncoding=0), so that spreadsheet tools read non-ASCII text as UTF-8. The SQL export writes
 * its rows in DuckDB (render.ts) to the same rules; exports whose rows are shaped in JavaScript
 * (cohort members, a user's timeline) write them here.
 */

export const EOL = '\r\n'
export const BOM = '\uFEFF'

/** One field from text. */
export function csvText(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/** One field from a value as the JSON exports give it: null empty, lists and objects as JSON text. */
export function csvValue(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'object') return csvText(JSON.stringify(value))
  return csvText(String(value))
}

/** One record, its line end included. */
export function csvLine(values: readonly unknown[]): string {
  return values.map(csvValue).join(',') + EOL
}

/**
 * A streamed CSV: the header line, then one line per row, a chunk of rows per string. The head
 * goes out with the first rows, so that a failure before them is still an ordinary JSON error.
 */
export async function* csvLines(header: readonly string[], chunks: AsyncIterable<unknown[][]>, bom: boolean): AsyncGenerator<string> {
  let head = (bom ? BOM : '') + header.map(csvText).join(',') + EOL
  for await (const rows of chunks) {
    if (rows.length === 0) continue
    let text = head
    for (const row of rows) text += csvLine(row)
    head = ''
    yield text
  }
  if (head) yield head
}

/** The formats of the cohort member and timeline exports: JSON lines (the default) or CSV. */
export type ExportFormat = 'json' | 'csv'

export function exportFormat(value: unknown): ExportFormat {
  if (value === undefined || value === null || value === 'json') return 'json'
  if (value === 'csv') return 'csv'
  throw badParam('format', 'format must be json (JSON lines, the default) or csv')
}
