import type { AnalysisAnswer } from '../../../src-shared/contract'
import { badParam } from '../errors'
import { word } from '../lenient'
import { ignoreUnknown } from '../ignored'
import { validateFilter, type CheckedFilter } from '../expr/filters'
import { breakdownSql, resolveBreakdown, UNKNOWN, type Breakdown } from './breakdown'
import { dsOf, series, type Unit } from '../time/calendar'
import { calendarSql } from './calendarSql'
import { eventSql, resolveEvent, resolveProperty, type EventRef, type PropertyExpr } from '../expr/eventRefs'
import { filterSql } from '../expr/filterSql'
import { memberFilters, profileReads } from './profileReads'
import { intervalIndexSql, niceIntervals, type Interval, type ValueStats } from './intervals'
import { cohortCheck } from '../userSets/membership'
import { crowdsOf, crowdFilter, dateRange, knownFields, limitOf, recordOf, samplingOf, samplingSql } from './request'
import type { Dialect } from '../../warehouse/dialect'
import type { AnalysisEnv, AnalysisModule } from './runner'

/**
 * Distribution (spec 4.10): how many users did something how much. Per user, the measure over a
 * period (TOTAL_COUNT events; DISTRIBUTION_TIME distinct local days with the event; a property
 * aggregated over the user's events), then users counted per interval (intervals.ts chooses them
 * from the data, one set for all rows). Users without a matching event, or, for a property, without
 * a value of it, are not counted. Rows: one "all" for the whole range (unit ""), one per period
 * (unit DAY/WEEK/MONTH, the measure computed within each period), or one per value of `byField`
 * over the whole range.
 */

const EVENT_AGGREGATORS = ['TOTAL_COUNT', 'DISTRIBUTION_TIME'] as const
const PROPERTY_AGGREGATORS = ['REMOVE_DUMPLICATE', 'SUM', 'AVG', 'MAX', 'MIN', 'AVG_PER'] as const
const LABELS: Record<string, string> = {
  TOTAL_COUNT: 'total count',
  DISTRIBUTION_TIME: 'days with the event',
  REMOVE_DUMPLICATE: 'distinct values',
  SUM: 'sum',
  AVG: 'average',
  MAX: 'maximum',
  MIN: 'minimum',
  AVG_PER: 'sum per user',
}

/** The byValue of the single row over the whole range. */
export const WHOLE_RANGE = 'all'

interface Measure {
  name: string
  event: EventRef
  property: PropertyExpr | null
  aggregator: string
  filter?: CheckedFilter
}

export interface DistributionRequest {
  measure: Measure
  filter?: CheckedFilter
  fromDate: string
  toDate: string
  /** null: the whole range as one row. */
  unit: Unit | null
  sampling: number
  crowds: string[]
  byField: Breakdown | null
  limit: number
}

/** The answer, as its route schema describes it (schemas/analysis/distribution.ts). */
export type DistributionResponse = AnalysisAnswer<'/uba/api/distributions/analyze'>
export type DistributionRow = DistributionResponse['rows'][number]

const FIELDS = ['measure', 'filter', 'crowds', 'fromDate', 'toDate', 'samplingFactor', 'unit', 'byField', 'limit']

function measureOf(env: Pick<AnalysisEnv, 'ctx' | 'scope' | 'lookup' | 'columns'>, value: unknown): Measure {
  if (value === undefined || value === null) throw badParam('measure', 'measure is required: {expression, aggregator, filter}')
  const m = recordOf(value, 'measure')
  ignoreUnknown(m, ['expression', 'aggregator', 'filter'], 'measure')
  if (typeof m.expression !== 'string') throw badParam('measure.expression', 'measure.expression is required')
  const isProperty = m.expression.split('.').length === 3
  const allowed: readonly string[] = isProperty ? PROPERTY_AGGREGATORS : EVENT_AGGREGATORS
  m.aggregator = word(m.aggregator, allowed)
  if (typeof m.aggregator !== 'string' || !allowed.includes(m.aggregator)) {
    throw badParam('measure.aggregator', `measure.aggregator must be one of ${allowed.join(', ')} for ${isProperty ? 'a property' : 'an event'}`)
  }
  const eventExpression = isProperty ? m.expression.split('.').slice(0, 2).join('.') : m.expression
  const event = resolveEvent(env.ctx.meta, env.scope.appKey, eventExpression, 'measure.expression', env.lookup)
  const property = isProperty ? resolveProperty(m.expression, 'measure.expression', env.lookup, env.columns) : null
  if (property && m.aggregator !== 'REMOVE_DUMPLICATE' && property.dataType !== 'number') {
    throw badParam('measure.aggregator', `measure.aggregator ${m.aggregator} needs a number property; ${property.expression} is ${property.dataType}`)
  }
  const filter = m.filter === undefined || m.filter === null ? undefined : validateFilter(m.filter, 'measure.filter', env.lookup)
  const display = (env.ctx.meta.prepare('SELECT name FROM plan_events WHERE app_key = ? AND id = ?').pluck().get(env.scope.appKey, event.eventId) as string | null) ?? event.eventId
  const name = property ? `${display}.${property.propertyId} · ${LABELS[m.aggregator]}` : `${display} · ${LABELS[m.aggregator]}`
  return { name, event, property, aggregator: m.aggregator, filter }
}

/** unit: "" (or absent) for the whole range, else DAY, WEEK or MONTH. */
function distributionUnit(raw: unknown): Unit | null {
  if (raw === undefined || raw === null || raw === '') return null
  const value = word(raw, ['DAY', 'WEEK', 'MONTH'])
  if (value !== 'DAY' && value !== 'WEEK' && value !== 'MONTH') throw badParam('unit', 'unit must be "" (the whole range), DAY, WEEK or MONTH')
  return value
}

/** The measure of one user over their rows (`v` the property value, `ds` the local day). */
function perUser(m: Measure, d: Dialect): string {
  switch (m.aggregator) {
    case 'TOTAL_COUNT':
      return 'count(*)'
    case 'DISTRIBUTION_TIME':
      return d.distinctCount('ds')
    case 'REMOVE_DUMPLICATE':
      return d.distinctCount('v')
    case 'AVG':
      return 'round(avg(v), 6)'
    case 'MAX':
      return 'max(v)'
    case 'MIN':
      return 'min(v)'
    default:
      // SUM, and AVG_PER: the sum per acting user, where the user is the only one
      return 'round(sum(v), 6)'
  }
}

/** `whole`: DuckDB answers a boolean, ClickHouse (no booleans on 18.16) 1 or 0. */
function statsOf(row: Record<string, unknown> | undefined): ValueStats | null {
  if (!row || Number(row.users) === 0) return null
  return { min: Number(row.low), max: Number(row.high), top: Number(row.top), whole: Number(row.whole) === 1 }
}

/** The profile columns the request reads (profileReads.ts). */
function userReads(env: Pick<AnalysisEnv, 'columns'>, req: DistributionRequest): string[] | null {
  return profileReads([req.filter, req.measure.filter, ...memberFilters([req.measure.event])], req.byField ? [req.byField] : [], env.columns)
}

/**
 * Fills the temp table distribution_users (r: the row, distinct_id, v: the user's measure there)
 * and answers the intervals chosen from its values. The users behind a cell (cells/distribution.ts)
 * read the same table.
 */
export async function perUserValues(env: AnalysisEnv, req: DistributionRequest): Promise<Interval[]> {
  const m = req.measure
  const p = env.params()
  const d = env.dialect
  const rowKey = req.byField ? breakdownSql(req.byField, d, p) : req.unit ? 'cal.period' : null
  const value = m.property ? d.columnOf(m.property.column) : null
  const hasValue = value ? `AND ${value} IS NOT NULL` : ''
  // values bound in the order they appear: the calendar's, then the days'
  const calendar = req.unit ? [{ sql: `JOIN ${calendarSql(req.fromDate, req.toDate, req.unit, p, d)} cal ON cal.ds = e.ds`, alias: 'cal', columns: ['period'] }] : []
  const days = `e.ds BETWEEN ${p.add(dsOf(req.fromDate))} AND ${p.add(dsOf(req.toDate))}`
  // one value per (row, user): the heavy pass over event_vd happens once, the rest reads this
  await env.query(
    d.tempTableAs(
      'distribution_users',
      `SELECT ${rowKey ? 'r' : '0 AS r'}, distinct_id, ${d.cast(perUser(m, d), 'number')} AS v
     FROM (
       SELECT e.distinct_id, e.ds${rowKey ? `, ${rowKey} AS r` : ''}${value ? `, ${value} AS v` : ''}
       FROM ${d.eventRows({ joins: calendar, profile: userReads(env, req), eventWhere: days })}
       WHERE ${days}
         AND ${samplingSql(req.sampling, d)}
         AND ${crowdFilter(req.crowds, d)}
         AND ${eventSql(m.event, env, p)}
         AND ${filterSql(m.filter, env, p)}
         AND ${filterSql(req.filter, env, p)}
         ${hasValue}
     )
     GROUP BY ${rowKey ? 'r, ' : ''}distinct_id`,
    ),
    p,
  )
  const [summary] = await env.query(
    `SELECT count(*) AS users, min(v) AS low, max(v) AS high, ${d.quantile('v', 0.95)} AS top, ${d.every('v = trunc(v)')} AS whole
     FROM distribution_users`,
  )
  return niceIntervals(statsOf(summary))
}

export const distributionAnalysis: AnalysisModule<DistributionRequest, DistributionResponse> = {
  kind: 'distribution',
  validate(env, body) {
    knownFields(body, FIELDS)
    const { fromDate, toDate } = dateRange(body)
    const crowds = crowdsOf(body.crowds, cohortCheck(env.ctx.meta, env.scope.appKey))
    const measure = measureOf(env, body.measure)
    const filter = body.filter === undefined || body.filter === null ? undefined : validateFilter(body.filter, 'filter', env.lookup)
    const unit = distributionUnit(body.unit)
    const sampling = samplingOf(body.samplingFactor)
    const byField = body.byField === undefined || body.byField === null ? null : resolveBreakdown(body.byField, 'byField', env.lookup, env.columns)
    if (byField && unit) throw badParam('unit', 'a byField breakdown covers the whole range: send unit "" with byField')
    return { measure, filter, fromDate, toDate, unit, sampling, crowds, byField, limit: limitOf(body.limit, 1000) }
  },

  async run(env, req) {
    const m = req.measure
    const intervals = await perUserValues(env, req)
    const q = env.params()
    const counts = intervals.length === 0 ? [] : await env.query(`SELECT r, ${intervalIndexSql('v', intervals, q)} AS i, count(*) AS users FROM distribution_users ${env.dialect.groupByAll(['r', 'i'])}`, q)

    const rows = new Map<string, DistributionRow>()
    const rowOf = (byValue: string) => {
      let row = rows.get(byValue)
      if (!row) {
        row = { sum: 0, values: intervals.map(() => 0), byValue }
        rows.set(byValue, row)
      }
      return row
    }
    const periods = req.unit ? series(req.fromDate, req.toDate, req.unit) : []
    if (req.unit) periods.forEach(rowOf)
    else if (!req.byField) rowOf(WHOLE_RANGE)
    for (const c of counts) {
      const row = rowOf(req.unit ? periods[Number(c.r)] : req.byField ? String(c.r) : WHOLE_RANGE)
      row.values[Number(c.i)] += Number(c.users)
      row.sum += Number(c.users)
    }
    let out = [...rows.values()]
    if (req.byField) {
      // most users first; among equals, known values before unknown ones, then by label
      out = out
        .sort((a, b) => b.sum - a.sum || Number(a.byValue === UNKNOWN) - Number(b.byValue === UNKNOWN) || a.byValue.localeCompare(b.byValue))
        .slice(0, req.limit)
    }
    return {
      measure: m.name,
      byField: req.byField ? req.byField.property.expression : null,
      series: intervals.map((iv) => iv.label),
      rows: out,
      samplingFactor: req.sampling,
    }
  },
}
