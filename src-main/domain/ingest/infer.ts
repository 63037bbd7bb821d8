import type { Warehouse } from '../../warehouse'
import type { DataType } from '../schema/types'

/**
 * Types "on first sight": a new property takes its type from its first values in the file (the
 * first SAMPLE present ones, the same records a preview shows), and later values are held to it.
 * - text cells (CSV, TSV, Excel, Parquet): the narrowest type all sampled values fit, else string;
 * - JSON values (SDK records): the type all sampled values share, else the first value's type.
 */
export const INFERENCE_SAMPLE = 1000

/** The decimal mark of a CSV or TSV file's numbers. */
export type Decimal = '.' | ','

const NUMBER = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/
/** A number written with a decimal comma (1,5): digits, at most one comma, no point, no exponent. */
const COMMA_NUMBER = /^\s*[+-]?(\d+(,\d*)?|,\d+)\s*$/
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})([ T]\d{2}:\d{2}:\d{2}(\.\d{1,9})?)?$/

function isDateTime(text: string): boolean {
  const m = DATETIME.exec(text)
  if (!m) return false
  const month = Number(m[2])
  const day = Number(m[3])
  return month >= 1 && month <= 12 && day >= 1 && day <= 31
}

function isStringArray(value: unknown): boolean {
  return Array.isArray(value) && value.every((v) => typeof v === 'string')
}

function textType(text: string): DataType {
  if (/^(true|false)$/i.test(text)) return 'boolean'
  if (NUMBER.test(text) && Number.isFinite(Number(text))) return 'number'
  if (isDateTime(text)) return 'datetime'
  try {
    if (text.trimStart().startsWith('[') && isStringArray(JSON.parse(text))) return 'array<string>'
  } catch {
    // not JSON: a string
  }
  return 'string'
}

/**
 * A cell of a file whose decimal mark is a comma, as a cell with a decimal point: 1,5 reads 1.5,
 * and a number written with a point is no number there (1.500 may mean fifteen hundred).
 */
export function fromDecimalComma(text: string): string {
  if (COMMA_NUMBER.test(text)) return text.replace(',', '.')
  return NUMBER.test(text) ? '' : text
}

/** The type of text cells; null when there is no value to judge. `decimal`: the file's decimal mark. */
export function inferText(values: string[], decimal: Decimal = '.'): DataType | null {
  if (values.length === 0) return null
  const types = new Set((decimal === ',' ? values.map(fromDecimalComma) : values).map(textType))
  if (types.size === 1) return [...types][0]
  // numbers and booleans read as numbers only when every value is one; anything mixed is text
  return 'string'
}

function jsonType(value: unknown): DataType | null {
  if (typeof value === 'number') return 'number'
  if (typeof value === 'boolean') return 'boolean'
  if (typeof value === 'string') return isDateTime(value) ? 'datetime' : 'string'
  if (isStringArray(value)) return 'array<string>'
  return null
}

/** The type of JSON values (given as JSON texts); null when none has a storable type. */
export function inferJson(texts: string[]): DataType | null {
  const types = texts.map((t) => jsonType(JSON.parse(t))).filter((t): t is DataType => t !== null)
  if (types.length === 0) return null
  const distinct = new Set(types)
  if (distinct.size === 1) return types[0]
  // strings that are partly dates are strings; otherwise the first value decides
  if ([...distinct].every((t) => t === 'string' || t === 'datetime')) return 'string'
  return types[0]
}

/**
 * The first INFERENCE_SAMPLE present values of each of `values`, SQL expressions over `relation`,
 * as text; `present` is the condition on one value, named `v`. The relation's `__uba_r` gives the
 * record order (a name no file column has: staged cells keep their file headers). One pass for all
 * the properties: a query per property cost a scan each, minutes for a file with hundreds of
 * rarely filled properties.
 */
export async function firstValues(conn: Warehouse, relation: string, values: string[], present: string): Promise<string[][]> {
  const out: string[][] = values.map(() => [])
  if (values.length === 0) return out
  const rows = await conn.rows(`
    SELECT g, CAST(v AS VARCHAR) AS v FROM (
      SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY __uba_r) AS n FROM (
        SELECT __uba_r, ${conn.dialect.valuesByIndex(values, 'g', 'v')} FROM ${relation}
      ) WHERE ${present}
    ) WHERE n <= ${INFERENCE_SAMPLE} ORDER BY g, n`)
  for (const [g, v] of rows) out[Number(g)].push(String(v))
  return out
}
