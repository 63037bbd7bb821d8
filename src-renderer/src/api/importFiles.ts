import type { ChosenLocalFile } from '../../../src-main/preload/bridge'
import { request, type ProjectAuth } from './http'
import type { ImportJob, Rejection } from './importJobs'
import type { DataType } from './schema'
import { postForm, type UploadOptions } from './upload'

/** File imports (UBA Desk addition, see /docs): a preview that writes nothing, and import jobs. */

/**
 * A file to import: a browser's File, which is uploaded, or a file the desktop app's open dialog
 * chose, which the server reads where it is (by path).
 */
export type ImportSource = File | ChosenLocalFile

export type FileFormat = 'json' | 'csv' | 'tsv' | 'parquet' | 'excel'
export type ImportKind = 'events' | 'profiles'

/** Tabular files: which columns hold the user, the event and the time, and what the others become. */
export interface ImportMapping {
  xwho?: string
  xwhat?: string
  /** One event id for every row (instead of xwhat). */
  event?: string
  xwhen?: string
  /** Column -> property id, or null to leave the column out. */
  properties?: Record<string, string | null>
  /** Property id -> type, for properties the plan does not know yet. */
  types?: Record<string, DataType>
}

export interface ImportOptions {
  format?: FileFormat
  kind?: ImportKind
  mapping?: ImportMapping
  sheet?: string
  /** CSV and TSV: the cell separator (the server detects it when absent). */
  delimiter?: string
  /** CSV and TSV: the decimal mark of numbers (a point when absent). */
  decimal?: '.' | ','
  onError?: 'abort' | 'skip'
  dedupe?: boolean
}

export interface PreviewProperty {
  property: string
  type: DataType
  /** The plan knows it (its type is fixed). */
  known: boolean
  target: 'event' | 'user'
}

export interface PreviewRow {
  row: number
  xwho: string | null
  xwhat: string | null
  /** yyyy-MM-dd HH:mm:ss.SSS in the project's time zone. */
  xwhen: string | null
  ds: number | null
  properties: Record<string, unknown>
  problem: Omit<Rejection, 'row'> | null
}

/** POST /uba/api/import/preview: the top of a file as it would be stored. */
export interface ImportPreview {
  format: FileFormat
  /** events or profiles for tabular files, records for SDK records (JSON). */
  kind: ImportKind | 'records'
  sheets: string[] | null
  /** CSV and TSV: the cell separator the file was read with; null for other formats. */
  delimiter: string | null
  /** CSV and TSV: the decimal mark numbers were read with; null for other formats. */
  decimal: '.' | ',' | null
  header: string[] | null
  mapping: ImportMapping | null
  /** What the mapping still lacks (tabular files), else null. */
  mappingProblem: string | null
  properties: PreviewProperty[]
  rows: PreviewRow[]
  rowsChecked: number
  rowsRejected: number
  problems: Rejection[]
}

/** The format a file name says, as the server reads it; null when only the content can tell. */
export function formatOfName(name: string): FileFormat | null {
  const n = name.toLowerCase().replace(/\.gz$/, '')
  if (/\.(jsonl|ndjson|json)$/.test(n)) return 'json'
  if (/\.(tsv|tab)$/.test(n)) return 'tsv'
  if (/\.(csv|txt)$/.test(n)) return 'csv'
  if (n.endsWith('.parquet')) return 'parquet'
  if (/\.(xlsx|xlsm|xls|xlsb|ods)$/.test(n)) return 'excel'
  return null
}

/** The preview reads 1,000 records at most; this much of a line-based file is plenty for that. */
const PREVIEW_BYTES = 4 * 1024 * 1024

/**
 * The part of the file the preview needs. Line-based text (CSV, TSV, JSON lines) is cut after the
 * last whole line of its first megabytes, so previewing a large file does not upload all of it;
 * Parquet, Excel, gzip and JSON arrays are only readable whole.
 */
export async function previewPart(file: File): Promise<File> {
  const format = formatOfName(file.name)
  if (file.size <= PREVIEW_BYTES || file.name.toLowerCase().endsWith('.gz')) return file
  if (format !== 'csv' && format !== 'tsv' && format !== 'json') return file
  const head = new Uint8Array(await file.slice(0, PREVIEW_BYTES).arrayBuffer())
  if (format === 'json' && new TextDecoder().decode(head.subarray(0, 64)).trimStart().startsWith('[')) return file
  const end = head.lastIndexOf(0x0a)
  return end > 0 ? new File([head.subarray(0, end + 1)], file.name, { type: file.type }) : file
}

function formOf(file: File, options: ImportOptions): FormData {
  const form = new FormData()
  // text fields first: the server reads the parts in order and streams the file to disk
  if (options.format) form.append('format', options.format)
  if (options.kind) form.append('kind', options.kind)
  if (options.mapping && Object.keys(options.mapping).length > 0) form.append('mapping', JSON.stringify(options.mapping))
  if (options.sheet) form.append('sheet', options.sheet)
  if (options.delimiter) form.append('delimiter', options.delimiter)
  if (options.decimal) form.append('decimal', options.decimal)
  if (options.onError) form.append('onError', options.onError)
  if (options.dedupe !== undefined) form.append('dedupe', String(options.dedupe))
  form.append('file', file, file.name)
  return form
}

/** The JSON body of an import by path: the same fields as the form, the mapping as an object. */
function bodyOf(path: string, options: ImportOptions): Record<string, unknown> {
  const { mapping, ...rest } = options
  const fields = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined && value !== ''))
  return { ...fields, ...(mapping && Object.keys(mapping).length > 0 ? { mapping } : {}), path }
}

export function previewImport(auth: ProjectAuth, source: ImportSource, options: ImportOptions, rows = 20, upload: UploadOptions = {}): Promise<ImportPreview> {
  const fields = { format: options.format, kind: options.kind, mapping: options.mapping, sheet: options.sheet, delimiter: options.delimiter, decimal: options.decimal }
  const path = `/uba/api/import/preview?rows=${rows}`
  if (!(source instanceof File)) return request<ImportPreview>(auth, 'POST', path, bodyOf(source.path, fields))
  return postForm<ImportPreview>(auth, path, formOf(source, fields), upload)
}

/** Queues the file's import (uploading it first, unless the server reads it where it is); follow the job with GET .../jobs/{id}. */
export function startImport(auth: ProjectAuth, source: ImportSource, options: ImportOptions, upload: UploadOptions = {}): Promise<ImportJob> {
  if (!(source instanceof File)) return request<ImportJob>(auth, 'POST', '/uba/api/import/jobs', bodyOf(source.path, options))
  return postForm<ImportJob>(auth, '/uba/api/import/jobs', formOf(source, options), upload)
}
