import type { Dialect, SqlParams } from '../../src-main/warehouse/dialect'

/**
 * The Dialect's parts as one table of cases, run by dialect.test.ts on ClickHouse 18.16 (the
 * ClickHouse dialect) and on DuckDB (the DuckDB dialect) over the same rows, each with values
 * computed by hand. A case is a SELECT list over the events `e` (the rows below) with an optional
 * WHERE; every answer is normalised (bigint and booleans to numbers) before it is compared.
 */
export interface Case {
  name: string
  /** The project's time zone the case runs in. */
  zone: string
  /** The selected expressions (one row expected per event, in `id` order, unless `aggregate`). */
  select: (d: Dialect, p: SqlParams) => string
  where?: (d: Dialect, p: SqlParams) => string
  /** The FROM clause: the events `e` unless given. */
  from?: (d: Dialect) => string
  /** Ends the statement (GROUP BY ..., ORDER BY ...); rows are ordered by e.id without it. */
  tail?: (d: Dialect) => string
  aggregate?: boolean
  /** The selected rows, each an array of column values. */
  rows: unknown[][]
}

/** One event row: epoch ms, and the property values (s string, n number, b boolean, tags list). */
export interface EventRow {
  id: number
  /** distinct_id */
  uid: number
  ms: number
  s: string | null
  n: number | null
  b: boolean | null
  tags: string[]
}

const at = (iso: string) => Date.parse(iso)

/**
 * Events around the edges: a new year in Shanghai, New York's spring-forward (2024-03-10, 02:00
 * EST -> 03:00 EDT) and fall-back (2024-11-03, 02:00 EDT -> 01:00 EST) days, a month end, a Sunday
 * and the Monday after, milliseconds.
 */
export const EVENTS: EventRow[] = [
  { id: 1, uid: 1, ms: at('2023-12-31T15:59:59.999Z'), s: 'apple', n: 5, b: true, tags: ['a', 'b', 'a'] }, // Shanghai 2023-12-31 23:59:59.999 (Sunday)
  { id: 2, uid: 2, ms: at('2023-12-31T16:00:00.000Z'), s: 'Apple pie', n: 2.5, b: false, tags: [] }, // Shanghai 2024-01-01 00:00 (Monday)
  { id: 3, uid: 1, ms: at('2024-03-10T06:59:59.000Z'), s: null, n: null, b: null, tags: ['x'] }, // New York 01:59:59 EST
  { id: 4, uid: 3, ms: at('2024-03-10T07:00:00.250Z'), s: 'pear', n: -7, b: true, tags: ['b', 'c'] }, // New York 03:00:00.250 EDT
  { id: 5, uid: 2, ms: at('2024-11-03T05:30:00.000Z'), s: 'a,"b"', n: 1e15, b: false, tags: [] }, // New York 01:30 EDT
  { id: 6, uid: 3, ms: at('2024-11-03T06:30:00.000Z'), s: 'line\nbreak', n: 0.1, b: true, tags: ['a'] }, // New York 01:30 EST
  { id: 7, uid: 1, ms: at('2024-03-31T12:00:00.000Z'), s: 'apple', n: 5, b: null, tags: ['c'] }, // a month's last day everywhere here
]


export const SH = 'Asia/Shanghai'
const NY = 'America/New_York'
export const local = (d: Dialect) => d.localTime('e.xwhen')
const stamp = (d: Dialect, x: string) => d.formatStamp(x)
export const ids = (list: number[]) => () => `e.id IN (${list.join(', ')})`

/** Time in the project's zone. */
export const TIME_CASES: Case[] = [
  // time
  {
    name: 'local time and its day number, Shanghai across the new year',
    zone: SH,
    select: (d) => `${stamp(d, local(d))}, ${d.dayNumber(d.cast(local(d), 'date'))}`,
    where: ids([1, 2]),
    rows: [['2023-12-31 23:59:59', 20231231], ['2024-01-01 00:00:00', 20240101]],
  },
  {
    name: 'local time across New York DST changes (23-hour and 25-hour days)',
    zone: NY,
    select: (d) => `${stamp(d, local(d))}, ${d.dayNumber(d.cast(local(d), 'date'))}`,
    where: ids([3, 4, 5, 6]),
    rows: [['2024-03-10 01:59:59', 20240310], ['2024-03-10 03:00:00', 20240310], ['2024-11-03 01:30:00', 20241103], ['2024-11-03 01:30:00', 20241103]],
  },
  {
    name: 'day, week (Monday) and month starts, Shanghai',
    zone: SH,
    select: (d) => ['day', 'week', 'month'].map((u) => stamp(d, d.periodStart(u as 'day', local(d)))).join(', '),
    where: ids([1, 2, 7]),
    rows: [
      ['2023-12-31 00:00:00', '2023-12-25 00:00:00', '2023-12-01 00:00:00'],
      ['2024-01-01 00:00:00', '2024-01-01 00:00:00', '2024-01-01 00:00:00'],
      ['2024-03-31 00:00:00', '2024-03-25 00:00:00', '2024-03-01 00:00:00'],
    ],
  },
  {
    name: 'hour and minute starts on the DST days, New York',
    zone: NY,
    select: (d) => `${stamp(d, d.periodStart('hour', local(d)))}, ${stamp(d, d.periodStart('minute', local(d)))}`,
    where: ids([4, 6]),
    rows: [['2024-03-10 03:00:00', '2024-03-10 03:00:00'], ['2024-11-03 01:00:00', '2024-11-03 01:30:00']],
  },
  {
    name: 'week and month starts of dates (calendar periods)',
    zone: SH,
    select: (d) =>
      `${d.dayNumber(d.cast(d.periodStart('week', d.cast("'2024-01-07'", 'date')), 'date'))}, ${d.dayNumber(d.cast(d.periodStart('month', d.cast("'2024-02-29'", 'date')), 'date'))}`,
    where: ids([1]),
    rows: [[20240101, 20240201]],
  },
  {
    name: 'interval arithmetic: a month before a month end, a week, a day, an hour across spring-forward',
    zone: NY,
    select: (d) =>
      [['1', 'month'], ['1', 'week'], ['1', 'day'], ['2', 'hour'], ['90', 'minute']].map(([n, u]) => stamp(d, `(${local(d)} - ${d.interval(n, u as 'day')})`)).join(', '),
    where: ids([4, 7]),
    rows: [
      ['2024-02-10 03:00:00', '2024-03-03 03:00:00', '2024-03-09 03:00:00', '2024-03-10 01:00:00', '2024-03-10 01:30:00'],
      ['2024-02-29 08:00:00', '2024-03-24 08:00:00', '2024-03-30 08:00:00', '2024-03-31 06:00:00', '2024-03-31 06:30:00'],
    ],
  },
  {
    name: 'whole days and months between dates (datediff counts boundaries)',
    zone: SH,
    select: (d) => {
      const date = (t: string) => d.cast(`'${t}'`, 'date')
      return `${d.cast(d.diff('day', date('2023-12-30'), date('2024-01-03')), 'integer')}, ${d.cast(d.diff('month', date('2024-01-31'), date('2024-02-01')), 'integer')}, ${d.cast(d.diff('month', date('2023-12-31'), date('2024-03-01')), 'integer')}`
    },
    where: ids([1]),
    rows: [[4, 1, 3]],
  },
  {
    name: 'the days of a range, over a new year (count, first, last)',
    zone: SH,
    select: (d) => `count(*), min(${d.dayNumber('d')}), max(${d.dayNumber('d')})`,
    from: (d) => d.days(d.cast("'2023-12-30'", 'date'), d.cast("'2024-01-04'", 'date')),
    aggregate: true,
    rows: [[5, 20231230, 20240103]],
  },
  {
    name: 'now as local time, and a parsed local stamp compared with it',
    zone: SH,
    select: (d, p) => {
      const now = d.localNow(Date.parse('2024-01-01T04:05:06.789Z'))
      return `${stamp(d, now)}, ${stamp(d, d.parseStamp(p, '2024/01/01 12:05'))}, CASE WHEN ${d.parseStamp(p, '2024/01/01 12:05:06')} <= ${now} THEN 1 ELSE 0 END`
    },
    where: ids([1]),
    rows: [['2024-01-01 12:05:06', '2024-01-01 12:05:00', 1]],
  },
  {
    name: 'epoch micros and millis of an instant; slashed and export stamps in the zone',
    zone: NY,
    select: (d) => `${d.cast(d.epochMicros('e.xwhen'), 'bigint')}, ${d.epochMillis('e.xwhen')}, ${d.formatSlashed('e.xwhen')}, ${d.exportStamp('e.xwhen')}`,
    where: ids([4, 5]),
    rows: [
      [1710054000250000, 1710054000250, '2024/03/10 03:00:00', '2024-03-10 03:00:00.250'],
      [1730611800000000, 1730611800000, '2024/11/03 01:30:00', '2024-11-03 01:30:00'],
    ],
  },
]

/** bigint and boolean answers as numbers, so both engines' answers compare with one expected row. */
export function norm(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v)
  if (typeof v === 'boolean') return v ? 1 : 0
  if (Array.isArray(v)) return v.map(norm)
  return v
}

export function statement(c: Case, d: Dialect, p: SqlParams): string {
  const from = c.from ? c.from(d) : 'ev e'
  const where = c.where ? ` WHERE ${c.where(d, p)}` : ''
  const tail = c.tail ? ` ${c.tail(d)}` : c.aggregate || c.from ? '' : ' ORDER BY e.id'
  return `SELECT ${c.select(d, p)} FROM ${from}${where}${tail}`
}
