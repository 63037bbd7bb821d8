import { randomUUID } from 'node:crypto'
import { closeSync, copyFileSync, linkSync, mkdirSync, openSync, readSync, rmSync } from 'node:fs'
import { extname, join } from 'node:path'
import type { DuckDBConnection } from '@duckdb/node-api'
import { badParam } from '../errors'
import { readExcel } from './excel'
import { firstCharacter, scanLines } from './scan'
import { ident, insertionOrder, literal } from './sql'

/**
 * Getting a file into DuckDB as a staging table, through DuckDB's own readers (the appender for
 * Excel cells and collector uploads). Two shapes:
 * - `stage_records(line)`: SDK records, one JSON text per record or per line (blank lines kept,
 *   so that numbers stay line numbers);
 * - `stage_rows(<columns as VARCHAR>)`: tabular files (CSV, TSV, Parquet, Excel), every cell as
 *   text so that types are checked by the plan, not guessed by a reader.
 * A staged record's number in the file is its `rowid + 1` (insertion order is file order): far
 * cheaper than a row_number() window, which would serialize the whole read.
 */

export type Format = 'json' | 'csv' | 'tsv' | 'parquet' | 'excel'
export const FORMATS: Format[] = ['json', 'csv', 'tsv', 'parquet', 'excel']

/**
 * Longest JSON or CSV line accepted: above the largest record the SDK limits allow (300 properties,
 * arrays of 100 x 255 characters). DuckDB's read buffer is sized from it, so it stays modest.
 */
export const MAX_LINE_BYTES = 8 * 1024 * 1024
const READ_BUFFER_BYTES = 4 * MAX_LINE_BYTES

function head(file: string, bytes: number): Buffer {
  const fd = openSync(file, 'r')
  try {
    const buf = Buffer.alloc(bytes)
    const n = readSync(fd, buf, 0, bytes, 0)
    return buf.subarray(0, n)
  } finally {
    closeSync(fd)
  }
}

export function isGzip(file: string): boolean {
  const b = head(file, 2)
  return b.length === 2 && b[0] === 0x1f && b[1] === 0x8b
}

/** The format a file most likely has, from its name, then its first bytes. */
export function detectFormat(file: string): Format {
  const name = file.toLowerCase().replace(/\.gz$/, '')
  if (/\.(jsonl|ndjson|json)$/.test(name)) return 'json'
  if (name.endsWith('.tsv') || name.endsWith('.tab')) return 'tsv'
  if (name.endsWith('.csv') || name.endsWith('.txt')) return 'csv'
  if (name.endsWith('.parquet')) return 'parquet'
  if (/\.(xlsx|xlsm|xls|xlsb|ods)$/.test(name)) return 'excel'
  const b = head(file, 4)
  if (b.toString('latin1') === 'PAR1') return 'parquet'
  if (b[0] === 0x50 && b[1] === 0x4b) return 'excel'
  if (b[0] === 0xd0 && b[1] === 0xcf) return 'excel'
  if (b[0] === 0x1f && b[1] === 0x8b) return 'json'
  const text = b.toString('utf8').trimStart()
  return text.startsWith('{') || text.startsWith('[') ? 'json' : 'csv'
}

function compression(file: string): string {
  return isGzip(file) ? 'gzip' : 'none'
}

/**
 * The SQL that keeps a preview's first records, and the lines the pre-scan reads for them: twice
 * as many (a header, blank lines, a quoted cell over several lines), so that no line the preview
 * shows is one DuckDB's reader would drop; a long line a little further fails the import anyway.
 */
function previewHead(limit?: number): { sql: string; lines: number } {
  return limit === undefined ? { sql: '', lines: Number.POSITIVE_INFINITY } : { sql: `LIMIT ${Math.floor(limit)}`, lines: 2 * Math.floor(limit) + 1 }
}

/** JSON: one record per line, or one array of records (detected from the first character). */
async function stageJson(conn: DuckDBConnection, file: string, limit?: number): Promise<void> {
  const { sql, lines } = previewHead(limit)
  const gz = compression(file)
  if (await firstCharacter(file, gz === 'gzip') === '[') {
    // one array, possibly on one long line: only the compression is checked beforehand
    if (limit === undefined && gz === 'gzip') await scanLines(file, true, Number.POSITIVE_INFINITY)
    await conn.run(`CREATE OR REPLACE TEMP TABLE stage_records AS
      SELECT CAST(json AS VARCHAR) AS line
      FROM read_json_objects(${literal(file)}, format = 'array', compression = ${literal(gz)}) ${sql}`)
    return
  }
  await scanLines(file, gz === 'gzip', MAX_LINE_BYTES, lines)
  // line by line, so that a line that is not JSON is rejected with its number instead of failing the file
  await conn.run(`CREATE OR REPLACE TEMP TABLE stage_records AS
    SELECT line
    FROM read_csv(${literal(file)}, columns = {'line': 'VARCHAR'}, header = false, delim = '\\x1f', quote = '', escape = '',
                  auto_detect = false, compression = ${literal(gz)}, max_line_size = ${MAX_LINE_BYTES}, buffer_size = ${READ_BUFFER_BYTES}, strict_mode = true)
    ${sql}`)
}

async function stageDelimited(conn: DuckDBConnection, file: string, delim: string, limit?: number): Promise<void> {
  const { sql, lines } = previewHead(limit)
  await scanLines(file, isGzip(file), MAX_LINE_BYTES, lines)
  await conn.run(`CREATE OR REPLACE TEMP TABLE stage_rows AS
    SELECT *
    FROM read_csv(${literal(file)}, header = true, all_varchar = true, delim = ${literal(delim)},
                  compression = ${literal(compression(file))}, max_line_size = ${MAX_LINE_BYTES}, buffer_size = ${READ_BUFFER_BYTES}) ${sql}`)
}

/** Parquet cells as text: lists, structs and maps as JSON (so a list reads as an array<string>). */
async function stageParquet(conn: DuckDBConnection, file: string, limit?: number): Promise<void> {
  const source = `read_parquet(${literal(file)})`
  const columns = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${source}`)).getRows().map((r) => ({ name: String(r[0]), type: String(r[1]) }))
  const cells = columns.map(({ name, type }) =>
    /\[\]$|^STRUCT|^MAP/.test(type) ? `CAST(to_json(${ident(name)}) AS VARCHAR) AS ${ident(name)}` : `CAST(${ident(name)} AS VARCHAR) AS ${ident(name)}`,
  )
  await conn.run(`CREATE OR REPLACE TEMP TABLE stage_rows AS
    SELECT ${cells.join(', ')} FROM ${source} ${previewHead(limit).sql}`)
}

/** Excel has no DuckDB reader here: SheetJS reads the sheet, the appender loads the cells. */
async function stageExcel(conn: DuckDBConnection, file: string, sheet: string | undefined, limit?: number): Promise<void> {
  const { header, rows } = readExcel(file, sheet, limit)
  await stageTextRows(conn, header, rows)
}

/** Loads rows of text cells (Excel, the collector's records) through the appender. */
export async function stageTextRows(conn: DuckDBConnection, header: string[], rows: (string | null)[][]): Promise<void> {
  const columns = header.map((h) => `${ident(h)} VARCHAR`).join(', ')
  await conn.run(`CREATE OR REPLACE TEMP TABLE stage_rows (${columns})`)
  const appender = await conn.createAppender('stage_rows', 'main', 'temp')
  rows.forEach((row) => {
    for (let c = 0; c < header.length; c++) {
      const cell = row[c]
      if (cell === null || cell === undefined) appender.appendNull()
      else appender.appendVarchar(cell)
    }
    appender.endRow()
  })
  appender.closeSync()
}

/** Collector uploads: records already parsed by the HTTP layer, staged as JSON texts. */
export async function stageRecordTexts(conn: DuckDBConnection, lines: string[]): Promise<void> {
  await conn.run('CREATE OR REPLACE TEMP TABLE stage_records (line VARCHAR)')
  const appender = await conn.createAppender('stage_records', 'main', 'temp')
  lines.forEach((line) => {
    appender.appendVarchar(line)
    appender.endRow()
  })
  appender.closeSync()
}

/**
 * DuckDB may open files only in the project's staging folder (`Warehouse.stagingDirOf`), so the file
 * is placed there for the read: a hard link costs nothing; a copy when the file is on another disk
 * or the file system refuses links. The placed file is removed afterwards, and its name in an error
 * message is replaced by the caller's.
 */
async function inStaging<T>(stagingDir: string, file: string, read: (placed: string) => Promise<T>): Promise<T> {
  mkdirSync(stagingDir, { recursive: true })
  const placed = join(stagingDir, `${randomUUID()}${extname(file)}`)
  try {
    linkSync(file, placed)
  } catch (err) {
    if (!['EXDEV', 'EPERM', 'EACCES', 'ENOTSUP', 'EMLINK'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err
    copyFileSync(file, placed)
  }
  try {
    return await read(placed)
  } catch (err) {
    if (err instanceof Error) err.message = err.message.split(placed).join(file)
    throw err
  } finally {
    rmSync(placed, { force: true })
  }
}

/**
 * Stages a file (its first `limit` records only, for a preview); resolves to the staging table's
 * name. `stagingDir` is the project's staging folder, the one DuckDB may read.
 */
export async function stageFile(conn: DuckDBConnection, stagingDir: string, file: string, format: Format, sheet?: string, limit?: number): Promise<'stage_records' | 'stage_rows'> {
  if (format === 'excel') {
    // read by SheetJS in Node, not by DuckDB: nothing to place
    await stageExcel(conn, file, sheet, limit)
    return 'stage_rows'
  }
  // rowids are line numbers: the read keeps file order whatever another connection set globally
  return inStaging(stagingDir, file, (placed) => insertionOrder(conn, true, () => stageRead(conn, placed, format, limit)))
}

async function stageRead(conn: DuckDBConnection, file: string, format: Format, limit?: number): Promise<'stage_records' | 'stage_rows'> {
  switch (format) {
    case 'json':
      await stageJson(conn, file, limit)
      return 'stage_records'
    case 'csv':
      await stageDelimited(conn, file, ',', limit)
      return 'stage_rows'
    case 'tsv':
      await stageDelimited(conn, file, '\t', limit)
      return 'stage_rows'
    case 'parquet':
      await stageParquet(conn, file, limit)
      return 'stage_rows'
    default:
      throw badParam('format', `unknown format ${String(format)}`)
  }
}
