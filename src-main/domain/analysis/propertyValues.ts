import type { Warehouse } from '../../warehouse'
import { dialectOf, type DomainContext } from '../context'
import { badParam } from '../errors'
import { needsProfile, propertyColumn, type Columns } from '../expr/filterSql'
import { eventSql, resolveEvent } from '../expr/eventRefs'
import type { Dialect, SqlParams } from '../../warehouse/dialect'
import { parsePropertyExpression } from '../expr/filters'
import { maskedEventProperties, maskedUserProperties, plannedValue, shownValue } from '../schema/shownValues'
import { currentTime } from '../time/clock'
import type { PropertyRef } from '../schema/lookup'
import type { ProjectScope } from '../project/scope'
import { propertyColumns } from '../schema/columns'
import { planLookup } from '../schema/lookup'
import type { DataType } from '../schema/types'

/**
 * The most frequent values of a property, for the filter and cohort-rule editors to offer: an
 * event property (of one event, a virtual event's members, or `$Anything`) counted in events, a
 * user property counted in users. A large table is read in a sample of its blocks (DuckDB's system
 * sampling skips the rest), so the answer stays quick on any project; a scope too rare to show in
 * the sample is read again in a ten times larger one, up to the whole table.
 */

/** About this many rows of the table are read first. */
export const SAMPLE_ROWS = 100_000
/** Fewer rows of the scope than this in a sample: read a larger one. */
const ENOUGH_ROWS = 1_000
export const LIMIT_MAX = 200

export interface PropertyValuesQuery {
  expression: string
  search?: string
  limit?: number
}

export interface PropertyValues {
  expression: string
  dataType: DataType
  masked: boolean
  values: { value: string | number | boolean; count: number }[]
  /** More values match than are listed. */
  more: boolean
  /** Rows of the scope read: events (event property) or users (user property). */
  rows: number
  /** Of them, rows without a value. */
  nulls: number
  sampled: boolean
  /** Share of the table read (1: all of it; 0: nothing, a masked property). */
  fraction: number
}

interface Source {
  table: 'event_vd' | 'profile_vd'
  /** The property as SQL over the row `e` (events) or `u` (profiles). */
  value: string
  /** Rows of the scope, as SQL (bound values in `params`). */
  where: string
  join: string
}

function sourceOf(ctx: DomainContext, scope: ProjectScope, ref: PropertyRef, dataType: DataType, columns: Columns, p: SqlParams): Source {
  if (ref.kind === 'user') {
    // profile_vd is read as `e` here
    const base = ref.propertyId === 'xwho' || ref.propertyId === 'distinct_id'
    const value = dialectOf(ctx, scope).columnOf({ table: 'profile_vd', row: 'e', column: base || columns.user.has(ref.propertyId) ? ref.propertyId : null, type: dataType, base })
    return { table: 'profile_vd', value, where: dialectOf(ctx, scope).truth(true), join: '' }
  }
  const lookup = planLookup(ctx.meta, scope.appKey)
  const event = resolveEvent(ctx.meta, scope.appKey, `event.${ref.eventId}`, 'expression', lookup)
  const where = eventSql(event, { dialect: dialectOf(ctx, scope), columns, nowLocal: dialectOf(ctx, scope).localNow(currentTime()) }, p)
  const profile = event.members.some((m) => needsProfile(m.filter))
  const value = dialectOf(ctx, scope).columnOf(propertyColumn(ref, dataType, columns))
  return { table: 'event_vd', value, where, join: profile ? 'LEFT JOIN profile_vd u ON u.distinct_id = e.distinct_id' : '' }
}

/**
 * The rows read (the dialect's `valueCounts`): a first row (whole = 1) holding the scope's row count
 * (before a list is unnested), present even when nothing matches the search; then each value (a
 * list gives each distinct element once per row; a missing or empty list one NULL), the NULL group
 * first, then the top values matching the search: count down, value up.
 */
function valuesSql(src: Source, dataType: DataType, percent: number, search: string | undefined, limit: number, p: SqlParams, d: Dialect): string {
  const list = dataType === 'array<string>'
  // the text a user sees of a value (a list's elements are strings)
  const text = d.asText('v', list ? 'string' : dataType)
  return d.valueCounts({
    value: src.value,
    from: `${src.table} AS e${d.tableSample(percent)} ${src.join} WHERE ${src.where}`,
    spread: list ? d.unnest(d.orNullElement(d.distinctElements('x'))) : 'x',
    match: search ? d.contains(`lower(${text})`, `lower(${p.add(search)})`) : '',
    limit: limit + 3,
  })
}

async function read(conn: Warehouse, sql: string, p: SqlParams): Promise<{ v: unknown; whole: boolean; n: number; total: number }[]> {
  const rows = await conn.query(sql, p.values, 'number')
  return rows.map((r) => ({ v: r.v, whole: Number(r.whole) === 1, n: Number(r.n), total: Number(r.total ?? 0) }))
}

function checkQuery(query: PropertyValuesQuery): { search?: string; limit: number } {
  const limit = query.limit ?? 50
  if (!Number.isInteger(limit) || limit < 1 || limit > LIMIT_MAX) throw badParam('limit', `limit must be a whole number from 1 to ${LIMIT_MAX}`)
  const search = query.search?.trim() || undefined
  return { search, limit }
}

/** GET /uba/api/meta/propertyValues: see the route's description. */
export async function propertyValues(ctx: DomainContext, scope: ProjectScope, query: PropertyValuesQuery): Promise<PropertyValues> {
  const { search, limit } = checkQuery(query)
  const ref = parsePropertyExpression(query.expression)
  if (!ref) throw badParam('expression', 'expression must be event.<eventId>.<propertyId> or user.<propertyId>')
  const dataType = planLookup(ctx.meta, scope.appKey)(ref)
  if (!dataType) throw badParam('expression', `expression: ${query.expression} is not a known property`)
  const expression = ref.kind === 'event' ? `event.${ref.eventId}.${ref.propertyId}` : `user.${ref.propertyId}`
  const masked = (ref.kind === 'user' ? maskedUserProperties(ctx.meta, scope.appKey) : maskedEventProperties(ctx.meta, scope.appKey)).has(ref.propertyId)
  const answer: PropertyValues = { expression, dataType, masked, values: [], more: false, rows: 0, nulls: 0, sampled: false, fraction: 0 }
  if (masked) {
    // an unknown event still answers 400, masked or not
    if (ref.kind === 'event') resolveEvent(ctx.meta, scope.appKey, `event.${ref.eventId}`, 'expression', planLookup(ctx.meta, scope.appKey))
    return answer
  }

  return ctx.warehouse.withConnection(scope.appKey, scope.timeZone, async (conn) => {
    const columns: Columns = {
      event: new Set((await propertyColumns(conn, 'event_vd')).keys()),
      user: new Set((await propertyColumns(conn, 'profile_vd')).keys()),
    }
    const table = ref.kind === 'user' ? 'profile_vd' : 'event_vd'
    const size = Number((await conn.rows(`SELECT count(*) FROM ${table}`))[0][0])
    let fraction = size <= SAMPLE_ROWS ? 1 : SAMPLE_ROWS / size
    // an engine without table samples (ClickHouse here) reads the whole table: say so
    if (dialectOf(ctx, scope).tableSample(fraction * 100) === '') fraction = 1
    for (;;) {
      const p = dialectOf(ctx, scope).params()
      const src = sourceOf(ctx, scope, ref, dataType, columns, p)
      const rows = await read(conn, valuesSql(src, dataType, fraction * 100, search, limit, p, dialectOf(ctx, scope)), p)
      const total = rows.find((r) => r.whole)?.total ?? 0
      if (total < ENOUGH_ROWS && fraction < 1) {
        fraction = Math.min(1, fraction * 10)
        continue
      }
      const groups = rows.filter((r) => !r.whole)
      const present = groups.filter((r) => r.v !== null && r.v !== undefined)
      return {
        ...answer,
        values: present.slice(0, limit).map((r) => ({ value: shownValue(plannedValue(r.v, dataType === 'array<string>' ? 'string' : dataType), false) as string | number | boolean, count: r.n })),
        more: present.length > limit,
        rows: total,
        nulls: groups.find((r) => r.v === null || r.v === undefined)?.n ?? 0,
        sampled: fraction < 1,
        fraction,
      }
    }
  })
}
