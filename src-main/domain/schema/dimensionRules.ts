import { badParam } from '../errors'
import { isDataType, SCHEMA_ID, type DataType } from './types'

/**
 * The rules of dimension tables (spec 2.5, 4.8, part 8): names, columns, relation fields and row
 * values. Pure checks: nothing here touches a store, so a request that breaks a rule writes nothing.
 */

/** Limits: the spec's (showName, remark, ids) and this product's where the spec says "not shown". */
export const DIMENSION_LIMITS = {
  /** Relation (join) fields per table: a lookup key wider than five fields is a modelling mistake. */
  relations: 5,
  /** Rows per create or update request; the 10 MB body limit usually binds first. */
  rowsPerRequest: 100_000,
  /** Columns per table, the same ceiling as properties per record. */
  columns: 300,
  text: 200,
} as const

/**
 * DuckDB's reserved keywords (`duckdb_keywords()` where category is reserved). A dimension table is
 * queried by its plain name in custom SQL, where such a word would have to be quoted; refusing it
 * up front is kinder than an SQL error later.
 */
const RESERVED_WORDS = new Set(
  ('all analyse analyze and any array as asc asymmetric both case cast check collate column constraint create default ' +
    'deferrable desc describe distinct do else end except false fetch for foreign from group having in initially ' +
    'intersect into lambda lateral leading limit not null offset on only or order pivot pivot_longer pivot_wider ' +
    'placing primary qualify references returning select show some summarize symmetric table then to trailing true ' +
    'union unique unpivot using variadic when where window with').split(' '),
)

/** Tables the warehouse has or keeps for itself, and the catalog's own names. */
const WAREHOUSE_TABLES = new Set(['event_vd', 'profile_vd', 'user_ids', 'user_aliases', 'distinct_ids', 'cohort_users', 'cohort_members', 'main', 'temp', 'system', 'information_schema'])
// cohort_<code> and tag_<code> hold cohort members and tag values (domain/cohorts, domain/tags)
const WAREHOUSE_PATTERN = /^(duckdb|sqlite|pg|uba|information|cohort|tag)_|_vd$/

export const NAME_RULE = 'letters, digits and underscore, not starting with a digit, at most 100 characters'

/**
 * A table or column name as stored: DuckDB names are case-insensitive, so names are folded to
 * lower case (as property ids are) and `Users` and `users` are one table.
 */
function foldName(raw: string, param: string, what: 'table' | 'column'): string {
  if (!SCHEMA_ID.test(raw)) throw badParam(param, `${param}: ${NAME_RULE}`)
  const name = raw.toLowerCase()
  if (RESERVED_WORDS.has(name)) throw badParam(param, `${param}: ${raw} is a reserved word of the SQL dialect`)
  if (what === 'column' && name === 'rowid') throw badParam(param, `${param}: rowid is reserved by the warehouse`)
  return name
}

export function tableName(raw: string): string {
  const name = foldName(raw, 'table', 'table')
  if (WAREHOUSE_TABLES.has(name) || WAREHOUSE_PATTERN.test(name)) {
    throw badParam('table', `table: ${raw} is a name the warehouse keeps for its own tables`)
  }
  return name
}

/** The `columns` map: folded names, each with a known data type, in the order given. */
export function parseColumns(columns: Record<string, unknown>): Map<string, DataType> {
  const out = new Map<string, DataType>()
  for (const [raw, type] of Object.entries(columns)) {
    const param = `columns.${raw}`
    const id = foldName(raw, param, 'column')
    if (out.has(id)) throw badParam(param, `${param}: column ${id} is given twice (names are case-insensitive)`)
    if (!isDataType(type)) throw badParam(param, `${param} must be one of string, number, boolean, datetime, array<string>`)
    out.set(id, type)
  }
  if (out.size === 0) throw badParam('columns', 'columns must define at least one column')
  if (out.size > DIMENSION_LIMITS.columns) throw badParam('columns', `a dimension table has at most ${DIMENSION_LIMITS.columns} columns`)
  return out
}

/**
 * The relation fields of a new table. Each must be a column of the table and not an array (a
 * join key is one value). Without `relations`, the first column is the relation field, since a
 * dimension table has at least one (spec 2.5).
 */
export function parseRelations(relations: string[] | undefined, columns: Map<string, DataType>): string[] {
  if (relations === undefined) return [columns.keys().next().value as string]
  if (relations.length === 0) throw badParam('relations', 'relations must name at least one relation field')
  if (relations.length > DIMENSION_LIMITS.relations) throw badParam('relations', `a dimension table has at most ${DIMENSION_LIMITS.relations} relation fields`)
  const out: string[] = []
  relations.forEach((raw, i) => {
    const param = `relations[${i}]`
    const id = foldName(raw, param, 'column')
    const type = columns.get(id)
    if (!type) throw badParam(param, `${param}: relation field ${raw} is not defined in columns`)
    if (type === 'array<string>') throw badParam(param, `${param}: relation field ${raw} cannot be an array<string>`)
    if (out.includes(id)) throw badParam(param, `${param}: relation field ${raw} is given twice`)
    out.push(id)
  })
  return out
}

/**
 * A value ready for the warehouse: a datetime is its microseconds since 1970-01-01 00:00:00 (the
 * wall-clock time as given, no time-zone shift). `undefined` in a row: the row did not give it.
 */
export type DimensionValue = string | number | boolean | string[] | bigint | null

const DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2})(?:\.(\d{3}))?)?$/

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28
  return [4, 6, 9, 11].includes(month) ? 30 : 31
}

/** Days since 1970-01-01 of a proleptic Gregorian date, exact for every year (H. Hinnant's algorithm). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468
}

/** yyyy-MM-dd HH:mm:ss.SSS, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd, as a real calendar moment in microseconds. */
export function parseDatetime(text: string): bigint | null {
  const m = DATETIME.exec(text)
  if (!m) return null
  const [year, month, day, hour, min, sec, ms] = m.slice(1).map((p) => (p === undefined ? 0 : Number(p)))
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null
  if (hour > 23 || min > 59 || sec > 59) return null
  const seconds = daysFromCivil(year, month, day) * 86_400 + hour * 3600 + min * 60 + sec
  return BigInt(seconds) * 1_000_000n + BigInt(ms * 1000)
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 40 ? `${text.slice(0, 40)}...` : text
}

const TYPE_RULES: Record<DataType, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  datetime: 'a datetime written yyyy-MM-dd HH:mm:ss.SSS, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd',
  'array<string>': 'an array of strings',
}

/**
 * Checks one value against its column's type; never coerces ("12" is not a number, 1 not a
 * boolean). Returns undefined for a value that does not fit. Datetimes seen before come from `dates`.
 */
function valueOf(value: unknown, type: DataType, dates: Map<string, bigint>): DimensionValue | undefined {
  if (value === null) return null
  switch (type) {
    case 'string':
      return typeof value === 'string' ? value : undefined
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined
    case 'datetime': {
      if (typeof value !== 'string') return undefined
      let micros = dates.get(value)
      if (micros === undefined) {
        micros = parseDatetime(value) ?? undefined
        if (micros !== undefined) dates.set(value, micros)
      }
      return micros
    }
    case 'array<string>':
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : undefined
  }
}

/** The rows of one request, aligned on `columns`, one per relation key. */
export interface PreparedRows {
  columns: string[]
  rows: (DimensionValue | undefined)[][]
}

function keyPart(value: DimensionValue | undefined): string {
  return typeof value === 'string' ? value : typeof value === 'bigint' ? `${value}` : JSON.stringify(value)
}

/**
 * Checks every row and merges rows that share a relation key, in order: a later row's values win
 * for the columns it gives, so each key is loaded once (a dimension table is a lookup by its key).
 */
export function prepareRows(rows: Record<string, unknown>[], columns: Map<string, DataType>, relations: string[]): PreparedRows {
  const ids = [...columns.keys()]
  const types = [...columns.values()]
  // raw key as written in rows -> column index (names are case-insensitive)
  const indexOf = new Map<string, number>(ids.map((id, i) => [id, i]))
  const relationIndex = relations.map((r) => indexOf.get(r) as number)
  const dates = new Map<string, bigint>()
  const byKey = new Map<string, (DimensionValue | undefined)[]>()
  rows.forEach((row, i) => {
    const values: (DimensionValue | undefined)[] = new Array(ids.length)
    for (const raw in row) {
      let at = indexOf.get(raw)
      if (at === undefined) {
        at = indexOf.get(raw.toLowerCase())
        if (at === undefined) throw badParam(`rows[${i}].${raw}`, `rows[${i}].${raw}: column ${raw} is not defined in columns`)
        indexOf.set(raw, at)
      }
      if (values[at] !== undefined) throw badParam(`rows[${i}].${raw}`, `rows[${i}].${raw}: column ${ids[at]} is given twice in one row`)
      const value = valueOf(row[raw], types[at], dates)
      if (value === undefined) throw badParam(`rows[${i}].${raw}`, `rows[${i}].${raw} must be ${TYPE_RULES[types[at]]}, got ${shown(row[raw])}`)
      values[at] = value
    }
    const parts = relationIndex.map((at, r) => {
      const v = values[at]
      if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) {
        throw badParam(`rows[${i}].${relations[r]}`, `rows[${i}].${relations[r]}: the relation field must not be empty`)
      }
      return keyPart(v)
    })
    const key = parts.length === 1 ? parts[0] : JSON.stringify(parts)
    const earlier = byKey.get(key)
    if (!earlier) byKey.set(key, values)
    else values.forEach((v, at) => v !== undefined && (earlier[at] = v))
  })
  return { columns: ids, rows: [...byKey.values()] }
}
