import type { SqlParams } from '../../dialect'
import type { RetentionShape } from '../../parts/retention'

/**
 * Retention with a measure on ClickHouse: DuckDB's user-period pairs (duckdb's form in
 * domain/analysis/retentionSql.ts measureSql). Each user's distinct initial periods are joined on
 * the user alone with their return periods' partial aggregates (18.16 joins on equalities only:
 * the offset range is a WHERE), then combined per cell. A (user, return period) meets a given
 * offset from one initial period only, so the $ALL column adds no partial twice. Both joined
 * subqueries are named: current versions refuse an unnamed one (error 206, joined_subquery_requires_alias).
 */

type Aggregator = NonNullable<RetentionShape['measure']>

/** Per (user, return period) partials of `v` ([sql, name]), combined over any pairs (`total`) or one cell's (`cell`, where it differs). */
const PARTIALS: Record<Aggregator, { partial: [string, string][]; total: string; cell?: string }> = {
  SUM: { partial: [['sum(v)', 'sv']], total: 'sum(sv)' },
  AVG: { partial: [['sum(v)', 'sv'], ['count(v)', 'cv']], total: 'sum(sv) / nullIf(sum(cv), 0)' },
  MAX: { partial: [['max(v)', 'mx']], total: 'max(mx)' },
  MIN: { partial: [['min(v)', 'mn']], total: 'min(mn)' },
  // the sum per returning user who carried a value, as the event analysis does
  AVG_PER: { partial: [['sum(v)', 'sv'], ['count(v)', 'cv']], total: 'sum(sv) / nullIf(uniqExactIf(uid, cv > 0), 0)', cell: 'sum(sv) / nullIf(countIf(cv > 0), 0)' },
  // a Float64 like the other measures: UNION ALL finds no common type for UInt64 and the NULL rows' Nullable(Float64) (error 386)
  REMOVE_DUMPLICATE: { partial: [['groupUniqArrayIf(v, isNotNull(v))', 'vs']], total: 'toFloat64(length(groupUniqArrayArray(vs)))' },
}

export function measureCellsSql(scan: string, shape: RetentionShape, p: SqlParams, nulls: Record<'s' | 'd' | 'k' | 'm', string>): string {
  const { partial, total, cell } = PARTIALS[shape.measure!]
  const starts = `SELECT DISTINCT uid, toInt64(period) AS s FROM (${scan}) WHERE ifNull(f, 0)`
  const rets = `SELECT uid, toInt64(period) AS rp, ${partial.map(([sql, name]) => `${sql} AS ${name}`).join(', ')} FROM (${scan}) WHERE ifNull(r, 0) GROUP BY uid, rp`
  const pairs = () =>
    `SELECT uid, s, rp - s AS k, ${partial.map(([, name]) => name).join(', ')} FROM (${starts}) AS starts ALL INNER JOIN (${rets}) AS returns USING uid WHERE rp >= s AND rp <= s + ${p.add(shape.duration)}`
  return [
    `SELECT ${nulls.s} AS s, ${nulls.d} AS d, ${nulls.k} AS k, uniqExact(uid) AS n, ${nulls.m} AS m FROM (${starts})`,
    `SELECT s, NULL, NULL, count(), NULL FROM (${starts}) GROUP BY s`,
    `SELECT s, NULL, k, count(), ${cell ?? total} FROM (${pairs()}) GROUP BY s, k`,
    `SELECT NULL, NULL, k, uniqExact(uid), ${total} FROM (${pairs()}) GROUP BY k`,
  ].join('\n    UNION ALL ')
}
