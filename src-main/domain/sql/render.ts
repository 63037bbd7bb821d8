import { DuckDBTypeId, type DuckDBType } from '@duckdb/node-api'
import { csvText } from './csv'

/**
 * Custom SQL results are written as text by DuckDB itself: the checked query is wrapped in a
 * projection that turns each row into one CSV line or one JSON object. DuckDB does this
 * vectorized and in parallel, about three times faster than converting every value to a
 * JavaScript value and back to text, and the wrapper fixes the value formats:
 * - TIMESTAMP / TIMESTAMPTZ: `yyyy-MM-dd HH:mm:ss`, with `.SSS` when the value has milliseconds,
 *   TIMESTAMPTZ in the project's time zone (the connection's);
 * - BIGINT and wider integers: exact (CSV: the digits; JSON: a number within +-2^53-1, else text);
 * - lists, structs and maps: JSON (in CSV, the JSON text in one field);
 * - DOUBLE NaN and infinities: text in JSON (JSON has no such numbers);
 * - NULL: an empty CSV field, JSON null.
 */

export type SqlFormat = 'csv' | 'json'

export interface OutColumn {
  name: string
  type: DuckDBType
}

const T = DuckDBTypeId
const STAMPS = new Set<number>([T.TIMESTAMP, T.TIMESTAMP_S, T.TIMESTAMP_MS, T.TIMESTAMP_NS, T.TIMESTAMP_TZ])
const NESTED = new Set<number>([T.LIST, T.ARRAY, T.STRUCT, T.MAP])
const WIDE_INTEGERS = new Set<number>([T.BIGINT, T.UBIGINT, T.HUGEINT, T.UHUGEINT])
const FLOATS = new Set<number>([T.FLOAT, T.DOUBLE])
/** Types JSON carries as they are. */
const JSON_NATIVE = new Set<number>([T.BOOLEAN, T.TINYINT, T.SMALLINT, T.INTEGER, T.UTINYINT, T.USMALLINT, T.UINTEGER, T.DECIMAL, T.VARCHAR, T.SQLNULL, ...NESTED])
/** Types whose text never holds a comma, quote or line break, so a CSV field needs no quotes. */
const CSV_PLAIN = new Set<number>([
  T.BOOLEAN, T.TINYINT, T.SMALLINT, T.INTEGER, T.BIGINT, T.UTINYINT, T.USMALLINT, T.UINTEGER, T.UBIGINT, T.HUGEINT, T.UHUGEINT,
  T.FLOAT, T.DOUBLE, T.DECIMAL, T.DATE, T.TIME, T.UUID, T.SQLNULL, ...STAMPS,
])
const MAX_SAFE = '9007199254740991'

/** A timestamp's SQL as every export writes it (the session's time zone for TIMESTAMPTZ). */
export function stamp(c: string): string {
  return `CASE WHEN NOT isfinite(${c}) THEN CAST(${c} AS VARCHAR)
    WHEN date_part('millisecond', ${c}) % 1000 = 0 THEN strftime(${c}, '%Y-%m-%d %H:%M:%S')
    ELSE strftime(${c}, '%Y-%m-%d %H:%M:%S.%g') END`
}

/** The value as text (NULL stays NULL). */
function asText(c: string, type: DuckDBType): string {
  if (STAMPS.has(type.typeId)) return stamp(c)
  if (NESTED.has(type.typeId)) return `CAST(to_json(${c}) AS VARCHAR)`
  return `CAST(${c} AS VARCHAR)`
}

/** The value as json_object takes it: JSON values are embedded, others converted. */
function asJson(c: string, type: DuckDBType): string {
  const id = type.typeId
  if (type.alias === 'JSON') return `CAST(${c} AS JSON)`
  if (WIDE_INTEGERS.has(id)) return `CASE WHEN ${c} BETWEEN -${MAX_SAFE} AND ${MAX_SAFE} THEN to_json(${c}) ELSE to_json(CAST(${c} AS VARCHAR)) END`
  if (FLOATS.has(id)) return `CASE WHEN isfinite(${c}) THEN to_json(${c}) ELSE to_json(CAST(${c} AS VARCHAR)) END`
  if (JSON_NATIVE.has(id)) return c
  return asText(c, type)
}

/** An RFC 4180 field: quoted (quotes doubled) when it holds a comma, a quote or a line break. */
function csvField(c: string, type: DuckDBType): string {
  if (CSV_PLAIN.has(type.typeId)) return `coalesce(${c}, '')`
  return `CASE WHEN ${c} IS NULL THEN '' WHEN regexp_matches(${c}, '[",\\r\\n]') THEN concat('"', replace(${c}, '"', '""'), '"') ELSE ${c} END`
}

/** JSON keys: the column names, a repeated name made unique with _1, _2, ... */
export function jsonKeys(columns: OutColumn[]): string[] {
  const used = new Set<string>()
  return columns.map(({ name }) => {
    let key = name
    for (let k = 1; used.has(key); k++) key = `${name}_${k}`
    used.add(key)
    return key
  })
}

/** The CSV header line's fields. */
export function csvHeader(columns: OutColumn[]): string {
  return columns.map(({ name }) => csvText(name)).join(',')
}

/**
 * The query that yields one VARCHAR `line` per row of `inner` (a checked SELECT), with the bound
 * values it needs (the JSON keys). Column names reach SQL only as bound values; the columns are
 * referred to by position (c1, c2, ...). Row order is the inner query's.
 */
export function renderQuery(inner: string, columns: OutColumn[], format: SqlFormat): { sql: string; values: string[] } {
  const names = columns.map((_, i) => `c${i + 1}`)
  const source = `(\n${inner}\n) AS q(${names.join(', ')})`
  if (format === 'json') {
    const pairs = names.map((c, i) => `$${i + 1}::VARCHAR, ${asJson(c, columns[i].type)}`)
    return { sql: `SELECT CAST(json_object(${pairs.join(', ')}) AS VARCHAR) AS line FROM ${source}`, values: jsonKeys(columns) }
  }
  const texts = names.map((c, i) => `${asText(c, columns[i].type)} AS ${c}`)
  const fields = names.map((c, i) => csvField(c, columns[i].type))
  return { sql: `SELECT concat(${fields.join(", ',', ")}) AS line FROM (SELECT ${texts.join(', ')} FROM ${source}) AS t`, values: [] }
}
