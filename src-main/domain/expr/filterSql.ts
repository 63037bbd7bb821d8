import type { ColumnRef, Dialect, SqlParams } from '../../warehouse/dialect'
import type { TimeUnit } from '../../warehouse/parts/time'
import type { DataType } from '../schema/types'
import type { CheckedCondition, CheckedFilter } from './filters'

/**
 * Checked filters (expr/filters.ts) to SQL, printed by the dialect. Event properties are read from
 * the event row `e`, user properties from the profile row `u`; a property the plan knows but no
 * data has filled yet has no column, and reads as NULL of its type.
 */
export interface Columns {
  event: Set<string>
  user: Set<string>
}

/** What expressions are printed with: the engine's SQL, the columns that exist, the current local time (SQL). */
export interface ExprScope {
  dialect: Dialect
  columns: Columns
  nowLocal: string
}

/** The users' ids are columns of the event row itself; other user properties are profile columns. */
function onEventRow(ref: CheckedCondition['ref']): boolean {
  return ref.kind === 'user' && (ref.propertyId === 'xwho' || ref.propertyId === 'distinct_id')
}

/** The column a property reference reads: the one rule from a property to its place in the warehouse. */
export function propertyColumn(ref: CheckedCondition['ref'], type: DataType, columns: Columns): ColumnRef {
  if (ref.kind === 'event') return { table: 'event_vd', row: 'e', column: columns.event.has(ref.propertyId) ? ref.propertyId : null, type }
  if (onEventRow(ref)) return { table: 'event_vd', row: 'e', column: ref.propertyId, type, base: true }
  return { table: 'profile_vd', row: 'u', column: columns.user.has(ref.propertyId) ? ref.propertyId : null, type }
}

/** Whether a filter reads user properties (the query then joins profile_vd as `u`). */
export function needsProfile(filter: CheckedFilter | undefined): boolean {
  return !!filter?.conditions.some((c) => c.ref.kind === 'user' && !onEventRow(c.ref))
}

/** One condition as SQL; `nowLocal` is the current local time (a SQL expression). */
export function conditionSql(c: CheckedCondition, scope: ExprScope, p: SqlParams): string {
  const { dialect: d, nowLocal } = scope
  const col = d.columnOf(propertyColumn(c.ref, c.dataType, scope.columns))
  const values = c.params
  const units = (n: number, unit: string) => d.interval(p.add(n), unit as TimeUnit)
  const containsAny = (x: string) => values.map((v) => d.contains(x, p.add(v))).join(' OR ')
  switch (`${c.dataType}:${c.function}`) {
    case 'string:EQ':
    case 'number:EQ':
      return `${col} IN (${p.list(values)})`
    case 'string:NOT_EQ':
    case 'number:NOT_EQ':
      return `(${col} IS NOT NULL AND ${col} NOT IN (${p.list(values)}))`
    case 'string:CONTAIN':
      return `(${containsAny(col)})`
    case 'string:NOT_CONTAIN':
      return `(${col} IS NOT NULL AND NOT (${containsAny(col)}))`
    case 'number:GT':
      return `${col} > ${p.add(values[0])}`
    case 'number:GTE':
      return `${col} >= ${p.add(values[0])}`
    case 'number:LT':
      return `${col} < ${p.add(values[0])}`
    case 'number:LTE':
      return `${col} <= ${p.add(values[0])}`
    case 'number:RANGE':
      return `${col} BETWEEN ${p.add(values[0])} AND ${p.add(values[1])}`
    case 'boolean:TRUE':
      return `${col} = ${d.truth(true)}`
    case 'boolean:FALSE':
      return `${col} = ${d.truth(false)}`
    case 'datetime:ABSOLUTE_TIME':
      return `${col} BETWEEN ${d.parseStamp(p, String(values[0]))} AND ${d.parseStamp(p, String(values[1]))}`
    case 'datetime:RELATIVE_TIME_OF_CUURENT':
    case 'datetime:RELATIVE_TIME_OF_EVENT': {
      // the event's own time, as a local time of the project (the session time zone)
      const anchor = c.function === 'RELATIVE_TIME_OF_EVENT' ? d.localTime('e.xwhen') : nowLocal
      const since = `(${anchor} - ${units(Number(values[0]), String(values[1]))})`
      return values[2] === 'within' ? `(${col} >= ${since} AND ${col} <= ${anchor})` : `${col} < ${since}`
    }
    case 'datetime:RELATIVE_TIME_RANGE_CUURENT': {
      const unit = String(values[2])
      const start = d.periodStart(unit as TimeUnit, nowLocal)
      return `(${col} >= ${start} - ${units(Number(values[0]), unit)} AND ${col} < ${start} - ${units(Number(values[1]) - 1, unit)})`
    }
    case 'array<string>:EQ':
      return d.hasAny(col, d.list(values.map((v) => p.add(v))))
    case 'array<string>:CONTAIN':
      return d.some(col, containsAny)
    case 'array<string>:NOT_CONTAIN':
      return `(${d.listMissing(col, false)} AND NOT COALESCE(${d.some(col, containsAny)}, ${d.truth(false)}))`
    default:
      if (c.dataType === 'array<string>' && (c.function === 'NULL' || c.function === 'NOT_NULL')) return d.listMissing(col, c.function === 'NULL')
      if (c.function === 'NULL') return `${col} IS NULL`
      if (c.function === 'NOT_NULL') return `${col} IS NOT NULL`
      throw new Error(`no SQL for ${c.dataType} ${c.function}`)
  }
}

/** A whole filter as SQL (`true` for none). */
export function filterSql(filter: CheckedFilter | undefined, scope: ExprScope, p: SqlParams): string {
  if (!filter || filter.conditions.length === 0) return scope.dialect.truth(true)
  const parts = filter.conditions.map((c) => `(${conditionSql(c, scope, p)})`)
  return `(${parts.join(filter.relation === 'OR' ? ' OR ' : ' AND ')})`
}
