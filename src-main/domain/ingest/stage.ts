import { randomUUID } from 'node:crypto'
import { closeSync, copyFileSync, linkSync, openSync, readSync, rmSync } from 'node:fs'
import { extname, join } from 'node:path'
import { setImmediate as yieldToRequests } from 'node:timers/promises'
import { constants, gunzipSync } from 'node:zlib'
import type { Warehouse } from '../../warehouse'
import type { RejectTables } from '../../warehouse/parts/files'
import { engineFailure, failureText, readerProblem, unreadableInput } from '../../warehouse/errors'
import { privateDir } from '../../store/private'
import { AppError, badParam } from '../errors'
import { readExcel } from './excel'
import { firstCharacter, scanLines } from './scan'
import { ident, insertionOrder } from './sql'

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
const FORMAT_NAMES: Record<Format, string> = { json: 'JSON', csv: 'CSV', tsv: 'TSV', parquet: 'Parquet', excel: 'Excel' }

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

/** Cell separators a CSV may use (a TSV's is the tab), and the names the API also takes for them. */
export const DELIMITERS: Record<string, string> = { ',': ',', ';': ';', '\t': '\t', '|': '|', comma: ',', semicolon: ';', tab: '\t', pipe: '|' }

/** The first bytes of a text file, decompressed when it is gzip. */
function textHead(file: string): Buffer {
  const bytes = head(file, 64 * 1024)
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes
  // a truncated stream: the flush mode lets it give what it has instead of failing
  try {
    return gunzipSync(bytes, { finishFlush: constants.Z_SYNC_FLUSH })
  } catch {
    return Buffer.alloc(0)
  }
}

type Encoding = 'utf-8' | 'utf-16' | 'latin-1'

/**
 * The text encoding of a CSV or TSV file, from its first bytes: UTF-16 by its byte order mark
 * (what a spreadsheet saves as "Unicode text"), Latin-1 when they are not UTF-8 (a spreadsheet's
 * CSV on an older Windows), else UTF-8.
 */
function detectEncoding(bytes: Buffer): Encoding {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return 'utf-16'
  try {
    // stream: a character cut by the end of the sample is not an error
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true })
    return 'utf-8'
  } catch {
    return 'latin-1'
  }
}

/** The first bytes of a text file as text, from its first line that is not blank, and their encoding. */
function firstText(file: string): { text: string; encoding: Encoding } {
  const bytes = textHead(file)
  const encoding = detectEncoding(bytes)
  const text = encoding === 'utf-16' ? bytes.toString('utf16le') : bytes.toString(encoding === 'latin-1' ? 'latin1' : 'utf8')
  return { text: text.replace(/^\uFEFF/, '').replace(/^\s*\n/, ''), encoding }
}

/**
 * The separator of a CSV file, from its header line: the candidate (comma, semicolon, tab, pipe)
 * found most often outside quotes, a comma when none is. A spreadsheet saved as CSV where the
 * decimal mark is a comma separates cells with semicolons.
 */
export function detectDelimiter(file: string): string {
  const line = firstText(file).text
  const counts = new Map<string, number>([[',', 0], [';', 0], ['\t', 0], ['|', 0]])
  let quoted = false
  for (const ch of line) {
    if (ch === '"') quoted = !quoted
    else if (!quoted && (ch === '\n' || ch === '\r')) break
    else if (!quoted && counts.has(ch)) counts.set(ch, counts.get(ch)! + 1)
  }
  let best = ','
  for (const [d, n] of counts) if (n > counts.get(best)!) best = d
  return best
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
async function stageJson(conn: Warehouse, file: string, limit?: number): Promise<void> {
  const { sql, lines } = previewHead(limit)
  const gzip = isGzip(file)
  if (await firstCharacter(file, gzip) === '[') {
    // one array, possibly on one long line: only the compression is checked beforehand
    if (limit === undefined && gzip) await scanLines(file, true, Number.POSITIVE_INFINITY)
    await conn.run(conn.dialect.tempTableAs('stage_records', `${conn.dialect.jsonArrayLines(file, gzip)} ${sql}`))
    return
  }
  await scanLines(file, gzip, MAX_LINE_BYTES, lines)
  // line by line, so that a line that is not JSON is rejected with its number instead of failing the file
  const reading = { gzip, maxLineBytes: MAX_LINE_BYTES, bufferBytes: READ_BUFFER_BYTES }
  await conn.run(conn.dialect.tempTableAs('stage_records', `${conn.dialect.fileLines(file, reading)}
    ${sql}`))
}

/** How a relation is staged: copied into a table, or a view that reads the file where it lies (see `withStagedFile`). */
export type Relation = 'TABLE' | 'VIEW'

/** The statement that (re)creates temp relation `name` of `select`, as a table or a view. */
function tempRelation(conn: Warehouse, relation: Relation, name: string, select: string): string {
  return relation === 'TABLE' ? conn.dialect.tempTableAs(name, select) : conn.dialect.tempViewAs(name, select)
}

/** Turns an engine error of a file's read into the request's problem (or returns the error as it is). */
type Explain = (err: unknown) => Promise<unknown>

async function stageDelimited(conn: Warehouse, file: string, delim: string, relation: Relation, limit?: number): Promise<Explain> {
  const { sql, lines } = previewHead(limit)
  await scanLines(file, isGzip(file), MAX_LINE_BYTES, lines)
  const { text, encoding } = firstText(file)
  if (text.trim() === '') throw badParam('file', 'the file is empty: a CSV or TSV file starts with its header line')
  const reading = { delimiter: delim, encoding, gzip: isGzip(file), maxLineBytes: MAX_LINE_BYTES, bufferBytes: READ_BUFFER_BYTES }
  const reader = (rejects?: RejectTables) => conn.dialect.delimitedFile(file, reading, rejects)
  const explain: Explain = async (err) => {
    if (!(err instanceof Error) || engineFailure(err) !== 'unreadable-csv') return err
    return csvProblem(conn, reader, sql, delim, err)
  }
  try {
    await conn.run(tempRelation(conn, relation, 'stage_rows', `SELECT * FROM ${reader()} ${sql}`))
  } catch (err) {
    throw await explain(err)
  }
  return explain
}

/**
 * Why the reader refused a CSV or TSV file, as the first line it could not take: read again, its
 * rejected lines kept aside (the dialect's reject tables), to find that line and its problem.
 */
async function csvProblem(conn: Warehouse, reader: (rejects?: RejectTables) => string, limit: string, delim: string, err: Error): Promise<AppError> {
  const d = conn.dialect
  const rejects: RejectTables = { errors: 'stage_reject_errors', scans: 'stage_reject_scans' }
  const drop = async () => {
    for (const table of [rejects.errors, rejects.scans, 'stage_reject_probe']) await conn.run(d.dropTempTable(table))
  }
  try {
    await drop()
    // every cell read (a count alone would not check the text of the cells)
    await conn.run(d.tempTableAs('stage_reject_probe', `SELECT * FROM ${reader(rejects)} ${limit}`))
    const row = (await conn.query(d.firstRejectedLine(rejects)))[0]
    if (row) {
      const first = d.rejectedLine(row)
      const shown = JSON.stringify(first.text.length > 120 ? `${first.text.slice(0, 120)}...` : first.text)
      const separator = delim === '\t' ? 'tabs' : `'${delim}'`
      if (first.cells) {
        return badParam('file', `line ${first.line} has ${first.cells.found} cells where the header has ${first.cells.expected} (${shown}): every line needs one cell per column of the header. The cells were split at ${separator}; if the file uses another separator, choose it (delimiter)`)
      }
      if (first.encoding) return badParam('file', `line ${first.line} is not UTF-8 text (${shown}): save the file as UTF-8`)
      return badParam('file', `line ${first.line} could not be read (${shown}): ${first.message}`)
    }
  } catch {
    // the second read failed as well: the first error says what there is to say
  } finally {
    await drop().catch(() => undefined)
  }
  return badParam('file', `the file could not be read as CSV: ${failureText(err)}`)
}

/** Parquet cells as text: lists, structs and maps as JSON (so a list reads as an array<string>). */
async function stageParquet(conn: Warehouse, file: string, relation: Relation, limit?: number): Promise<void> {
  const source = conn.dialect.parquetFile(file)
  const columns = (await conn.rows(conn.dialect.describeColumns(`SELECT * FROM ${source}`))).map((r) => ({ name: String(r[0]), type: String(r[1]) }))
  // a view (an import) keeps numbers and flags as stored: they are read without a trip through text (the dialect's fromCell)
  const cells = columns.map(({ name, type }) => {
    if (relation === 'VIEW' && conn.dialect.cellKindOf(type) !== 'text') return ident(name)
    return `${conn.dialect.cellAsText(ident(name), type)} AS ${ident(name)}`
  })
  await conn.run(tempRelation(conn, relation, 'stage_rows', `SELECT ${cells.join(', ')} FROM ${source} ${previewHead(limit).sql}`))
}

/** Excel has no DuckDB reader here: SheetJS reads the sheet, the appender loads the cells. */
export async function stageExcel(conn: Warehouse, file: string, sheet: string | undefined, limit?: number): Promise<void> {
  const { header, rows } = readExcel(file, sheet, limit)
  await stageTextRows(conn, header, rows)
}

/** Loads rows of text cells (Excel, the collector's records) through the appender. */
export async function stageTextRows(conn: Warehouse, header: string[], rows: (string | null)[][]): Promise<void> {
  await conn.run(conn.dialect.tempTable('stage_rows', header.map((h) => [ident(h), 'string'])))
  await conn.appendRows('stage_rows', header.map(() => 'string' as const), rows.map((row) => header.map((_, c) => row[c] ?? null)), { temp: true })
}

/**
 * Collector uploads: records already parsed by the HTTP layer, staged as JSON texts. Other requests
 * are answered between parts (see `Warehouse.appendRows`): appending a 60 MB upload in one go held
 * the server for a few hundred ms.
 */
export async function stageRecordTexts(conn: Warehouse, lines: string[], table = 'stage_records'): Promise<void> {
  await conn.run(conn.dialect.tempTable(table, [['line', 'string']]))
  await conn.appendRows(table, ['string'], lines.map((line) => [line]), { temp: true, between: () => yieldToRequests() })
}

/**
 * DuckDB may open files only in the project's staging folder (`Warehouse.stagingDirOf`), so the file
 * is placed there for the read: a hard link costs nothing; a copy when the file is on another disk
 * or the file system refuses links. The placed file is removed afterwards, and its name in an error
 * message is replaced by the caller's.
 */
export async function inStaging<T>(stagingDir: string, file: string, read: (placed: string) => Promise<T>): Promise<T> {
  privateDir(stagingDir)
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

/** A file to stage: its format, and for Excel the sheet, for CSV and TSV the separator. */
export interface StageSource {
  file: string
  format: Format
  sheet?: string
  delimiter?: string
}

/**
 * Stages a file (its first `limit` records only, for a preview); resolves to the staging table's
 * name. `stagingDir` is the project's staging folder, the one DuckDB may read.
 */
export async function stageFile(conn: Warehouse, stagingDir: string, source: StageSource, limit?: number): Promise<'stage_records' | 'stage_rows'> {
  if (source.format === 'excel') {
    // read by SheetJS in Node, not by DuckDB: nothing to place
    await stageExcel(conn, source.file, source.sheet, limit)
    return 'stage_rows'
  }
  // rowids are line numbers: the read keeps file order whatever another connection set globally
  return inStaging(stagingDir, source.file, async (placed) => (await insertionOrder(conn, true, () => stageRead(conn, { ...source, file: placed }, 'TABLE', limit))).table)
}

/** Reads every cell of a streamed stage, to find whether the reader refuses some. */
export async function readWhole(conn: Warehouse): Promise<void> {
  try {
    await conn.run(conn.dialect.tempTableAs('stage_probe', 'SELECT * FROM stage_rows'))
  } finally {
    await conn.run(conn.dialect.dropTempTable('stage_probe')).catch(() => undefined)
  }
}

/** A file DuckDB's readers refuse is the request's problem (400 naming file), never a server error. */
export async function stageRead(conn: Warehouse, source: StageSource, relation: Relation, limit?: number): Promise<{ table: 'stage_records' | 'stage_rows'; explain: Explain }> {
  let explainCsv: Explain = async (err) => err
  const explain: Explain = async (failure) => {
    const err = await explainCsv(failure)
    if (err instanceof AppError || !(err instanceof Error) || !unreadableInput(err)) return err
    const first = failureText(err)
    const problem = readerProblem(err)
    if (problem === 'line-too-long') return badParam('file', `a line is longer than the 8 MB a record may take: ${first}`)
    if (problem === 'damaged-compression') return badParam('file', `the compressed file is damaged or truncated: ${first}`)
    return badParam('file', `the file could not be read as ${FORMAT_NAMES[source.format]}: ${first}`)
  }
  try {
    switch (source.format) {
      case 'json':
        await stageJson(conn, source.file, limit)
        return { table: 'stage_records', explain }
      case 'csv':
      case 'tsv':
        explainCsv = await stageDelimited(conn, source.file, source.delimiter ?? (source.format === 'tsv' ? '\t' : detectDelimiter(source.file)), relation, limit)
        return { table: 'stage_rows', explain }
      case 'parquet':
        await stageParquet(conn, source.file, relation, limit)
        return { table: 'stage_rows', explain }
      default:
        throw badParam('format', `unknown format ${String(source.format)}`)
    }
  } catch (err) {
    throw await explain(err)
  }
}
