import type { SqlParams } from '../../dialect'
import type { RetentionPart, RetentionShape } from '../../parts/retention'
import { measureCellsSql } from './retentionMeasure'

/**
 * Retention from each user's lists of periods. DuckDB's form (bitmaps joined on a range of
 * periods, window functions for "on or after", GROUPING SETS, EXCEPT) has no 18.16 spelling: its
 * JOIN takes equalities only and one per SELECT, and there are no window functions or bitmaps. So
 * one GROUP BY per user gathers the periods of their initial events (`fs`, with the label on the
 * initial side: `fds`) and of their return events (`rs`, `rds`); each initial period's offsets
 * 0..duration come from the return periods by array functions, then ARRAY JOIN gives one row per
 * (user, period, label, offset): DuckDB's user-period pairs, whose distinct users (`uniqExact`)
 * are the cells. "On or after" counts a (user, period, label) at every offset up to its latest.
 *
 * ClickHouse's own `retention(c1, c2, …)` was not used: it answers per group whether c1 and each
 * ci held, so it needs one group per (user, initial period) and a condition per offset naming
 * that period, while the spec's $ALL row counts a user once over every period they started in.
 * The lists give every row of the answer from one scan. Lambdas take the initial period as an
 * argument (`arrayResize`), never by capture (18.16 cannot capture a column there).
 *
 * A measure needs each (user, return period)'s values: retentionMeasure.ts. Each named step below
 * is a subquery, inlined where it is read (no `WITH name AS (subquery)` on 18.16): the scan is
 * read once per row kind of the answer.
 */

const NULLS = { s: 'CAST(NULL AS Nullable(Int64))', d: 'CAST(NULL AS Nullable(String))', k: 'CAST(NULL AS Nullable(Int64))', m: 'CAST(NULL AS Nullable(Float64))' }

/** Per user: the periods (with labels) of their initial and return events. */
function lists(scan: string, shape: RetentionShape): string {
  const period = 'toInt64(period)'
  const f = 'ifNull(f, 0)'
  const r = 'ifNull(r, 0)'
  return `SELECT uid, groupUniqArrayIf(${period}, ${f}) AS fs, groupUniqArrayIf(${period}, ${r}) AS rs
      ${shape.side === 'first' ? `, groupUniqArrayIf(tuple(${period}, d), ${f}) AS fds` : ''}
      ${shape.side === 'return' ? `, groupUniqArrayIf(tuple(${period}, d), ${r}) AS rds` : ''}
    FROM (${scan}) GROUP BY uid`
}

/** One row per (user, initial period[, label]). */
function starts(scan: string, shape: RetentionShape): string {
  if (shape.side === 'first') return `SELECT uid, tupleElement(_uba_sd, 1) AS s, tupleElement(_uba_sd, 2) AS d, rs FROM (${lists(scan, shape)}) ARRAY JOIN fds AS _uba_sd`
  return `SELECT uid, s, rs${shape.side === 'return' ? ', rds' : ''} FROM (${lists(scan, shape)}) ARRAY JOIN fs AS s`
}

/** One row per (user, initial period, label, offset) the user returned at; "on or after": every offset up to the latest. */
function pairs(scan: string, shape: RetentionShape, p: SqlParams): string {
  const upTo = p.add(shape.duration)
  const each = (list: string) => `arrayResize(emptyArrayInt64(), length(${list}), s)`
  let exact: string
  if (shape.side === 'return') {
    const offsets = `arrayMap((_uba_x, _uba_s) -> tuple(tupleElement(_uba_x, 1) - _uba_s, tupleElement(_uba_x, 2)), rds, ${each('rds')})`
    exact = `SELECT uid, s, tupleElement(_uba_kd, 1) AS k, tupleElement(_uba_kd, 2) AS d FROM (
        SELECT uid, s, arrayFilter(_uba_y -> tupleElement(_uba_y, 1) >= 0 AND tupleElement(_uba_y, 1) <= ${upTo}, ${offsets}) AS kds FROM (${starts(scan, shape)})
      ) ARRAY JOIN kds AS _uba_kd`
  } else {
    const offsets = `arrayMap((_uba_r, _uba_s) -> _uba_r - _uba_s, rs, ${each('rs')})`
    exact = `SELECT uid, s${shape.side ? ', d' : ''}, k FROM (
        SELECT uid, s${shape.side ? ', d' : ''}, arrayFilter(_uba_k -> _uba_k >= 0 AND _uba_k <= ${upTo}, ${offsets}) AS ks FROM (${starts(scan, shape)})
      ) ARRAY JOIN ks AS k`
  }
  if (!shape.onOrAfter) return exact
  const keys = `uid, s${shape.side ? ', d' : ''}`
  return `SELECT ${keys}, toInt64(arrayJoin(range(toUInt64(top + 1)))) AS k FROM (SELECT ${keys}, max(k) AS top FROM (${exact}) GROUP BY ${keys})`
}

export const retention: RetentionPart = {
  // a second JOIN beside the calendar's is error 48 on 18.16: a (user, instant) test instead
  atFirstEver: (firstEver) => ({ join: '', condition: `(e.distinct_id, e.xwhen) IN (SELECT distinct_id, first_at FROM (${firstEver}))` }),

  retentionCells: (scan, shape, p) => {
    if (shape.measure) return measureCellsSql(scan, shape, p, NULLS)
    const users = 'uniqExact(uid)'
    const all = `SELECT ${NULLS.s} AS s, ${NULLS.d} AS d, ${NULLS.k} AS k, ${users} AS n, ${NULLS.m} AS m FROM (${starts(scan, shape)})`
    const byK = `SELECT NULL, NULL, k, ${users}, NULL FROM (${pairs(scan, shape, p)}) GROUP BY k`
    if (shape.side === null) {
      return [
        all,
        `SELECT s, NULL, NULL, ${users}, NULL FROM (${starts(scan, shape)}) GROUP BY s`,
        `SELECT s, NULL, k, ${users}, NULL FROM (${pairs(scan, shape, p)}) GROUP BY s, k`,
        byK,
      ].join('\n    UNION ALL ')
    }
    return [
      all,
      ...(shape.side === 'first' ? [`SELECT NULL, d, NULL, ${users}, NULL FROM (${starts(scan, shape)}) GROUP BY d`] : []),
      `SELECT NULL, d, k, ${users}, NULL FROM (${pairs(scan, shape, p)}) GROUP BY d, k`,
      byK,
    ].join('\n    UNION ALL ')
  },

  retentionCellUsers: (scan, shape, cell, p) => {
    const where = (own: boolean) =>
      [...(cell.s === null ? [] : [`s = ${p.add(cell.s)}`]), ...(cell.d === null || !own ? [] : [`d = ${p.add(cell.d)}`])].join(' AND ') || '1'
    const starters = () => `SELECT DISTINCT uid FROM (${starts(scan, shape)}) WHERE ${where(shape.side === 'first')}`
    if (cell.k === null) return starters()
    const returned = () => `SELECT DISTINCT uid FROM (${pairs(scan, shape, p)}) WHERE k = ${p.add(cell.k!)} AND ${where(true)}`
    return cell.returned ? returned() : `${starters()} AND uid NOT IN (${returned()})`
  },
}
