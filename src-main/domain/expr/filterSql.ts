import type { CheckedCondition, CheckedFilter } from './filters'
import { column, DUCK_TYPES, type DataType } from '../schema/types'
import type { SqlParams } from '../../warehouse/dialect'

/**
 * Checked filters (expr/filters.ts) to SQL. Event properties are read from the event row `e`,
 * user properties from the profile row `u`; a property the plan knows but no data has filled yet
 * has no column, and reads as NULL of its type.
 */
export interface Columns {
  event: Set<string>
  user: Set<string>
}

export function propertySql(ref: CheckedCondition['ref'], type: DataType, columns: Columns): string {
  if (ref.kind === 'event') return columns.event.has(ref.propertyId) ? `e.${column(ref.propertyId)}` : `NULL::${DUCK_TYPES[type]}`
  if (ref.propertyId === 'xwho' || ref.propertyId === 'distinct_id') return `e.${ref.propertyId}`
  return columns.user.has(ref.propertyId) ? `u.${column(ref.propertyId)}` : `NULL::${DUCK_TYPES[type]}`
}

/** Whether a filter reads user properties (the query then joins profile_vd as `u`). */
export function needsProfile(filter: CheckedFilter | undefined): boolean {
  return !!filter?.conditions.some((c) => c.ref.kind === 'user' && c.ref.propertyId !== 'xwho' && c.ref.propertyId !== 'distinct_id')
}

const UNIT_SQL: Record<string, string> = { minute: 'MINUTE', hour: 'HOUR', day: 'DAY', week: 'WEEK', month: 'MONTH' }

/** n units as an INTERVAL, n bound. */
function units(p: SqlParams, n: number, unit: string): string {
  return `to_${unit}s(CAST(${p.add(n)} AS INTEGER))`
}

/** "yyyy/MM/dd HH:mm[:ss]" as a local TIMESTAMP. */
function localTime(p: SqlParams, text: string | number): string {
  const value = String(text)
  return `strptime(${p.add(value)}, ${p.add(value.length > 16 ? '%Y/%m/%d %H:%M:%S' : '%Y/%m/%d %H:%M')})`
}

/** One condition as SQL; `nowLocal` is the current local time (a SQL expression). */
export function conditionSql(c: CheckedCondition, columns: Columns, p: SqlParams, nowLocal: string): string {
  const col = propertySql(c.ref, c.dataType, columns)
  const values = c.params
  switch (`${c.dataType}:${c.function}`) {
    case 'string:EQ':
    case 'number:EQ':
      return `${col} IN (${p.list(values)})`
    case 'string:NOT_EQ':
    case 'number:NOT_EQ':
      return `(${col} IS NOT NULL AND ${col} NOT IN (${p.list(values)}))`
    case 'string:CONTAIN':
      return `(${values.map((v) => `contains(${col}, ${p.add(v)})`).join(' OR ')})`
    case 'string:NOT_CONTAIN':
      return `(${col} IS NOT NULL AND NOT (${values.map((v) => `contains(${col}, ${p.add(v)})`).join(' OR ')}))`
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
      return `${col} = true`
    case 'boolean:FALSE':
      return `${col} = false`
    case 'datetime:ABSOLUTE_TIME':
      return `${col} BETWEEN ${localTime(p, values[0])} AND ${localTime(p, values[1])}`
    case 'datetime:RELATIVE_TIME_OF_CUURENT':
    case 'datetime:RELATIVE_TIME_OF_EVENT': {
      // the event's own time, as a local time of the project (the session time zone)
      const anchor = c.function === 'RELATIVE_TIME_OF_EVENT' ? 'CAST(e.xwhen AS TIMESTAMP)' : nowLocal
      const since = `(${anchor} - ${units(p, Number(values[0]), String(values[1]))})`
      return values[2] === 'within' ? `(${col} >= ${since} AND ${col} <= ${anchor})` : `${col} < ${since}`
    }
    case 'datetime:RELATIVE_TIME_RANGE_CUURENT': {
      const unit = String(values[2])
      const start = `date_trunc('${UNIT_SQL[unit].toLowerCase()}', ${nowLocal})`
      return `(${col} >= ${start} - ${units(p, Number(values[0]), unit)} AND ${col} < ${start} - ${units(p, Number(values[1]) - 1, unit)})`
    }
    case 'array<string>:EQ':
      return `list_has_any(${col}, [${p.list(values)}])`
    case 'array<string>:CONTAIN':
      return `list_bool_or(list_transform(${col}, x -> ${values.map((v) => `contains(x, ${p.add(v)})`).join(' OR ')}))`
    case 'array<string>:NOT_CONTAIN':
      return `(${col} IS NOT NULL AND NOT COALESCE(list_bool_or(list_transform(${col}, x -> ${values.map((v) => `contains(x, ${p.add(v)})`).join(' OR ')})), false))`
    default:
      if (c.function === 'NULL') return `${col} IS NULL`
      if (c.function === 'NOT_NULL') return `${col} IS NOT NULL`
      throw new Error(`no SQL for ${c.dataType} ${c.function}`)
  }
}

/** A whole filter as SQL (`true` for none). */
export function filterSql(filter: CheckedFilter | undefined, columns: Columns, p: SqlParams, nowLocal: string): string {
  if (!filter || filter.conditions.length === 0) return 'true'
  const parts = filter.conditions.map((c) => `(${conditionSql(c, columns, p, nowLocal)})`)
  return `(${parts.join(filter.relation === 'OR' ? ' OR ' : ' AND ')})`
}
