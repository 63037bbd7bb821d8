import type { Dialect } from '../../src-main/warehouse/dialect'
import { ids, local, SH, type Case } from './dialectCases'

/** The other parts' cases (users, sampling, lists, text, numbers, clauses, user sets) over dialectCases.ts' events. */

/** DuckDB's hash of a BIGINT (its MurmurHash64 finaliser), by hand: the rule a stable user sample keeps. */
export function duckdbHash(id: number): bigint {
  const M = 0xd6e8feb86659fd93n
  const mask = (1n << 64n) - 1n
  let x = BigInt(id) & mask
  x ^= x >> 32n
  x = (x * M) & mask
  x ^= x >> 32n
  x = (x * M) & mask
  return x ^ (x >> 32n)
}

/** The users 1..1000 a 30 % sample keeps: how many, and the sum of their ids. */
const SAMPLED = Array.from({ length: 1000 }, (_, i) => i + 1).filter((id) => duckdbHash(id) % 10000n < 3000n)

export const VALUE_CASES: Case[] = [
  // users: exact distinct counts; a "bitmap" of ids on ClickHouse is an array, on DuckDB a bitstring
  {
    name: 'distinct counts, with a condition and with a NULL-valued condition',
    zone: SH,
    select: (d) => `${d.distinctCount('e.s')}, ${d.distinctCount('e.s', 'e.n > 1')}, ${d.distinctCount('e.s', 'e.b')}`,
    aggregate: true,
    rows: [[5, 3, 3]],
  },
  {
    name: 'bitmaps of users: counts, an intersection, an empty group, users by condition',
    zone: SH,
    select: (d) =>
      [
        d.bitmapCount(d.bitmapOf('e.uid')),
        `COALESCE(${d.bitmapCount(d.bitmapOf('e.uid', 'e.n > 1'))}, 0)`,
        `COALESCE(${d.bitmapCount(d.bitmapOf('e.uid', 'e.n > 1e20'))}, 0)`,
        d.bitmapCount(d.bitmapAnd(d.bitmapOf('e.uid', 'e.b'), d.bitmapOf('e.uid', 'e.n > 1'))),
        d.bitmapCount(d.bitmapIn('e.uid', '3')),
        d.bitmapUsers('e.uid', 'e.b'),
        d.bitmapUsers('e.uid', 'e.n > 1e20'),
      ].join(', '),
    aggregate: true,
    rows: [[3, 2, 0, 1, 3, 2, 0]],
  },
  {
    name: 'the union of the bitmaps of groups (NULL group included)',
    zone: SH,
    select: (d) => d.bitmapCount(d.bitmapUnion('t.bm')),
    from: (d) => `(SELECT ${d.bitmapIn('e.uid', '3')} AS bm FROM ev e GROUP BY e.b) t`,
    aggregate: true,
    rows: [[3]],
  },
  // arrays
  {
    name: 'list length, any of a list literal, some element containing, a mapped list',
    zone: SH,
    select: (d) =>
      `${d.length('e.tags')}, ${d.hasAny('e.tags', d.list(["'a'", "'c'"]))}, CASE WHEN ${d.some('e.tags', (x) => d.contains(x, "'b'"))} THEN 1 ELSE 0 END, ${d.hasAny(d.map('e.tags', (x) => `concat(${x}, '!')`), d.list(["'a!'"]))}`,
    rows: [[3, 1, 1, 1], [0, 0, 0, 0], [1, 0, 0, 0], [2, 1, 1, 0], [0, 0, 0, 0], [1, 1, 0, 1], [1, 1, 0, 0]],
  },
  {
    name: 'values of a list property: distinct elements, an empty list as one NULL',
    zone: SH,
    select: () => 't.v, count(*)',
    from: (d) => `(SELECT ${d.unnest(d.orNullElement(d.distinctElements('e.tags')))} AS v FROM ev e) t`,
    tail: () => 'GROUP BY t.v ORDER BY t.v NULLS FIRST',
    rows: [[null, 2], ['a', 2], ['b', 2], ['c', 2], ['x', 1]],
  },
  {
    name: 'list methods on a list aliased x, as the property values query names it (no lambda takes the alias)',
    zone: SH,
    select: (d) => `${d.length(d.distinctElements('x'))}, CASE WHEN ${d.some('x', (v) => `${v} = 'a'`)} THEN 1 ELSE 0 END`,
    from: () => '(SELECT e.tags AS x, e.id AS id FROM ev e) t',
    tail: () => 'ORDER BY t.id',
    rows: [[2, 1], [0, 0], [1, 0], [2, 0], [0, 0], [1, 1], [1, 0]],
  },
  {
    name: 'collected distinct values and concatenated lists',
    zone: SH,
    select: (d) => `${d.length(d.collectDistinct('e.s', 'e.s IS NOT NULL'))}, ${d.length(d.concatLists('e.tags', '1 = 1'))}, ${d.length(d.distinctElements(d.concatLists('e.tags', '1 = 1')))}`,
    aggregate: true,
    rows: [[5, 8, 4]],
  },
  // text
  {
    name: 'contains and ends with (NULL stays NULL)',
    zone: SH,
    select: (d) => `${d.contains('e.s', "'pp'")}, ${d.endsWith('e.s', "'e'")}`,
    rows: [[1, 1], [1, 1], [null, null], [0, 0], [0, 0], [0, 0], [1, 1]],
  },
  {
    name: 'numbers and booleans as text (whole numbers without .0)',
    zone: SH,
    select: (d) => `${d.asText('e.n', 'number')}, ${d.asText('e.b', 'boolean')}, ${d.asText('e.s', 'string')}`,
    where: ids([1, 2, 3, 4, 6]),
    rows: [['5', 'true', 'apple'], ['2.5', 'false', 'Apple pie'], [null, null, null], ['-7', 'true', 'pear'], ['0.1', 'true', 'line\nbreak']],
  },
  {
    name: 'a local time as text',
    zone: SH,
    select: (d) => d.asText(local(d), 'datetime'),
    where: ids([1]),
    rows: [['2023-12-31 23:59:59']],
  },
  // numbers
  {
    name: 'integer division, bit operations on 64-bit values',
    zone: SH,
    select: (d) => {
      const one = d.cast('1', 'bigint')
      return `${d.intDiv('-7', '2')}, ${d.intDiv('7', '2')}, ${d.bitOr([one, d.cast('2', 'bigint'), d.cast('8', 'bigint')])}, ${d.bitAnd(d.cast('13', 'bigint'), '6')}, ${d.shiftLeft(one, '40')}, ${d.shiftRight(d.cast('1099511627776', 'bigint'), '38')}`
    },
    where: ids([1]),
    rows: [[-3, 3, 11, 4, 1099511627776, 4]],
  },
  {
    name: 'bitwise OR of a group, and of no rows (NULL)',
    zone: SH,
    select: (d) => `${d.bitOrAgg('e.uid')}, (SELECT ${d.bitOrAgg('x.uid')} FROM ev x WHERE x.n > 1e20)`,
    aggregate: true,
    rows: [[3, null]],
  },
  {
    name: 'a series unnested, and a series as a table',
    zone: SH,
    select: () => 'sum(t.k), count(*)',
    from: (d) => `(SELECT ${d.unnest(d.series('2', '6'))} AS k) t`,
    aggregate: true,
    rows: [[14, 4]],
  },
  {
    name: 'a series table: its rows',
    zone: SH,
    select: () => 'count(*), sum(t.b), min(t.b)',
    from: (d) => d.seriesTable('0', '3', 't', 'b'),
    aggregate: true,
    rows: [[3, 3, 0]],
  },
  ...[4, 7, 20, 1].map((n) => ({
    name: `discrete quantiles of 1..${n} (DuckDB's quantile_disc), and every`,
    zone: SH,
    select: (d: Dialect) => `${d.quantile('t.b', 0.95)}, ${d.quantile('t.b', 0.5)}, ${d.quantile('t.b', 0.25)}, ${d.every('t.b > 0')}, ${d.every('t.b > 1')}`,
    from: (d: Dialect) => d.seriesTable('1', String(n + 1), 't', 'b'),
    aggregate: true,
    rows: [{ 4: [4, 2, 1, 1, 0], 7: [7, 4, 2, 1, 0], 20: [19, 10, 5, 1, 0], 1: [1, 1, 1, 1, 0] }[n]!],
  })),
  {
    name: 'quantile and every of no rows: NULL',
    zone: SH,
    select: (d) => `${d.quantile('t.b', 0.5)}, ${d.every('t.b > 0')}`,
    from: (d) => d.seriesTable('1', '1', 't', 'b'),
    aggregate: true,
    rows: [[null, null]],
  },
  // query
  {
    name: 'any value of a group, and a GROUP BY of the selected columns (NULL group first)',
    zone: SH,
    select: (d) => `e.b, count(*), ${d.anyValue("CASE WHEN e.id = 7 THEN e.s END")}`,
    tail: (d) => `${d.groupByAll(['e.b'])} ORDER BY e.b NULLS FIRST`,
    rows: [[null, 2, 'apple'], [0, 2, null], [1, 3, null]],
  },
  {
    name: 'a record of a row: alias.column readable from outside its query',
    zone: SH,
    select: () => 'r.uid, r.id',
    from: (d) => `(SELECT e.id AS id, ${d.record(['uid', 'id'], 'r')} FROM ev e WHERE e.id IN (2, 4)) t`,
    tail: () => 'ORDER BY t.id',
    rows: [[2, 2], [3, 4]],
  },
  {
    name: 'every column of a row but some',
    zone: SH,
    select: (d) => d.allColumnsBut('e', ['id', 'uid', 'xwhen', 'tags', 'n', 'b'], ['id', 'uid', 'xwhen', 's', 'n', 'b', 'tags']),
    where: ids([1, 3]),
    rows: [['apple'], [null]],
  },
  // user sets
  {
    name: 'the value of the smallest keys (ties broken by the next key), ids in a list',
    zone: SH,
    select: (d, p) => {
      return `${d.firstBy('e.s', ['e.n', 'e.id'])}, ${d.firstBy('e.s', ['e.uid', 'e.id'])}, sum(CASE WHEN ${d.inIds('e.uid', [2, 3], p)} THEN 1 ELSE 0 END), sum(CASE WHEN ${d.inIds('e.uid', [], p)} THEN 1 ELSE 0 END)`
    },
    aggregate: true,
    rows: [['pear', 'apple', 4, 0]],
  },
  // sampling
  {
    name: 'a stable 30 % sample of users 1..1000: the same users as DuckDB keeps',
    zone: SH,
    select: () => 'count(*), sum(t.b)',
    from: (d) => d.seriesTable('1', '1001', 't', 'b'),
    where: (d) => d.userSample(0.3, 't.b'),
    aggregate: true,
    rows: [[SAMPLED.length, SAMPLED.reduce((a, b) => a + b, 0)]],
  },
  {
    name: 'a sample of everyone, and of a negative id (hashed as 64 unsigned bits)',
    zone: SH,
    select: (d) => `sum(CASE WHEN ${d.userSample(1, 't.b')} THEN 1 ELSE 0 END), sum(CASE WHEN ${d.userSample(0.5, 't.b - 6')} THEN 1 ELSE 0 END)`,
    from: (d) => d.seriesTable('1', '6', 't', 'b'),
    aggregate: true,
    rows: [[5, [-5, -4, -3, -2, -1].filter((id) => duckdbHash(id) % 10000n < 5000n).length]],
  },
]
