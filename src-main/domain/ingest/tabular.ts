import type { Warehouse } from '../../warehouse'
import type { CellKind } from '../../warehouse/parts/typedReads'
import { badParam } from '../errors'
import { isDataType, type DataType } from '../schema/types'
import { eventCol, identityChecks, problemCase, propertyChecks, propertyIdOf, RESERVED_IDS, userCol, type PropertyPlan } from './norm'
import { ident, insertionOrder, literal, unordered } from './sql'
import { firstValues, inferText, type Decimal } from './infer'
import { stopIfInterrupted } from './streamed'

/**
 * Tabular files (CSV, TSV, Parquet, Excel) from `stage_rows` into `norm`, through a mapping of
 * columns to the user, the event and the time. Every other column becomes a property.
 */

export type Kind = 'events' | 'profiles'

export interface Mapping {
  /** Column holding the user id. */
  xwho?: string
  /** Column holding the event id ... */
  xwhat?: string
  /** ... or one event id for the whole file. */
  event?: string
  /** Column holding the time. */
  xwhen?: string
  /** Column -> property id (a rename), or null to leave the column out. */
  properties?: Record<string, string | null>
  /** Property id -> data type, for properties the plan does not know yet (instead of inference). */
  types?: Record<string, DataType>
}

const GUESSES = {
  xwho: ['xwho', 'user_id', 'userid', 'user', 'uid', 'distinct_id', 'account_id', 'customer_id'],
  xwhat: ['xwhat', 'event', 'event_id', 'event_name', 'eventname', 'action', 'event_type'],
  xwhen: ['xwhen', 'time', 'timestamp', 'event_time', 'eventtime', 'ts', 'datetime', 'date', 'created_at', 'occurred_at'],
}

/** Latin letters that decomposing does not reduce to a-z. */
const LETTERS: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', ł: 'l', þ: 'th', ı: 'i' }

/**
 * A property id for a column header: lower case, accented letters without their accents (Größe:
 * grosse), other characters as _, never a digit first.
 */
export function propertyIdForColumn(header: string): string {
  const text = header.trim().toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[ßæœøđðłþı]/g, (c) => LETTERS[c])
  const lead = text.startsWith('$') ? '$' : ''
  let body = text.slice(lead.length).replace(/[^a-z0-9_]+/g, '_').replace(/_+/g, '_').replace(/^_|_$/g, '')
  if (body === '') body = 'column'
  if (/^[0-9]/.test(body)) body = `_${body}`
  return (lead + body).slice(0, 125)
}

/** The mapping a user would most likely choose, from the header. */
export function guessMapping(header: string[], kind: Kind): Mapping {
  const find = (names: string[]) => header.find((h) => names.includes(h.toLowerCase().replace(/[\s-]+/g, '_')))
  const mapping: Mapping = { xwho: find(GUESSES.xwho) }
  if (kind === 'events') {
    mapping.xwhat = find(GUESSES.xwhat)
    mapping.xwhen = find(GUESSES.xwhen)
  }
  return mapping
}

interface ColumnPlan {
  column: string
  id: string
}

/** Checks the mapping against the header and decides each remaining column's property id. */
export function planColumns(header: string[], mapping: Mapping, kind: Kind): ColumnPlan[] {
  const need: (keyof Mapping)[] = kind === 'events' ? ['xwho', 'xwhen'] : ['xwho']
  for (const key of need) {
    const col = mapping[key] as string | undefined
    if (!col) throw badParam(`mapping.${key}`, `mapping.${key} must name the column that holds ${key === 'xwho' ? 'the user id' : 'the time'}`)
  }
  if (kind === 'events' && !mapping.xwhat === !mapping.event) throw badParam('mapping.xwhat', 'give either mapping.xwhat (a column holding the event id) or mapping.event (one event id for every row)')
  if (mapping.event !== undefined && !/^[A-Za-z$][A-Za-z0-9_$]{0,98}$/.test(mapping.event)) throw badParam('mapping.event', 'an event id starts with a letter or $ and holds at most 99 letters, digits, _ and $')
  for (const key of ['xwho', 'xwhat', 'xwhen'] as const) {
    const col = mapping[key]
    if (col !== undefined && !header.includes(col)) throw badParam(`mapping.${key}`, `the file has no column ${col}; it has ${header.join(', ')}`)
  }
  for (const col of Object.keys(mapping.properties ?? {})) {
    if (!header.includes(col)) throw badParam(`mapping.properties.${col}`, `the file has no column ${col}`)
  }
  const used = new Set([mapping.xwho, mapping.xwhat, mapping.xwhen].filter(Boolean))
  const plans: ColumnPlan[] = []
  const seen = new Map<string, string>()
  for (const column of header) {
    if (used.has(column)) continue
    const rename = mapping.properties?.[column]
    if (rename === null) continue
    const id = rename === undefined ? propertyIdForColumn(column) : propertyIdOf(rename)
    if (id === null) throw badParam(`mapping.properties.${column}`, `${rename} cannot be a property id: letters, digits and _ (optionally after $), not a digit first, at most 125`)
    if (RESERVED_IDS.includes(id)) throw badParam(`mapping.properties.${column}`, `column ${column} would become the reserved id ${id}: rename it in mapping.properties or leave it out with null`)
    const other = seen.get(id)
    if (other !== undefined) throw badParam(`mapping.properties.${column}`, `columns ${other} and ${column} would both become property ${id}: rename one in mapping.properties`)
    seen.set(id, column)
    plans.push({ column, id })
  }
  for (const [id, type] of Object.entries(mapping.types ?? {})) {
    if (!isDataType(type)) throw badParam(`mapping.types.${id}`, 'a type is one of string, number, boolean, datetime, array<string>')
  }
  return plans
}

/** Rows the first values are looked for in; a column empty there is looked for in the whole file. */
const HEAD_ROWS = 10_000

/**
 * Types of new columns, from their first values (see infer.ts): those among the first HEAD_ROWS
 * rows, or in the whole file for a column empty there; null for a column with none. One pass over
 * the head for every column, one over the file for the empty ones. A streamed stage (a view over
 * the file, stage.ts) has no rowid: the rows looked at are copied into a table first, in file
 * order, the whole file only for the columns empty in the head.
 */
async function inferColumns(conn: Warehouse, columns: ColumnPlan[], decimal: Decimal, streamed: boolean): Promise<Map<string, DataType | null>> {
  const present = "v IS NOT NULL AND v <> ''"
  const cells = (some: ColumnPlan[]) => some.map((c) => conn.dialect.cast(ident(c.column), 'string'))
  const numbered = async (name: string, some: ColumnPlan[], limit: string) => {
    const place = conn.dialect.storedOrder('stage_rows')
    if (!streamed) return `(SELECT ${place} AS __uba_r, * FROM stage_rows ${limit === '' ? '' : `WHERE ${place} < ${HEAD_ROWS}`})`
    await insertionOrder(conn, true, () => conn.run(conn.dialect.tempTableAs(name, `SELECT ${some.map((c) => ident(c.column)).join(', ')} FROM stage_rows ${limit}`)))
    return `(SELECT ${conn.dialect.storedOrder(name)} AS __uba_r, * FROM ${name})`
  }
  if (columns.length === 0) return new Map()
  const head = await firstValues(conn, await numbered('stage_head', columns, `LIMIT ${HEAD_ROWS}`), cells(columns), present)
  const empty = columns.filter((_, i) => head[i].length === 0)
  const whole = empty.length === 0 ? [] : await firstValues(conn, await numbered('stage_sparse', empty, ''), cells(empty), present)
  if (streamed) for (const t of ['stage_head', 'stage_sparse']) await conn.run(`DROP TABLE IF EXISTS ${t}`)
  const values = new Map(columns.map((c, i) => [c.id, head[i]]))
  empty.forEach((c, i) => values.set(c.id, whole[i]))
  return new Map(columns.map((c) => [c.id, inferText(values.get(c.id)!, decimal)]))
}

/**
 * Builds `norm` from `stage_rows`; resolves to the properties the load writes. Three projections,
 * so that each value is computed once: the identity and typed values from the cells, then the
 * local day from the time (see localDate.ts), then the checks over the computed values (a check's
 * value text is evaluated only for a record it rejects).
 */
export async function normalizeRows(conn: Warehouse, header: string[], mapping: Mapping, kind: Kind, known: Map<string, DataType>, decimal: Decimal = '.', stream?: StreamedRows): Promise<PropertyPlan[]> {
  const columns = planColumns(header, mapping, kind)
  const fresh = columns.filter((c) => !known.has(c.id) && !mapping.types?.[c.id])
  const inferred = await inferColumns(conn, fresh, decimal, stream !== undefined)
  const cellOf = (column: string): CellKind => stream?.cells.get(column) ?? 'text'
  const plans: PropertyPlan[] = []
  for (const c of columns) {
    const type = known.get(c.id) ?? mapping.types?.[c.id] ?? inferred.get(c.id)
    if (!type) continue // a column with no values reports nothing
    const raw = ident(c.column)
    plans.push({ id: c.id, type, isNew: !known.has(c.id), read: conn.dialect.fromCell(raw, cellOf(c.column), type, decimal), rawText: conn.dialect.cellText(raw, cellOf(c.column)) })
  }
  const text = (column: string) => conn.dialect.cellText(ident(column), cellOf(column))
  const xwho = mapping.xwho ? `NULLIF(trim(${text(mapping.xwho)}), '')` : 'NULL'
  const xwhat = kind === 'profiles' ? literal('$profile_set') : mapping.event ? literal(mapping.event) : text(mapping.xwhat!)
  const xwhenRaw = kind === 'profiles' ? 'NULL' : `trim(${text(mapping.xwhen!)})`
  const xwhen = kind === 'profiles' ? conn.dialect.loadTime() : conn.dialect.eventTimeOfCell(ident(mapping.xwhen!), cellOf(mapping.xwhen!))
  const col = kind === 'events' ? eventCol : userCol
  // inner names carry the __uba_ prefix: the staged cells keep their file headers beside them
  const value = (i: number) => `__uba_v${i}`
  const rows = stream?.rowsAbout ?? Number((await conn.rows('SELECT count(*) FROM stage_rows'))[0][0])
  const localDate = await conn.localDateSql(rows)
  const checks = [...identityChecks(conn.dialect, '__uba_xwho', '__uba_xwhat', '__uba_xwhen', xwhenRaw, 'plan'), ...plans.flatMap((p, i) => propertyChecks(conn.dialect, p, value(i)))]
  // the same for every row of a tabular file: a streamed import's view adds them instead of storing them per row
  const constants = `${kind === 'profiles'} AS is_profile, ${kind === 'profiles' ? "'$profile_set'" : 'NULL'} AS op, false AS debug, ${conn.dialect.nullOf('string')} AS platform, `
  const cellsOf = (row: string, stored = true) => `SELECT ${row}${stored ? constants : ''}
             __uba_xwho AS xwho, __uba_xwhat AS xwhat, __uba_xwhen AS xwhen, ${conn.dialect.dayOfDate('__uba_date')} AS ds
             ${plans.map((p, i) => `, ${value(i)} AS ${col(p.id)}`).join('')}
             , ${problemCase(conn.dialect, checks)} AS _problem
      FROM (SELECT *, ${localDate('__uba_xwhen')} AS __uba_date
            FROM (SELECT *, ${row === '' ? '' : `${conn.dialect.storedOrder('stage_rows')} + 1 AS __uba_row, `}${xwho} AS __uba_xwho, CAST(${xwhat} AS VARCHAR) AS __uba_xwhat, ${xwhen} AS __uba_xwhen
                         ${plans.map((p, i) => `, ${p.read.value} AS ${value(i)}`).join('')}
                  FROM stage_rows))`
  stopIfInterrupted(conn)
  if (stream) {
    // no rowid to number the rows by: written in file order, a row's place in norm_cells is its number
    // (storing the constant columns cost a 2M-row Parquet import about 0.15 s of CPU: null strings and flags per row)
    await insertionOrder(conn, true, () => conn.run(conn.dialect.tempTableAs('norm_cells', cellsOf('', false))))
    await conn.run(conn.dialect.tempViewAs('norm', `SELECT ${conn.dialect.storedOrder('norm_cells')} + 1 AS _row, ${constants}* FROM norm_cells`))
  } else {
    await unordered(conn, () => conn.run(conn.dialect.tempTableAs('norm', cellsOf('__uba_row AS _row, '))))
  }
  return plans
}

/** `stage_rows` is a view over the file (stage.ts `StagedFile.streamed`). */
export interface StreamedRows {
  /** About how many rows the file holds (from its size): only the way the local day is computed depends on it. */
  rowsAbout: number
  /** What the cells of each column hold (text when not listed): a Parquet file's numbers and flags stay as stored. */
  cells: Map<string, CellKind>
}
