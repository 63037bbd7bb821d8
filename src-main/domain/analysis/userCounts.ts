import type { Breakdown } from './breakdown'

/**
 * Distinct users per group for event analysis, counted the cheapest safe way. Users are dense
 * integers (distinct_id, numbered from 1 at import), so one group's users fit a bitmap of one bit
 * per id: `bitstring_agg(distinct_id)` (its id range read from the column's statistics, which cover
 * every stored row) counted by bit_count. On 10M events that is 3 to 4 times faster than
 * count(DISTINCT), which hashes every (group, user) pair. But a bitmap costs ids / 8 bytes per
 * group and per thread whatever the group holds, so bitmaps are used only while
 * groups x threads x ids / 8 stays under BITMAP_BUDGET; otherwise count(DISTINCT) as before.
 * Groups are estimated before the query from the periods and each breakdown's possible values: its
 * buckets, or its column's approximate distinct count kept in DuckDB's statistics (`stats()`),
 * with a margin. A breakdown whose values cannot be bounded that way (lists) keeps count(DISTINCT).
 */

/** The most memory the bitmaps of one query may take, in bytes. */
export const BITMAP_BUDGET = 256 * 2 ** 20
/** HyperLogLog estimates may be a little low: bound each breakdown's values generously. */
const MARGIN = 1.5

export interface UserCountFacts {
  /** distinct_id range of event_vd (null when it holds no events). */
  lo: number | null
  hi: number | null
  threads: number
  /** Per breakdown: its possible labels (unknown included), or null when they cannot be bounded. */
  labels: (number | null)[]
}

/** The statistics one breakdown reads: the table and column of its property, or null if none is needed. */
function statsSource(b: Breakdown): string | null {
  const sql = b.property.sql
  if (b.buckets || b.property.dataType === 'boolean' || sql.startsWith('NULL::') || b.property.dataType === 'array<string>') return null
  // property sql is `e."<id>"`/`e.xwho` (event rows) or `u."<id>"` (profiles): checked identifiers only
  return `(SELECT stats(${sql}) FROM ${sql.startsWith('u.') ? 'profile_vd u' : 'event_vd e'} LIMIT 1)`
}

/** One small statement, answered from table statistics: the id range, the threads and each breakdown's statistics. */
export function factsSql(byFields: Breakdown[]): string {
  const stats = byFields.map((b, i) => `${statsSource(b) ?? 'NULL'} AS s${i}`)
  return `SELECT (SELECT min(distinct_id) FROM event_vd) AS lo, (SELECT max(distinct_id) FROM event_vd) AS hi,
                 current_setting('threads') AS threads${stats.map((s) => `, ${s}`).join('')}`
}

/** The possible labels of one breakdown (unknown included), from its kind or its statistics text. */
function labelsOf(b: Breakdown, stats: unknown): number | null {
  if (b.buckets) return b.buckets.length + 2
  if (b.property.dataType === 'array<string>') return null
  if (b.property.sql.startsWith('NULL::')) return 1
  if (b.property.dataType === 'boolean') return 3
  // an empty table has no statistics row; its query is cheap either way
  const approx = typeof stats === 'string' ? /Approx Unique: (\d+)/.exec(stats) : null
  return approx ? Math.ceil(Number(approx[1]) * MARGIN) + 1 : null
}

export function readFacts(row: Record<string, unknown>, byFields: Breakdown[]): UserCountFacts {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v))
  return { lo: num(row.lo), hi: num(row.hi), threads: Number(row.threads) || 1, labels: byFields.map((b, i) => labelsOf(b, row[`s${i}`])) }
}

/** Whether bitmaps fit the budget for `periods` period groups (plus the whole range) per label combination. */
export function useBitmaps(facts: UserCountFacts, periods: number): boolean {
  if (facts.lo === null || facts.hi === null || facts.labels.some((l) => l === null)) return false
  const groups = (periods + 1) * facts.labels.reduce<number>((n, l) => n * l!, 1)
  const bytes = groups * facts.threads * Math.ceil((facts.hi - facts.lo + 1) / 8)
  return bytes <= BITMAP_BUDGET
}

/** The number of distinct users among the rows where `condition` holds, by bitmap (0 when none, as count(DISTINCT)). */
export function bitmapUsersSql(condition: string): string {
  return `COALESCE(bit_count(bitstring_agg(distinct_id) FILTER (WHERE ${condition})), 0)`
}
