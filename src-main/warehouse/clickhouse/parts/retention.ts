import type { SqlParams } from '../../dialect'
import type { RetentionCellAt, RetentionPart, RetentionShape } from '../../parts/retention'
import { measureCellsSql } from './retentionMeasure'

/**
 * Retention from each user's lists of periods, in one pass over the scan. DuckDB's form (bitmaps
 * joined on a range of periods, window functions for "on or after", GROUPING SETS, EXCEPT) has no
 * 18.16 spelling: its JOIN takes equalities only and one per SELECT, and there are no window
 * functions, bitmaps or `WITH name AS (subquery)`. So one GROUP BY per user gathers the periods of
 * their initial events (`fs`, with the label on the initial side: `fds`) and of their return events
 * (`rs`, `rds`); array functions then give each user the keys of every cell they count in, each
 * once: (s, k) without a breakdown, (has label, label, k) with one, -1 standing for "every period"
 * (s) and "the starters" (k). ARRAY JOIN over the keys and `count()` per key gives every row of the
 * answer from that one GROUP BY (it was one scan and one GROUP BY per row kind, counted with
 * `uniqExact`: three times the time). The users of a cell are those whose keys hold its key, so a
 * cell's list and its count cannot differ.
 *
 * ClickHouse's own `retention(c1, c2, …)` was not used: it answers per group whether c1 and each
 * ci held, so it needs one group per (user, initial period) and a condition per offset naming
 * that period, while the spec's $ALL row counts a user once over every period they started in.
 * Lambdas never capture a column (18.16 reads it only when it is also read outside the lambda):
 * a list a lambda needs comes as an argument, repeated by `arrayResize([list], n, list)`.
 * Flattening is `arrayReduce('groupArrayArray', …)` (no `arrayFlatten` on 18.16).
 *
 * A measure needs each (user, return period)'s values: retentionMeasure.ts.
 */

const NULLS = { s: 'CAST(NULL AS Nullable(Int64))', d: 'CAST(NULL AS Nullable(String))', k: 'CAST(NULL AS Nullable(Int64))', m: 'CAST(NULL AS Nullable(Float64))' }

const flatten = (lists: string) => `arrayReduce('groupArrayArray', ${lists})`
/** `list` repeated once per element of `along`, so a lambda over `along` gets it as an argument. */
const beside = (list: string, along: string) => `arrayResize([${list}], length(${along}), ${list})`

/** Per user with an initial event: the periods (with labels) of their initial and return events. */
function lists(scan: string, shape: RetentionShape): string {
  const period = 'toInt64(period)'
  const f = 'ifNull(f, 0)'
  const r = 'ifNull(r, 0)'
  // the label is never NULL (the breakdown's COALESCE): assumeNotNull keeps the key tuples of one type
  const labelled = `tuple(${period}, assumeNotNull(d))`
  return `SELECT * FROM (SELECT uid, groupUniqArrayIf(${period}, ${f}) AS fs, groupUniqArrayIf(${period}, ${r}) AS rs
      ${shape.side === 'first' ? `, groupUniqArrayIf(${labelled}, ${f}) AS fds` : ''}
      ${shape.side === 'return' ? `, groupUniqArrayIf(${labelled}, ${r}) AS rds` : ''}
    FROM (${scan}) GROUP BY uid) WHERE notEmpty(fs)`
}

/**
 * The offsets' SQL of one request: `within` keeps 0..duration; `reach` is what one (user, period
 * [, label]) keeps of its offsets: each ("on"), or only the latest ("on or after": the key then
 * stands for 0 up to it, spread when counted: one key, not one per offset, so 10M events stay under
 * the memory limit); `all` the user's offsets over every row, each once.
 */
function offsetsOf(shape: RetentionShape, p: SqlParams) {
  const upTo = p.add(shape.duration)
  const latest = (ks: string) => `if(empty(${ks}), emptyArrayInt64(), [arrayReduce('max', ${ks})])`
  return {
    within: (s: string, rs: string) => `arrayFilter(_uba_k -> _uba_k >= 0 AND _uba_k <= ${upTo}, arrayMap(_uba_r -> _uba_r - ${s}, ${rs}))`,
    reach: (ks: string) => (shape.onOrAfter ? latest(ks) : ks),
    all: (ks: string) => (shape.onOrAfter ? latest(ks) : `arrayDistinct(${ks})`),
  }
}

/** Keys (s, k) of a retention without a breakdown: the starters (-1, -1), of each period (s, -1), its cells (s, k) and $ALL's (-1, k). */
function periodKeys(scan: string, shape: RetentionShape, p: SqlParams): string {
  const o = offsetsOf(shape, p)
  const none = 'toInt64(-1)'
  const ks = `arrayMap((_uba_s, _uba_rs) -> ${o.reach(o.within('_uba_s', '_uba_rs'))}, fs, ${beside('rs', 'fs')})`
  return `SELECT uid, arrayConcat([(${none}, ${none})], arrayMap(_uba_s -> (_uba_s, ${none}), fs),
      ${flatten(`arrayMap((_uba_s, _uba_ks) -> arrayMap(_uba_k -> (_uba_s, _uba_k), _uba_ks), fs, ks)`)},
      arrayMap(_uba_k -> (${none}, _uba_k), ${o.all(flatten('ks'))})) AS keys
    FROM (SELECT uid, fs, ${ks} AS ks FROM (${lists(scan, shape)}))`
}

/**
 * Keys (has label, label, k) with a breakdown: the starters (0, '', -1), those of a label on the
 * initial side (1, d, -1), the cells (1, d, k) and the total at k (0, '', k). `pairs`: each
 * (label, offset) of the user's returns from any initial period; "on or after" keeps a label's
 * latest offset (the union of each initial period's 0..latest is 0..the latest of all).
 */
function labelKeys(scan: string, shape: RetentionShape, p: SqlParams): string {
  const o = offsetsOf(shape, p)
  const first = shape.side === 'first'
  const label = (y: string) => `tupleElement(${y}, 1)`
  const offset = (y: string) => `tupleElement(${y}, 2)`
  const pairs = first
    ? flatten(`arrayMap((_uba_sd, _uba_rs) -> arrayMap(_uba_k -> (tupleElement(_uba_sd, 2), _uba_k), ${o.within('tupleElement(_uba_sd, 1)', '_uba_rs')}), fds, ${beside('rs', 'fds')})`)
    : flatten(`arrayMap((_uba_s, _uba_rds) -> arrayFilter(_uba_y -> ${offset('_uba_y')} >= 0 AND ${offset('_uba_y')} <= ${p.add(shape.duration)},
        arrayMap(_uba_x -> (tupleElement(_uba_x, 2), tupleElement(_uba_x, 1) - _uba_s), _uba_rds)), fs, ${beside('rds', 'fs')})`)
  const ofLabel = `arrayMap(_uba_y -> ${offset('_uba_y')}, arrayFilter(_uba_y -> ${label('_uba_y')} = _uba_d, _uba_pairs))`
  const dks = shape.onOrAfter
    ? flatten(`arrayMap((_uba_d, _uba_pairs) -> arrayMap(_uba_k -> (_uba_d, _uba_k), ${o.reach(ofLabel)}), labels, ${beside('pairs', 'labels')})`)
    : 'arrayDistinct(pairs)'
  const starters = first ? 'fds, ' : ''
  return `SELECT uid, arrayConcat([(toUInt8(0), '', toInt64(-1))],
      ${first ? `arrayMap(_uba_d -> (toUInt8(1), _uba_d, toInt64(-1)), arrayDistinct(arrayMap(_uba_sd -> tupleElement(_uba_sd, 2), fds))),` : ''}
      arrayMap(_uba_y -> (toUInt8(1), ${label('_uba_y')}, ${offset('_uba_y')}), dks),
      arrayMap(_uba_k -> (toUInt8(0), '', _uba_k), ${o.all(`arrayMap(_uba_y -> ${offset('_uba_y')}, dks)`)})) AS keys
    FROM (SELECT uid, ${starters}${dks} AS dks FROM (
      SELECT uid, ${starters}pairs, arrayDistinct(arrayMap(_uba_y -> ${label('_uba_y')}, pairs)) AS labels FROM (
        SELECT uid, ${starters}${pairs} AS pairs FROM (${lists(scan, shape)}))))`
}

/** The keys a cell's users are found by: a day's cell is a period's, with or without a breakdown. */
function keysFor(scan: string, shape: RetentionShape, cell: RetentionCellAt, p: SqlParams): string {
  if (shape.side === null || cell.s !== null) return periodKeys(scan, { ...shape, side: null }, p)
  return labelKeys(scan, shape, p)
}

/**
 * The test of a user's keys for the key of (s, d, k), typed as the keys are; "on or after": a key
 * at k or later (it stands for every offset up to its own).
 */
function holds(shape: RetentionShape, s: number | null, d: string | null, k: number | null, p: SqlParams): string {
  const n = (x: number | null) => `toInt64(${x === null ? -1 : p.add(x)})`
  const key = shape.side === null ? [n(s), n(k)] : d === null ? [`toUInt8(0)`, `''`, n(k)] : [`toUInt8(1)`, p.add(d), n(k)]
  if (k === null || !shape.onOrAfter) return `has(keys, (${key.join(', ')}))`
  const parts = key.map((x, i) => `tupleElement(_uba_key, ${i + 1}) ${i === key.length - 1 ? '>=' : '='} ${x}`)
  return `arrayExists(_uba_key -> ${parts.join(' AND ')}, keys)`
}

/**
 * Every row's count from the keys: `count()` per key (a user holds each once); "on or after"
 * spreads a key at k over the offsets 0..k.
 */
function countsSql(keys: string, columns: string[], shape: RetentionShape): string {
  const k = columns[columns.length - 1]
  const grouped = `SELECT ${columns.map((c, i) => `tupleElement(key, ${i + 1}) AS ${c}`).join(', ')}, count() AS n FROM (${keys}) ARRAY JOIN keys AS key GROUP BY ${columns.join(', ')}`
  if (!shape.onOrAfter) return grouped
  const others = columns.slice(0, -1)
  const upTo = `if(${k} < 0, [${k}], arrayMap(_uba_i -> toInt64(_uba_i), range(toUInt64(${k} + 1))))`
  return `SELECT ${others.join(', ')}, at_k AS ${k}, sum(n) AS n FROM (SELECT ${others.join(', ')}, arrayJoin(${upTo}) AS at_k, n FROM (${grouped})) GROUP BY ${others.join(', ')}, at_k`
}

export const retention: RetentionPart = {
  // a second JOIN beside the calendar's is error 48 on 18.16: a (user, instant) test instead
  atFirstEver: (firstEver) => ({ join: '', condition: `(e.distinct_id, e.xwhen) IN (SELECT distinct_id, first_at FROM (${firstEver}))` }),

  // its "bitmaps" are arrays of ids (users.ts), and retentionCells answers every shape
  bitmapBytes: () => null,

  retentionCells: (scan, shape, p) => {
    if (shape.measure) return measureCellsSql(scan, shape, p, NULLS)
    const kept = (x: string) => `if(${x} < 0, NULL, ${x})`
    if (shape.side === null) {
      return `SELECT ${kept('key_s')} AS s, ${NULLS.d} AS d, ${kept('key_k')} AS k, n, ${NULLS.m} AS m
        FROM (${countsSql(periodKeys(scan, shape, p), ['key_s', 'key_k'], shape)})`
    }
    return `SELECT ${NULLS.s} AS s, if(key_has = 1, key_d, NULL) AS d, ${kept('key_k')} AS k, n, ${NULLS.m} AS m
      FROM (${countsSql(labelKeys(scan, shape, p), ['key_has', 'key_d', 'key_k'], shape)})`
  },

  retentionCellUsers: (scan, shape, cell, p) => {
    const keys = keysFor(scan, shape, cell, p)
    const on = cell.s !== null ? { ...shape, side: null } : shape
    // the row's starters: a return-side label is not theirs (every starter is in its row)
    const starters = holds(on, cell.s, shape.side === 'return' ? null : cell.d, null, p)
    if (cell.k === null) return `SELECT uid FROM (${keys}) WHERE ${starters}`
    const returned = holds(on, cell.s, cell.d, cell.k, p)
    return `SELECT uid FROM (${keys}) WHERE ${cell.returned ? returned : `${starters} AND NOT ${returned}`}`
  },
}
