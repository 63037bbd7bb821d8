import { badParam } from '../errors'
import { numeric } from '../lenient'
import { ignoreUnknown } from '../ignored'
import type { PropertyLookup } from '../schema/lookup'
import type { Columns } from '../expr/filterSql'
import { resolveProperty, type PropertyExpr } from '../expr/eventRefs'
import type { Dialect, SqlParams } from '../../warehouse/dialect'

/**
 * Breakdowns (byField / byFields): a property, its values as labels. Number properties may be cut
 * into intervals by `buckets`: [600, 800] gives "-∞~600", "600~800", "800~+∞" (lower bound included).
 * A missing value is labelled UNKNOWN. An array<string> property breaks down by each element.
 */
export const UNKNOWN = 'unknown'

export interface Breakdown {
  property: PropertyExpr
  buckets: number[] | null
}

export function resolveBreakdown(value: unknown, field: string, lookup: PropertyLookup, columns: Columns): Breakdown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badParam(field, `${field} must be an object {expression, buckets}`)
  const { expression, buckets } = value as Record<string, unknown>
  ignoreUnknown(value as Record<string, unknown>, ['expression', 'buckets'], field)
  const property = resolveProperty(expression, `${field}.expression`, lookup, columns)
  if (buckets === undefined || buckets === null || (Array.isArray(buckets) && buckets.length === 0)) return { property, buckets: null }
  if (property.dataType !== 'number') throw badParam(`${field}.buckets`, `${field}.buckets apply to number properties only`)
  if (Array.isArray(buckets)) buckets.forEach((b, i) => (buckets[i] = numeric(b)))
  if (!Array.isArray(buckets) || !buckets.every((b) => typeof b === 'number' && Number.isFinite(b))) throw badParam(`${field}.buckets`, `${field}.buckets must be a list of numbers`)
  const sorted = buckets as number[]
  if (sorted.some((b, i) => i > 0 && b <= sorted[i - 1])) throw badParam(`${field}.buckets`, `${field}.buckets must be increasing`)
  return { property, buckets: sorted }
}

function label(n: number): string {
  return String(n)
}

/** The SQL label of a row's breakdown value (VARCHAR; arrays are unnested by the caller). */
export function breakdownSql(b: Breakdown, d: Dialect, p: SqlParams): string {
  const v = d.columnOf(b.property.column)
  if (b.buckets) {
    const edges = b.buckets
    const arms = [`WHEN ${v} < ${p.add(edges[0])} THEN ${p.add(`-∞~${label(edges[0])}`)}`]
    for (let i = 1; i < edges.length; i++) arms.push(`WHEN ${v} < ${p.add(edges[i])} THEN ${p.add(`${label(edges[i - 1])}~${label(edges[i])}`)}`)
    arms.push(`WHEN ${v} >= ${p.add(edges[edges.length - 1])} THEN ${p.add(`${label(edges[edges.length - 1])}~+∞`)}`)
    return `CASE ${arms.join(' ')} ELSE ${p.add(UNKNOWN)} END`
  }
  const type = b.property.dataType
  if (type === 'array<string>') return `COALESCE(${d.unnest(d.orNullElement(v))}, ${p.add(UNKNOWN)})`
  return `COALESCE(${d.asText(v, type)}, ${p.add(UNKNOWN)})`
}

/** Whether any breakdown reads a user property (the query then joins profile_vd as `u`). */
export function readsProfile(breakdowns: Breakdown[]): boolean {
  return breakdowns.some((b) => b.property.column.table === 'profile_vd' && b.property.column.column !== null)
}
