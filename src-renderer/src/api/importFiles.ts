import type { Answer, RequestBody } from '../../../src-shared/contract'
import type { ChosenLocalFile } from '../../../src-main/preload/bridge'
import { request, type ProjectAuth } from './http'
import type { ImportJob } from './importJobs'
import { postForm, type UploadOptions } from './upload'

/** File imports (UBA Desk addition, see /docs): a preview that writes nothing, and import jobs. */

/**
 * A file to import: a browser's File, which is uploaded, or a file the desktop app's open dialog
 * chose, which the server reads where it is (by path).
 */
export type ImportSource = File | ChosenLocalFile

type ImportFields = Omit<RequestBody<'/uba/api/import/jobs'>, 'path'>

/** Tabular files: which columns hold the user, the event and the time, and what the others become. */
export type ImportMapping = NonNullable<ImportFields['mapping']>

/** The import's fields, sent as form fields beside an uploaded file or in the JSON body with a path. */
export type ImportOptions = ImportFields
export type FileFormat = NonNullable<ImportOptions['format']>
export type ImportKind = NonNullable<ImportOptions['kind']>

/** POST /uba/api/import/preview: the top of a file as it would be stored. */
export type ImportPreview = Answer<'/uba/api/import/preview', 'post'>
export type PreviewProperty = ImportPreview['properties'][number]
export type PreviewRow = ImportPreview['rows'][number]

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
