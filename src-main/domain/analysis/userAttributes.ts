import type { AnalysisAnswer } from '../../../src-shared/contract'
import { badParam } from '../errors'
import { word } from '../lenient'
import { ignoreUnknown } from '../ignored'
import { validateFilter, type CheckedFilter } from '../expr/filters'
import { findUserProperty } from '../schema/planRows'
import { breakdownSql, resolveBreakdown, UNKNOWN, type Breakdown } from './breakdown'
import { resolveProperty, type PropertyExpr } from '../expr/eventRefs'
import { filterSql, type Columns } from '../expr/filterSql'
import { cohortCheck } from '../userSets/membership'
import { crowdsOf, crowdFilter, knownFields, limitOf, recordOf } from './request'
import type { AnalysisEnv, AnalysisModule } from './runner'
import type { Dialect, SqlParams } from '../../warehouse/dialect'

/**
 * User attribute analysis (spec 4.10): the users of profile_vd (one row per user with a profile),
 * filtered by user properties, counted (USER_COUNT) or a user property aggregated over them,
 * grouped by `byFields` (user properties only). No dates: profiles are the current state.
 * Rows are ordered by value, largest first; `limit` keeps the first rows.
 */

/** AVG_PER (spec 4.10's per-user average): the sum per user with a value, as in event analysis; one value per user here, so it equals AVG. */
const AGGREGATORS = ['USER_COUNT', 'REMOVE_DUMPLICATE', 'SUM', 'AVG', 'MAX', 'MIN', 'AVG_PER'] as const
const LABELS: Record<string, string> = {
  REMOVE_DUMPLICATE: 'distinct values',
  SUM: 'sum',
  AVG: 'average',
  MAX: 'maximum',
  MIN: 'minimum',
  AVG_PER: 'sum per user',
}

interface Measure {
  name: string
  aggregator: string
  /** null for USER_COUNT. */
  property: PropertyExpr | null
}

export interface UserAttributeRequest {
  measure: Measure
  filter?: CheckedFilter
  crowds: string[]
  byFields: Breakdown[]
  limit: number
}

/** The answer, as its route schema describes it (schemas/analysis/userAttributes.ts). */
export type UserAttributeResponse = AnalysisAnswer<'/uba/api/userAttributes/analyze'>

const FIELDS = ['measure', 'crowds', 'limit', 'filter', 'byFields']

function eventExpression(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith('event.')
}

function measureOf(env: Pick<AnalysisEnv, 'ctx' | 'scope' | 'lookup' | 'columns'>, value: unknown): Measure {
  if (value === undefined || value === null) throw badParam('measure', 'measure is required: {aggregator, expression}')
  const m = recordOf(value, 'measure')
  ignoreUnknown(m, ['expression', 'aggregator'], 'measure')
  m.aggregator = word(m.aggregator, AGGREGATORS)
  if (typeof m.aggregator !== 'string' || !(AGGREGATORS as readonly string[]).includes(m.aggregator)) {
    throw badParam('measure.aggregator', `measure.aggregator must be one of ${AGGREGATORS.join(', ')}`)
  }
  if (m.aggregator === 'USER_COUNT') {
    if (m.expression !== undefined && m.expression !== null && m.expression !== '') throw badParam('measure.expression', 'USER_COUNT counts users and takes no expression')
    return { name: 'users', aggregator: m.aggregator, property: null }
  }
  if (m.expression === undefined || m.expression === null || m.expression === '') throw badParam('measure.expression', `measure.expression is required for ${m.aggregator}: user.<propertyId>`)
  if (eventExpression(m.expression)) throw badParam('measure.expression', 'measure.expression must be a user property, user.<propertyId>')
  const property = resolveProperty(m.expression, 'measure.expression', env.lookup, env.columns)
  if (m.aggregator !== 'REMOVE_DUMPLICATE' && property.dataType !== 'number') {
    throw badParam('measure.aggregator', `measure.aggregator ${m.aggregator} needs a number property; ${property.expression} is ${property.dataType}`)
  }
  const display = findUserProperty(env.ctx.meta, env.scope.appKey, property.propertyId)?.name ?? property.propertyId
  return { name: `${display} · ${LABELS[m.aggregator]}`, aggregator: m.aggregator, property }
}

/** A filter over user properties only; there is no event here, so no event-relative time either. */
function filterOf(env: Pick<AnalysisEnv, 'lookup'>, value: unknown): CheckedFilter | undefined {
  if (value === undefined || value === null) return undefined
  const conditions = (value as { conditions?: unknown }).conditions
  if (Array.isArray(conditions)) {
    conditions.forEach((c, i) => {
      if (eventExpression((c as { expression?: unknown } | null)?.expression)) {
        throw badParam(`filter.conditions[${i}].expression`, `filter.conditions[${i}].expression: a user attribute filter reads user properties only (user.<propertyId>)`)
      }
    })
  }
  const filter = validateFilter(value, 'filter', env.lookup)
  const relative = filter.conditions.findIndex((c) => c.function === 'RELATIVE_TIME_OF_EVENT')
  if (relative >= 0) throw badParam(`filter.conditions[${relative}].function`, `filter.conditions[${relative}].function: RELATIVE_TIME_OF_EVENT needs an event; use RELATIVE_TIME_OF_CUURENT`)
  return filter
}

function byFieldsOf(env: Pick<AnalysisEnv, 'lookup' | 'columns'>, value: unknown): Breakdown[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) throw badParam('byFields', 'byFields must be a list')
  return value.map((b, i) => {
    if (eventExpression((b as { expression?: unknown } | null)?.expression)) {
      throw badParam(`byFields[${i}].expression`, `byFields[${i}].expression must be a user property, user.<propertyId>`)
    }
    return resolveBreakdown(b, `byFields[${i}]`, env.lookup, env.columns)
  })
}

/**
 * profile_vd as `u`, with `e.distinct_id` and `e.xwho` readable too (the shared property SQL reads
 * those two from the event row): a struct column named `e` costs nothing per row, unlike a
 * self-join. A user property that is itself called "e" would shadow it; then the self-join.
 */
function profiles(columns: Columns, d: Dialect): string {
  if (columns.user.has('e')) return 'profile_vd u JOIN (SELECT distinct_id, xwho FROM profile_vd) e ON e.distinct_id = u.distinct_id'
  return `(SELECT *, ${d.record(['distinct_id', 'xwho'], 'e')} FROM profile_vd) u`
}

function aggregate(m: Measure, d: Dialect): string {
  switch (m.aggregator) {
    case 'USER_COUNT':
      return 'count(*)'
    case 'REMOVE_DUMPLICATE':
      return d.distinctCount('v')
    case 'SUM':
      return d.aggregate('sum', 'v')
    case 'AVG':
      return d.aggregate('avg', 'v')
    case 'MAX':
      return d.aggregate('max', 'v')
    case 'AVG_PER':
      return `${d.aggregate('sum', 'v')} / nullif(count(v), 0)`
    default:
      return d.aggregate('min', 'v')
  }
}

/** Counts and sums are 0 over no users or no values; averages and extremes are null. */
function valueOf(m: Measure, raw: unknown): number | null {
  if (raw === null || raw === undefined) return ['USER_COUNT', 'REMOVE_DUMPLICATE', 'SUM'].includes(m.aggregator) ? 0 : null
  return Math.round(Number(raw) * 1e6) / 1e6
}

/**
 * The users counted: per user (and list element), `id`, the measure's value `v` and the breakdown
 * labels d<i>. The users behind a row (cells/userAttributes.ts) are read from the same rows.
 */
export function baseSql(env: Pick<AnalysisEnv, 'columns' | 'nowLocal' | 'dialect'>, req: UserAttributeRequest, p: SqlParams): string {
  const d = env.dialect
  const dims = req.byFields.map((b, i) => `${breakdownSql(b, d, p)} AS d${i}`)
  // an array<string> breakdown repeats a user per element: one row per user and element, even with repeated elements
  const perElement = req.byFields.some((b) => b.property.dataType === 'array<string>' && !b.buckets)
  const columns = ['u.distinct_id AS id', ...(req.measure.property ? [`${d.columnOf(req.measure.property.column)} AS v`] : []), ...dims]
  return `SELECT ${perElement ? 'DISTINCT ' : ''}${columns.join(', ')}
        FROM ${profiles(env.columns, d)}
        WHERE ${filterSql(req.filter, env, p)}
          AND ${crowdFilter(req.crowds, d, 'u.distinct_id')}`
}

export const userAttributeAnalysis: AnalysisModule<UserAttributeRequest, UserAttributeResponse> = {
  kind: 'userAttributes',
  validate(env, body) {
    knownFields(body, FIELDS)
    const crowds = crowdsOf(body.crowds, cohortCheck(env.ctx.meta, env.scope.appKey))
    return {
      measure: measureOf(env, body.measure),
      filter: filterOf(env, body.filter),
      crowds,
      byFields: byFieldsOf(env, body.byFields),
      limit: limitOf(body.limit, 1000),
    }
  },

  async run(env, req) {
    const p = env.params()
    const dimList = req.byFields.map((_, i) => `d${i}`)
    const sql = env.dialect.withQueries(
      [{ name: 'base', sql: () => baseSql(env, req, p) }],
      (from) => `
      SELECT ${dimList.map((d) => `${d}, `).join('')}${aggregate(req.measure, env.dialect)} AS a
      FROM ${from('base')}
      ${dimList.length > 0 ? env.dialect.groupByAll(dimList) : ''}`,
    )
    const result = await env.query(sql, p)
    const rows = result.map((r) => ({ value: valueOf(req.measure, r.a), byValue: dimList.map((d) => String(r[d])) }))
    // largest value first (no value last); among equals, known values before unknown ones, then by label
    const unknowns = (r: { byValue: string[] }) => r.byValue.filter((v) => v === UNKNOWN).length
    rows.sort(
      (a, b) =>
        (b.value ?? -Infinity) - (a.value ?? -Infinity) ||
        unknowns(a) - unknowns(b) ||
        a.byValue.join('\u0000').localeCompare(b.byValue.join('\u0000')),
    )
    return {
      measure: req.measure.name,
      byFields: req.byFields.map((b) => b.property.expression),
      rows: rows.slice(0, req.limit),
    }
  },
}
