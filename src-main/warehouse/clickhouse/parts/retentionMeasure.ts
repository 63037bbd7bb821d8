import type { SqlParams } from '../../dialect'
import type { RetentionShape } from '../../parts/retention'

/**
 * Retention with a measure on ClickHouse, from one read of the scan (it was six: the starters and
 * the return periods' partials read apart, joined on the user twice). As plain retention
 * (retention.ts): one GROUP BY per (user, period) gives whether it started there, whether it came
 * back there and the partial aggregates of its return events there; one GROUP BY per user gathers
 * the starting periods and the (return period, partials) tuples; array functions give each user one
 * key per row they count in, carrying the partials: the starters (-1, -1), of a period (s, -1), a
 * cell (s, k) per (initial period, return period) pair k apart, and $ALL's (-1, k) per pair again
 * (a return period meets a given k from one initial period only, so no partial counts twice).
 * ARRAY JOIN over the keys, GROUP BY key: the partials combine per row as DuckDB's pairs do
 * (domain/analysis/retentionSql.ts measureSql). A key carries `u`, 1 on the user's first key of its
 * row (the users are `sum(u)`: a user has several $ALL keys at k when back k after several
 * periods), and `uv`, 1 on the user's first key of its row whose partials hold a value (AVG_PER's
 * divisor: the returning users who carried one). Keys of the starters carry empty partials: the
 * pairs' tuple type resized from nothing (`arrayResize(arrayResize(ps, 0), n)`), which needs no
 * name of the measure's type. No lambda captures a column (18.16); `beside` passes a list along.
 */

type Aggregator = NonNullable<RetentionShape['measure']>

/**
 * Per (user, period) partials of the return rows' values `rv` ([sql, name]; `returned` is the
 * return test, for a partial that cannot take NULL); `grouped`, their combination over a row's
 * keys ([sql, name]); `total`, the measure from the grouped rows that make a row (`nv`: AVG_PER's
 * returning users with a value, from the row's own keys only).
 */
const PARTIALS: Record<Aggregator, { partial: (rv: string, returned: string) => [string, string][]; grouped: [string, string][]; total: string }> = {
  SUM: { partial: (rv) => [[`sum(${rv})`, 'sv']], grouped: [['sum(sv)', 'g_sv']], total: 'sum(g_sv)' },
  AVG: { partial: (rv) => [[`sum(${rv})`, 'sv'], [`count(${rv})`, 'cv']], grouped: [['sum(sv)', 'g_sv'], ['sum(cv)', 'g_cv']], total: 'sum(g_sv) / nullIf(sum(g_cv), 0)' },
  MAX: { partial: (rv) => [[`max(${rv})`, 'mx']], grouped: [['max(mx)', 'g_mx']], total: 'max(g_mx)' },
  MIN: { partial: (rv) => [[`min(${rv})`, 'mn']], grouped: [['min(mn)', 'g_mn']], total: 'min(g_mn)' },
  // the sum per returning user who carried a value, as the event analysis does
  AVG_PER: { partial: (rv) => [[`sum(${rv})`, 'sv'], [`count(${rv})`, 'cv']], grouped: [['sum(sv)', 'g_sv']], total: 'sum(g_sv) / nullIf(sumIf(nv, key_s = at_s), 0)' },
  // a Float64 like the other measures: the rows' m is one column; any type of value (a list's too), so no if(…, v, NULL)
  REMOVE_DUMPLICATE: {
    partial: (_rv, returned) => [[`groupUniqArrayIf(v, ${returned} AND isNotNull(v))`, 'vs']],
    grouped: [['groupUniqArrayArray(vs)', 'g_vs']],
    total: 'toFloat64(length(groupUniqArrayArray(g_vs)))',
  },
}

const flatten = (lists: string) => `arrayReduce('groupArrayArray', ${lists})`
/** `list` repeated once per element of `along`, so a lambda over `along` gets it as an argument. */
const beside = (list: string, along: string) => `arrayResize([${list}], length(${along}), ${list})`
const at = (tuple: string, i: number) => `tupleElement(${tuple}, ${i})`

/** Per user who started: `fs` their initial periods, `ps` their pairs (s, k, ...partials) with k in 0..duration. */
function pairsSql(scan: string, shape: RetentionShape, p: SqlParams, partial: [string, string][]): string {
  const returned = 'ifNull(r, 0)'
  const names = partial.map(([, name]) => name)
  const perPeriod = `SELECT uid, toInt64(period) AS at_p, max(ifNull(f, 0)) AS st, max(${returned}) AS rt, ${partial.map(([sql, name]) => `${sql} AS ${name}`).join(', ')}
    FROM (${scan}) GROUP BY uid, at_p`
  const perUser = `SELECT uid, groupArrayIf(at_p, st = 1) AS fs, groupArrayIf(tuple(at_p, ${names.join(', ')}), rt = 1) AS rets FROM (${perPeriod}) GROUP BY uid`
  const upTo = p.add(shape.duration)
  const rp = at('_uba_x', 1)
  const kept = `arrayFilter(_uba_x -> ${rp} >= _uba_s AND ${rp} <= _uba_s + ${upTo}, _uba_rets)`
  const pair = `(_uba_s, ${rp} - _uba_s, ${names.map((_, i) => at('_uba_x', i + 2)).join(', ')})`
  const ps = flatten(`arrayMap((_uba_s, _uba_rets) -> arrayMap(_uba_x -> ${pair}, ${kept}), fs, ${beside('rets', 'fs')})`)
  return `SELECT fs, ${ps} AS ps FROM (${perUser}) WHERE notEmpty(fs)`
}

export function measureCellsSql(scan: string, shape: RetentionShape, p: SqlParams, nulls: Record<'s' | 'd' | 'k' | 'm', string>): string {
  const aggregator = shape.measure!
  const { total } = PARTIALS[aggregator]
  const partial = PARTIALS[aggregator].partial('if(ifNull(r, 0), v, NULL)', 'ifNull(r, 0)')
  const names = partial.map(([, name]) => name)
  const carried = (y: string) => names.map((_, i) => at(y, i + 3)).join(', ')
  const perUser = aggregator === 'AVG_PER'
  // AVG_PER's `uv`: the pair's count of values (partial 2, tuple element 4) above 0
  const valued = (y: string) => (perUser ? `${at(y, 4)} > 0` : 'toUInt8(0)')
  const none = 'toInt64(-1)'
  const starters = `arrayMap((_uba_s, _uba_y) -> (_uba_s, ${none}, toUInt8(1), toUInt8(0), ${carried('_uba_y')}), arrayConcat([${none}], fs), arrayResize(arrayResize(ps, 0), length(fs) + 1))`
  const cells = `arrayMap(_uba_y -> (${at('_uba_y', 1)}, ${at('_uba_y', 2)}, toUInt8(1), ${valued('_uba_y')}, ${carried('_uba_y')}), ps)`
  // $ALL at k: one key per user and k, without partials (the cells' carry them there); arrayEnumerateUniq
  // numbers each k's occurrences, so 1 marks the user's first (AVG_PER: also the first of (k, valued))
  const blank = 'arrayResize(arrayResize(ps, 0), length(ps))'
  const marks = perUser
    ? `arrayMap((_uba_y, _uba_n, _uba_nv, _uba_b) -> (${none}, ${at('_uba_y', 2)}, toUInt8(_uba_n = 1), toUInt8(_uba_nv = 1 AND ${valued('_uba_y')}), ${carried('_uba_b')}),
      ps, arrayEnumerateUniq(ks), arrayEnumerateUniq(ks, arrayMap(_uba_y -> toUInt8(${valued('_uba_y')}), ps)), ${blank})`
    : `arrayMap((_uba_y, _uba_n, _uba_b) -> (${none}, ${at('_uba_y', 2)}, toUInt8(_uba_n = 1), toUInt8(0), ${carried('_uba_b')}), ps, arrayEnumerateUniq(ks), ${blank})`
  const everyPeriod = `arrayFilter(_uba_z -> ${at('_uba_z', 3)} + ${at('_uba_z', 4)} > 0, ${marks})`
  const keys = `SELECT arrayConcat(${starters}, ${cells}, ${everyPeriod}) AS keys
    FROM (SELECT fs, ps, arrayMap(_uba_y -> ${at('_uba_y', 2)}, ps) AS ks FROM (${pairsSql(scan, shape, p, partial)}))`
  const columns = ['key_s', 'key_k', 'u', 'uv', ...names].map((c, i) => `${at('key', i + 1)} AS ${c}`).join(', ')
  const grouped = PARTIALS[aggregator].grouped.map(([sql, name]) => `${sql} AS ${name}`).join(', ')
  const counted = `SELECT key_s, key_k, sum(u) AS g_n, sum(uv) AS nv, ${grouped} FROM (SELECT ${columns} FROM (${keys}) ARRAY JOIN keys AS key) GROUP BY key_s, key_k`
  // each cell's grouped row counts again in $ALL's row of its k, for the measure: the few grouped rows, not the keys, are doubled
  const rows = `SELECT at_s, key_k, sumIf(g_n, key_s = at_s) AS n, ${total} AS m
    FROM (SELECT *, arrayJoin(if(key_s >= 0 AND key_k >= 0, [key_s, ${none}], [key_s])) AS at_s FROM (${counted})) GROUP BY at_s, key_k`
  const kept = (x: string) => `if(${x} < 0, NULL, ${x})`
  return `SELECT ${kept('at_s')} AS s, ${nulls.d} AS d, ${kept('key_k')} AS k, n, if(key_k < 0, ${nulls.m}, m) AS m FROM (${rows})`
}
