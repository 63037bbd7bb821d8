import { readFileSync } from 'node:fs'
import * as XLSX from 'xlsx'
import { badParam } from '../errors'

/**
 * Reads one sheet of an Excel workbook (an untrusted file) as text cells: the first row is the
 * header. Formula cells give their cached result, a merged area its value in the top-left cell
 * (the others are empty), dates their wall-clock time as yyyy-MM-dd HH:mm:ss.
 */
export function readExcel(file: string, sheet?: string, maxRows?: number): { header: string[]; rows: (string | null)[][]; sheets: string[] } {
  let book: XLSX.WorkBook
  try {
    book = XLSX.read(readFileSync(file), { type: 'buffer', cellDates: true, cellFormula: false, cellHTML: false, sheetRows: maxRows ? maxRows + 1 : 0 })
  } catch {
    throw badParam('file', 'the file is not a readable Excel workbook')
  }
  const name = sheet ?? book.SheetNames[0]
  const ws = name === undefined ? undefined : book.Sheets[name]
  if (!ws) throw badParam('sheet', sheet === undefined ? 'the workbook has no sheet' : `the workbook has no sheet named ${sheet}; it has ${book.SheetNames.join(', ')}`)
  const grid = XLSX.utils.sheet_to_json<unknown[]>(ws, { header: 1, raw: true, defval: null, blankrows: false })
  const [first = [], ...body] = grid
  const header = uniqueHeader(first.map((h) => (h === null || h === undefined ? '' : text(h) ?? '')))
  const rows = body.map((r) => header.map((_, i) => text(r[i])))
  return { header, rows, sheets: book.SheetNames }
}

function pad(n: number): string {
  return String(n).padStart(2, '0')
}

function text(cell: unknown): string | null {
  if (cell === null || cell === undefined || cell === '') return null
  if (cell instanceof Date) {
    const d = cell
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  }
  if (typeof cell === 'boolean') return cell ? 'true' : 'false'
  return String(cell)
}

/** Blank header cells become column_<n>; repeated names get _2, _3 ... */
export function uniqueHeader(names: string[]): string[] {
  const seen = new Map<string, number>()
  return names.map((raw, i) => {
    const base = raw.trim() === '' ? `column_${i + 1}` : raw.trim()
    const n = (seen.get(base.toLowerCase()) ?? 0) + 1
    seen.set(base.toLowerCase(), n)
    return n === 1 ? base : `${base}_${n}`
  })
}
