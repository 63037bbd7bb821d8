import { statSync } from 'node:fs'
import { isAbsolute } from 'node:path'
import { badParam } from '../errors'
import type { ImportSpec } from './importer'
import type { Decimal } from './infer'
import { DELIMITERS, detectDelimiter, detectFormat, FORMATS, type Format } from './stage'
import type { Kind, Mapping } from './tabular'

/** An import or preview request as the API receives it (JSON body, or multipart fields as text). */
export interface ImportFields {
  path?: unknown
  format?: unknown
  kind?: unknown
  mapping?: unknown
  sheet?: unknown
  delimiter?: unknown
  decimal?: unknown
  onError?: unknown
  dedupe?: unknown
}

function oneOf<T extends string>(value: unknown, name: string, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value === '') return fallback
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) throw badParam(name, `${name} must be one of ${allowed.join(', ')}`)
  return value as T
}

function mappingOf(value: unknown): Mapping {
  if (value === undefined || value === '') return {}
  let parsed = value
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value)
    } catch {
      throw badParam('mapping', 'mapping must be a JSON object')
    }
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw badParam('mapping', 'mapping must be an object')
  const m = parsed as Record<string, unknown>
  for (const key of ['xwho', 'xwhat', 'xwhen', 'event']) {
    if (m[key] !== undefined && (typeof m[key] !== 'string' || m[key] === '')) throw badParam(`mapping.${key}`, `mapping.${key} must be a column name`)
  }
  for (const key of ['properties', 'types']) {
    if (m[key] !== undefined && (typeof m[key] !== 'object' || m[key] === null || Array.isArray(m[key]))) throw badParam(`mapping.${key}`, `mapping.${key} must be an object`)
  }
  const unknown = Object.keys(m).find((k) => !['xwho', 'xwhat', 'xwhen', 'event', 'properties', 'types'].includes(k))
  if (unknown) throw badParam(`mapping.${unknown}`, `mapping.${unknown} is not a known mapping key (xwho, xwhat, event, xwhen, properties, types)`)
  return m as Mapping
}

function booleanOf(value: unknown, name: string): boolean {
  if (value === undefined || value === '' || value === false || value === 'false') return false
  if (value === true || value === 'true') return true
  throw badParam(name, `${name} must be true or false`)
}

/** CSV and TSV: the separator asked for, else the one the header line shows (TSV: a tab). */
function delimiterOf(value: unknown, format: Format, file: string): string | undefined {
  const delimited = format === 'csv' || format === 'tsv'
  if (value === undefined || value === '') return !delimited ? undefined : format === 'tsv' ? '\t' : detectDelimiter(file)
  if (!delimited) throw badParam('delimiter', `delimiter applies to csv and tsv files, not ${format}`)
  const d = typeof value === 'string' && Object.hasOwn(DELIMITERS, value) ? DELIMITERS[value] : undefined
  if (d === undefined) throw badParam('delimiter', 'delimiter must be one of , ; | or a tab (or comma, semicolon, pipe, tab)')
  return d
}

/** CSV and TSV: the decimal mark of numbers, a point unless asked for a comma. */
function decimalOf(value: unknown, format: Format): Decimal | undefined {
  if (value === undefined || value === '') return undefined
  if (format !== 'csv' && format !== 'tsv') throw badParam('decimal', `decimal applies to csv and tsv files, not ${format}`)
  if (value !== '.' && value !== ',') throw badParam('decimal', 'decimal must be . or ,')
  return value
}

/** A local file the import may read: absolute, existing, a regular file. */
export function checkedPath(value: unknown): string {
  if (typeof value !== 'string' || value === '') throw badParam('path', 'path (a local file) or a multipart file is required')
  if (!isAbsolute(value)) throw badParam('path', 'path must be an absolute path')
  let stat
  try {
    stat = statSync(value)
  } catch {
    throw badParam('path', `no file at ${value}`)
  }
  if (!stat.isFile()) throw badParam('path', `${value} is not a file`)
  return value
}

/** Checks a request's fields; `file` is the uploaded file or the checked local path. */
export function importSpecOf(fields: ImportFields, file: string): ImportSpec {
  const format: Format = fields.format === undefined || fields.format === '' ? detectFormat(file) : oneOf(fields.format, 'format', FORMATS, 'csv')
  const kind: Kind = oneOf(fields.kind, 'kind', ['events', 'profiles'] as const, 'events')
  if (fields.sheet !== undefined && typeof fields.sheet !== 'string') throw badParam('sheet', 'sheet must be the name of a sheet')
  return {
    file,
    format,
    kind,
    mapping: mappingOf(fields.mapping),
    sheet: (fields.sheet as string | undefined) || undefined,
    delimiter: delimiterOf(fields.delimiter, format, file),
    decimal: decimalOf(fields.decimal, format),
    onError: oneOf(fields.onError, 'onError', ['abort', 'skip'] as const, 'abort'),
    dedupe: booleanOf(fields.dedupe, 'dedupe'),
  }
}
