import { badParam } from '../errors'
import { word } from '../lenient'
import { ignoreUnknown } from '../ignored'
import { validateFilter, type CheckedFilter } from '../expr/filters'
import { resolveEvent, resolveProperty, type EventRef, type PropertyExpr } from '../expr/eventRefs'
import type { Dialect } from '../../warehouse/dialect'
import type { AnalysisEnv } from './runner'

/**
 * Event-based measures (spec 4.10), shared by event analysis and ad tracking: `{expression,
 * aggregator, filter}` checked against the plan, and their aggregates. Rows carry a match flag
 * `m<i>` per measure and, for property measures, the value `v<i>`.
 */

export const EVENT_AGGREGATORS = ['TRIGGER_USER_COUNT', 'TOTAL_COUNT', 'AVG_COUNT'] as const
export const PROPERTY_AGGREGATORS = ['REMOVE_DUMPLICATE', 'SUM', 'AVG', 'MAX', 'MIN', 'AVG_PER'] as const

export const AGGREGATOR_LABELS: Record<string, string> = {
  TRIGGER_USER_COUNT: 'users',
  TOTAL_COUNT: 'total count',
  AVG_COUNT: 'count per user',
  REMOVE_DUMPLICATE: 'distinct values',
  SUM: 'sum',
  AVG: 'average',
  MAX: 'maximum',
  MIN: 'minimum',
  AVG_PER: 'sum per user',
}

/** The aggregate of measure `i` over the rows where it matched. */
export function aggregateSql(aggregator: string, i: number, d: Dialect): string {
  const m = `m${i}`
  const v = `v${i}`
  switch (aggregator) {
    case 'TOTAL_COUNT':
      return d.aggregateWhere('count', '*', m)
    case 'TRIGGER_USER_COUNT':
      return d.distinctCount('distinct_id', m)
    case 'AVG_COUNT':
      return `${d.aggregateWhere('count', '*', m)} / nullif(${d.distinctCount('distinct_id', m)}, 0)`
    case 'REMOVE_DUMPLICATE':
      return d.distinctCount(v, m)
    case 'SUM':
      return d.aggregateWhere('sum', v, m)
    case 'AVG':
      return d.aggregateWhere('avg', v, m)
    case 'MAX':
      return d.aggregateWhere('max', v, m)
    case 'MIN':
      return d.aggregateWhere('min', v, m)
    default:
      return `${d.aggregateWhere('sum', v, m)} / nullif(${d.distinctCount('distinct_id', `${m} AND ${v} IS NOT NULL`)}, 0)`
  }
}

/** Counts and sums are 0 where nothing happened; averages and extremes are null there. */
export function emptyValue(aggregator: string): number | null {
  return ['TOTAL_COUNT', 'TRIGGER_USER_COUNT', 'REMOVE_DUMPLICATE', 'SUM'].includes(aggregator) ? 0 : null
}

export interface CheckedMeasure {
  expression: string
  aggregator: string
  event: EventRef
  property: PropertyExpr | null
  filter?: CheckedFilter
}

/** Checks one measure; `field` (e.g. `measures[0]`) prefixes every parameter a 400 names. */
export function checkMeasure(env: Pick<AnalysisEnv, 'ctx' | 'scope' | 'lookup' | 'columns'>, value: unknown, field: string): CheckedMeasure {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badParam(field, `${field} must be an object {expression, aggregator, filter}`)
  const m = value as Record<string, unknown>
  ignoreUnknown(m, ['expression', 'aggregator', 'filter'], field)
  if (typeof m.expression !== 'string') throw badParam(`${field}.expression`, `${field}.expression is required`)
  const isProperty = m.expression.split('.').length === 3
  const allowed: readonly string[] = isProperty ? PROPERTY_AGGREGATORS : EVENT_AGGREGATORS
  m.aggregator = word(m.aggregator, allowed)
  if (typeof m.aggregator !== 'string' || !allowed.includes(m.aggregator)) {
    throw badParam(`${field}.aggregator`, `${field}.aggregator must be one of ${allowed.join(', ')} for ${isProperty ? 'a property' : 'an event'}`)
  }
  const eventExpression = isProperty ? m.expression.split('.').slice(0, 2).join('.') : m.expression
  const event = resolveEvent(env.ctx.meta, env.scope.appKey, eventExpression, `${field}.expression`, env.lookup)
  const property = isProperty ? resolveProperty(m.expression, `${field}.expression`, env.lookup, env.columns) : null
  if (property && m.aggregator !== 'REMOVE_DUMPLICATE' && property.dataType !== 'number') {
    throw badParam(`${field}.aggregator`, `${field}.aggregator ${m.aggregator} needs a number property; ${property.expression} is ${property.dataType}`)
  }
  const filter = m.filter === undefined || m.filter === null ? undefined : validateFilter(m.filter, `${field}.filter`, env.lookup)
  return { expression: m.expression, aggregator: m.aggregator, event, property, filter }
}
