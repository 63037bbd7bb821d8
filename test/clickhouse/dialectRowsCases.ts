import type { Dialect } from '../../src-main/warehouse/dialect'
import { SH, type Case } from './dialectCases'

/**
 * The event rows with their users' profiles beside another join (the query part's eventRows, nested
 * on ClickHouse: 18.16 takes one JOIN per SELECT), missing lists, and plain aggregates over no value:
 * the cases run by dialect.test.ts (DuckDB, ClickHouse 18.16) and dialect-current.test.ts (chDB)
 * over dialectCases.ts' events and the profiles below.
 */

/** profile_vd of the cases: user 1 gold with [x, NULL]; user 2 with no tier and no list; user 3 has no profile row. */
export const PROFILES = { duckdb: "(1, 'u1', 'gold', ['x', NULL]), (2, 'u2', NULL, NULL)", clickhouse: "(1, 'u1', 'gold', ['x', NULL]), (2, 'u2', NULL, [])" }
export const PROFILE_TABLE = {
  duckdb: 'CREATE TABLE profile_vd (distinct_id BIGINT, xwho VARCHAR, tier VARCHAR, tags VARCHAR[])',
  clickhouse: 'CREATE TABLE profile_vd (distinct_id Int64, xwho String, tier Nullable(String), tags Array(Nullable(String))) ENGINE = MergeTree ORDER BY xwho',
}

/** A join of the events to a number per user (every user has one), the calendar's place in the analyses. */
const perUser = (d: Dialect) => {
  const row = (uid: number, k: number) => `SELECT ${d.cast(String(uid), 'bigint')} AS uid2, ${k} AS k`
  return { sql: `JOIN (${row(1, 10)} UNION ALL ${row(2, 20)} UNION ALL ${row(3, 30)}) j ON j.uid2 = e.distinct_id`, alias: 'j', columns: ['k'] }
}

/** The campaign analysis' join of the events to each user's arrival: a key and a range. */
const firstsJoin = (d: Dialect) => d.innerJoinOn('a.uid2 = e.distinct_id', 'e.id >= a.first_id')

export const ROWS_CASES: Case[] = [
  {
    name: 'the profile beside another join: a missing profile reads NULL and a missing list, a list with a NULL element',
    zone: SH,
    from: (d) => d.eventRows({ rows: '(SELECT *, uid AS distinct_id FROM ev)', joins: [perUser(d)], profile: ['tier', 'tags'], eventWhere: 'e.id < 7' }),
    select: (d) => `e.id, j.k, u.tier, ${d.listMissing('u.tags', true)}, ${d.listMissing('u.tags', false)}, COALESCE(${d.some('u.tags', (x) => d.contains(x, "'x'"))}, ${d.truth(false)})`,
    where: () => 'e.id < 7',
    tail: () => 'ORDER BY e.id',
    rows: [
      [1, 10, 'gold', 0, 1, 1],
      [2, 20, null, 1, 0, 0],
      [3, 10, 'gold', 0, 1, 1],
      [4, 30, null, 1, 0, 0],
      [5, 20, null, 1, 0, 0],
      [6, 30, null, 1, 0, 0],
    ],
  },
  {
    name: 'a crowd of users (an IN subquery, as cohorts filter) beside the nested joins',
    zone: SH,
    from: (d) => d.eventRows({ rows: '(SELECT *, uid AS distinct_id FROM ev)', joins: [perUser(d)], profile: ['tier'], eventWhere: 'e.id < 7' }),
    select: () => 'e.id, j.k, u.tier',
    where: () => "e.id < 7 AND e.distinct_id IN (SELECT distinct_id FROM profile_vd WHERE xwho = 'u1')",
    tail: () => 'ORDER BY e.id',
    rows: [
      [1, 10, 'gold'],
      [3, 10, 'gold'],
    ],
  },
  {
    name: 'the profile alone, and a user property named like an event property',
    zone: SH,
    from: (d) => d.eventRows({ rows: '(SELECT *, uid AS distinct_id, s AS tier FROM ev)', profile: ['tier'] }),
    select: () => 'e.id, e.tier, u.tier',
    where: () => 'e.id IN (1, 4)',
    tail: () => 'ORDER BY e.id',
    rows: [
      [1, 'apple', 'gold'],
      [4, 'pear', null],
    ],
  },
  {
    name: 'an inner join on a key and a range (18.16: equalities only in ON), beside the profile',
    zone: SH,
    // each user's first event from id 3 on (uid 1: 3, 2: 5, 3: 4), joined to its events at or after it
    from: (d) => d.eventRows({ rows: '(SELECT *, uid AS distinct_id FROM ev)', joins: [{ sql: `JOIN (SELECT uid AS uid2, min(id) AS first_id FROM ev WHERE id >= 3 GROUP BY uid) a ON ${firstsJoin(d).on}`, alias: 'a', columns: ['first_id'] }], profile: ['tier'] }),
    select: () => 'e.id, a.first_id, u.tier',
    where: (d) => ['e.id < 100', firstsJoin(d).where].filter(Boolean).join(' AND '),
    tail: () => 'ORDER BY e.id',
    rows: [
      [3, 3, 'gold'],
      [4, 4, null],
      [5, 5, null],
      [6, 4, null],
      [7, 3, 'gold'],
    ],
  },
  {
    name: 'the events with two joins and no profile',
    zone: SH,
    from: (d) => d.eventRows({ rows: 'ev', joins: [{ ...perUser(d), sql: perUser(d).sql.replace('e.distinct_id', 'e.uid') }, { sql: `JOIN (SELECT ${d.cast('4', 'bigint')} AS id2, 'four' AS w) w ON w.id2 = e.id`, alias: 'w', columns: ['w'] }], profile: null }),
    select: () => 'e.id, j.k, w.w',
    rows: [[4, 30, 'four']],
  },
  {
    name: 'plain aggregates over no value are NULL, over values as usual',
    zone: SH,
    select: (d) => `${d.aggregate('avg', 'e.n')}, ${d.aggregate('max', 'e.uid')}, ${d.aggregate('min', 'e.uid')}, ${d.aggregate('sum', 'e.uid')}`,
    from: () => '(SELECT * FROM ev) e',
    where: () => 'e.id > 100',
    rows: [[null, null, null, null]],
  },
  {
    name: 'plain aggregates skip NULLs',
    zone: SH,
    select: (d) => `${d.aggregate('avg', 'e.n')}, ${d.aggregate('max', 'e.uid')}, ${d.aggregate('min', 'e.n')}, ${d.aggregate('sum', 'e.uid')}`,
    from: () => '(SELECT * FROM ev) e',
    where: () => 'e.id IN (2, 3, 4)',
    rows: [[-2.25, 3, -7, 6]],
  },
]
