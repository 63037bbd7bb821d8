import type { DimensionValue } from '../../api/dimensions'
import type { DataType } from '../../api/schema'

/**
 * Delimited text (CSV, TSV) read in the browser for dimension tables, whose API takes JSON rows.
 * RFC 4180 quoting; the work yields to the page every so often, so a large file never freezes it.
 */

const YIELD_EVERY = 1 << 20

export function delimiterOf(text: string): string {
  const line = text.slice(0, text.search(/\r?\n|$/))
  const counts = [',', '\t', ';'].map((d) => [d, line.split(d).length] as const)
  return counts.reduce((best, c) => (c[1] > best[1] ? c : best))[0]
}

export async function parseDelimited(text: string, delimiter = delimiterOf(text)): Promise<string[][]> {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0
  let nextYield = YIELD_EVERY
  while (i < text.length) {
    if (i >= nextYield) {
      nextYield += YIELD_EVERY
      await new Promise((resolve) => setTimeout(resolve))
    }
    const ch = text[i]
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"'
        i += 2
        continue
      }
      if (ch === '"') quoted = false
      else field += ch
      i++
      continue
    }
    if (ch === '"' && field === '') quoted = true
    else if (ch === delimiter) {
      row.push(field)
      field = ''
    } else if (ch === '\n' || ch === '\r') {
      row.push(field)
      field = ''
      if (row.length > 1 || row[0] !== '') rows.push(row)
      row = []
      if (ch === '\r' && text[i + 1] === '\n') i++
    } else field += ch
    i++
  }
  if (field !== '' || row.length > 0) {
    row.push(field)
    rows.push(row)
  }
  return rows
}

/** A column name the API takes: lower case letters, digits and _, not a digit first. */
export function columnName(header: string, index: number): string {
  let name = header.trim().toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^_+|_+$/g, '')
  if (name === '') name = `column_${index + 1}`
  if (/^[0-9]/.test(name)) name = `_${name}`
  return name.slice(0, 100)
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/
const DATETIME = /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2}(\.\d{1,3})?)?$/
const BOOLEAN = /^(true|false)$/i

/** The narrowest type every non-empty value fits. */
export function inferType(values: string[]): DataType {
  const present = values.filter((v) => v.trim() !== '')
  if (present.length === 0) return 'string'
  if (present.every((v) => NUMBER.test(v.trim()))) return 'number'
  if (present.every((v) => BOOLEAN.test(v.trim()))) return 'boolean'
  if (present.every((v) => DATETIME.test(v.trim()))) return 'datetime'
  return 'string'
}

/** A cell as the JSON value of its column's type; undefined when it does not fit. Empty is null. */
export function convert(text: string, type: DataType): DimensionValue | undefined {
  const v = text.trim()
  if (v === '') return null
  switch (type) {
    case 'number':
      return NUMBER.test(v) ? Number(v) : undefined
    case 'boolean':
      return BOOLEAN.test(v) ? v.toLowerCase() === 'true' : undefined
    case 'datetime':
      return DATETIME.test(v) ? v : undefined
    case 'array<string>':
      // a JSON array, or values separated by |
      if (v.startsWith('[')) {
        try {
          const parsed: unknown = JSON.parse(v)
          return Array.isArray(parsed) && parsed.every((x) => typeof x === 'string') ? parsed : undefined
        } catch {
          return undefined
        }
      }
      return v.split('|').map((s) => s.trim())
    default:
      return text
  }
}
