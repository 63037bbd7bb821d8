import * as XLSX from 'xlsx'
import { badParam } from '../errors'

/**
 * Files of values for cohorts and tags: an Excel workbook (its first sheet) or a CSV text file,
 * read with the SheetJS import the importers use. Cells are read as text: a CSV cell is never
 * turned into a number (ids like 007 stay as written); an Excel number cell gives its digits, a date
 * cell yyyy-MM-dd HH:mm:ss. Surrounding spaces are removed; empty rows are left out.
 */

/** Files larger than this are refused (spec 8: cohort from file, at most 10 MB). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024

export interface SheetFile {
  data: Buffer
  filename: string
}

function pad(n: number): string {
  return String(n).padStart(2, '0')
}

function cellText(cell: unknown): string {
  if (cell === null || cell === undefined) return ''
  if (cell instanceof Date) {
    const d = cell
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  }
  return String(cell).trim()
}

function isText(file: SheetFile): boolean {
  if (/\.(csv|txt)$/i.test(file.filename)) return true
  if (/\.(xlsx|xlsm|xlsb|xls|ods)$/i.test(file.filename)) return false
  // no telling name: a zip (xlsx) or OLE (xls) signature is a workbook, anything else text
  const head = file.data.subarray(0, 4).toString('hex')
  return head !== '504b0304' && head !== 'd0cf11e0'
}

function readGrid(file: SheetFile): unknown[][] {
  let book: XLSX.WorkBook
  try {
    book = isText(file)
      ? XLSX.read(file.data.toString('utf8').replace(/^\uFEFF/, ''), { type: 'string', raw: true, dense: true })
      : XLSX.read(file.data, { type: 'buffer', cellDates: true, cellFormula: false, cellHTML: false, dense: true })
  } catch {
    throw badParam('file', 'the file is not a readable Excel workbook or CSV file')
  }
  const sheet = book.SheetNames[0] === undefined ? undefined : book.Sheets[book.SheetNames[0]]
  if (!sheet) throw badParam('file', 'the workbook has no sheet')
  return XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, raw: true, defval: null, blankrows: false })
}

/**
 * The rows of a file with exactly `columns` columns, as trimmed text; rows whose cells are all
 * empty are left out. A cell beyond the last column is a 400 naming `file`.
 */
export function readColumns(file: SheetFile, columns: number): string[][] {
  if (file.data.length > MAX_FILE_BYTES) throw badParam('file', `the file is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB`)
  const rows: string[][] = []
  readGrid(file).forEach((raw, i) => {
    const cells = raw.map(cellText)
    const extra = cells.findIndex((c, j) => j >= columns && c !== '')
    if (extra >= 0) throw badParam('file', `the file must have ${columns === 1 ? 'one column' : `${columns} columns`}; row ${i + 1} has a value in column ${extra + 1}`)
    const row = Array.from({ length: columns }, (_, j) => cells[j] ?? '')
    if (row.some((c) => c !== '')) rows.push(row)
  })
  return rows
}
