import { beforeAll, describe, expect, it } from 'vitest'
import { setClock } from '../../src-main/domain/time/clock'
import { BITMAP_BUDGET, useBitmaps } from '../../src-main/domain/analysis/userCounts'
import { ENGINES, useEngine, type EngineHost, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'

/** Local Shanghai time (UTC+8) as epoch ms. */
const sh = (local: string) => Date.parse(`${local.replace(' ', 'T')}:00+08:00`)
const rec = (xwho: string, xwhat: string, local: string, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen: sh(local), xcontext })
const base = { crowds: ['$ALL'], fromDate: '2024-01-01', toDate: '2024-01-03', unit: 'DAY' }

/** The events of the range (and one on each side), loaded into a new Shanghai project `ev`. */
async function loadEvents(host: EngineHost): Promise<Project> {
  const p = await host.project('ev', 'Asia/Shanghai')
  const lines = [
    rec('a', 'view', '2023-12-31 23:59', { price: 1, city: 'X' }), // the day before the range
    rec('a', 'view', '2024-01-01 23:30', { price: 10, city: 'X' }),
    rec('a', 'view', '2024-01-02 00:30', { price: 20, city: 'X' }), // same UTC day as the one above, next local day
    rec('b', 'view', '2024-01-02 10:00', { price: 600, city: 'Y' }),
    rec('b', 'pay', '2024-01-02 11:00', { amount: 30 }),
    rec('c', 'view', '2024-01-03 09:00', { price: 800 }),
    rec('a', 'pay', '2024-01-03 12:00', { amount: 50 }),
    rec('c', 'view', '2024-01-05 08:00', { price: 5, city: 'Y' }), // after the range
  ]
  const job = await importAndWait(host.server, p, { path: fixture('ev.jsonl', lines.join('\n')) })
  if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
  return p
}

describe.each(ENGINES)('event analysis, on %s', (engine) => {
  const host = useEngine(engine)
  let p: Project

  beforeAll(async () => {
    p = await loadEvents(host)
  })

  const analyze = (body: Record<string, unknown>, query = '') => host.server.call('POST', `/uba/api/events/analyze${query}`, { headers: p, body })

  // DuckDB only: its statement text with bound values (ClickHouse 18.16 binds nothing: the dialect prints checked literals)
  it.runIf(engine === 'duckdb')('shows the SQL it ran with explain=true, with values bound, not pasted', async () => {
    const res = await analyze({ ...base, measures: [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }] }, '?explain=true')
    expect(res.body.sql).toHaveLength(1)
    expect(res.body.sql[0].sql).toContain('FROM event_vd e')
    expect(res.body.sql[0].sql).not.toContain("'view'")
    expect(res.body.sql[0].params).toContain('view')
  })

  it('counts per local day, with sums over the whole range (distinct users are distinct over the range)', async () => {
    const res = await analyze({
      ...base,
      measures: [
        { expression: 'event.view', aggregator: 'TOTAL_COUNT' },
        { expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' },
        { expression: 'event.view.price', aggregator: 'SUM' },
        { expression: 'event.pay', aggregator: 'AVG_COUNT' },
      ],
    })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      measures: ['view · total count', 'view · users', 'view.price · sum', 'pay · count per user'],
      byFields: [],
      series: ['2024-01-01', '2024-01-02', '2024-01-03'],
      numRows: 1,
      samplingFactor: 1,
    })
    expect(res.body.rows).toEqual([
      {
        byValue: [],
        sum: [4, 3, 1430, 1],
        values: [
          [1, 2, 1],
          [1, 2, 1],
          [10, 620, 800],
          [null, 1, 1],
        ],
      },
    ])
    expect(res.body.reportUpdateTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
  })

  it('buckets a number breakdown, with ties ordered by label', async () => {
    const res = await analyze({ ...base, measures: [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }], byFields: [{ expression: 'event.view.price', buckets: [600, 800] }] })
    expect(res.body.byFields).toEqual(['event.view.price'])
    expect(res.body.rows).toEqual([
      { byValue: ['-∞~600'], sum: [2], values: [[1, 1, 0]] },
      { byValue: ['600~800'], sum: [1], values: [[0, 1, 0]] },
      { byValue: ['800~+∞'], sum: [1], values: [[0, 0, 1]] },
    ])
    expect(res.body.numRows).toBe(3)
  })

  it('labels a missing value unknown, and keeps the top rows by the first measure while counting all', async () => {
    const res = await analyze({ ...base, measures: [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }], byFields: [{ expression: 'event.view.city' }], limit: 2 })
    expect(res.body.rows).toEqual([
      { byValue: ['X'], sum: [2], values: [[1, 1, 0]] },
      { byValue: ['Y'], sum: [1], values: [[0, 1, 0]] },
    ])
    expect(res.body.numRows).toBe(3)
    const all = await analyze({ ...base, measures: [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }], byFields: [{ expression: 'event.view.city' }] })
    expect(all.body.rows[2]).toEqual({ byValue: ['unknown'], sum: [1], values: [[0, 0, 1]] })
  })

  it('applies the global filter and each measure\'s own filter', async () => {
    const res = await analyze({
      ...base,
      filter: { conditions: [{ expression: 'event.view.price', function: 'LT', params: [700] }], relation: 'AND' },
      measures: [
        { expression: 'event.view', aggregator: 'TOTAL_COUNT' },
        { expression: 'event.view', aggregator: 'TOTAL_COUNT', filter: { conditions: [{ expression: 'event.view.city', function: 'EQ', params: ['X'] }] } },
      ],
    })
    expect(res.body.rows[0].sum).toEqual([3, 2])
    expect(res.body.rows[0].values).toEqual([[1, 2, 0], [1, 1, 0]])
  })

  it('groups by week starting Monday, naming a week by its first day even before fromDate', async () => {
    const week = await analyze({ ...base, unit: 'WEEK', measures: [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }] })
    expect(week.body.series).toEqual(['2024-01-01'])
    expect(week.body.rows[0].values).toEqual([[4]])
    const wednesday = await analyze({ ...base, fromDate: '2024-01-03', toDate: '2024-01-08', unit: 'WEEK', measures: [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }] })
    expect(wednesday.body.series).toEqual(['2024-01-01', '2024-01-08'])
    expect(wednesday.body.rows[0].values).toEqual([[2, 0]])
  })

  it('rolls the days up to the range (sums add, extremes compare, users OR), or groups twice where values must be distinct over the range', async () => {
    const measures = ['SUM', 'AVG', 'MAX', 'MIN', 'AVG_PER'].map((aggregator) => ({ expression: 'event.view.price', aggregator }))
    // prices by local day: 10 (a) | 20 (a), 600 (b) | 800 (c); over the range 4 views by 3 users
    const expected = {
      byValue: [],
      sum: [1430, 357.5, 800, 10, 476.666667],
      values: [[10, 620, 800], [10, 310, 800], [10, 600, 800], [10, 20, 800], [10, 310, 800]],
    }
    const rolled = await analyze({ ...base, measures }, '?explain=true')
    // DuckDB's statement text (ClickHouse ORs its users' id arrays, and has no GROUPING SETS in 18.16)
    if (engine === 'duckdb') expect(rolled.body.sql.at(-1).sql).toContain('bit_or(')
    expect(rolled.body.rows).toEqual([expected])
    const distinct = { expression: 'event.view.price', aggregator: 'REMOVE_DUMPLICATE' }
    const twice = await analyze({ ...base, measures: [...measures, distinct] }, '?explain=true')
    if (engine === 'duckdb') expect(twice.body.sql.at(-1).sql).toContain('GROUPING SETS')
    expect(twice.body.rows).toEqual([{ byValue: [], sum: [...expected.sum, 4], values: [...expected.values, [1, 2, 1]] }])
  })

  it('answers an empty range with zero counts and null averages', async () => {
    const res = await analyze({ ...base, fromDate: '2025-01-01', toDate: '2025-01-02', measures: [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }, { expression: 'event.view.price', aggregator: 'AVG' }] })
    expect(res.body.rows).toEqual([{ byValue: [], sum: [0, null], values: [[0, 0], [null, null]] }])
  })

  it('counts a virtual event whose member filter reads a user property', async () => {
    await importAndWait(host.server, p, { path: fixture('people.jsonl', [rec('a', '$profile_set', '2024-01-01 00:00', { tier: 'gold' }), rec('b', '$profile_set', '2024-01-01 00:00', { tier: 'basic' })].join('\n')) })
    const created = await host.server.call('POST', '/uba/api/meta/event/virtual', {
      headers: p,
      body: { id: 'gold_activity', events: [{ expression: 'event.view', filter: { conditions: [{ expression: 'user.tier', function: 'EQ', params: ['gold'] }] } }, { expression: 'event.pay' }] },
    })
    expect(created.status).toBe(200)
    const res = await analyze({ ...base, measures: [{ expression: 'event.gold_activity', aggregator: 'TOTAL_COUNT' }] })
    expect(res.status).toBe(200)
    // a's views on 01-01 and 01-02, and both pays (b on 01-02, a on 01-03)
    expect(res.body.rows[0]).toEqual({ byValue: [], sum: [4], values: [[1, 2, 1]] })
  })

  it('counts distinct users alike by bitmap (bounded breakdowns) and by hashing (list breakdowns)', async () => {
    const q = await host.project('evu', 'Asia/Shanghai')
    const lines = [
      rec('u1', 'view', '2024-01-01 10:00', { city: 'X', tags: ['a'], price: 10 }),
      rec('u1', 'view', '2024-01-01 11:00', { city: 'X', tags: ['a', 'b'], price: 20 }),
      rec('u1', 'view', '2024-01-02 10:00', { city: 'Y', tags: [], price: 40 }),
      rec('u2', 'view', '2024-01-01 12:00', { city: 'Y', tags: ['b'], price: 7 }),
      rec('u2', 'view', '2024-01-02 12:00', { city: 'Y' }),
      rec('u3', 'view', '2024-01-02 13:00', { city: 'X', tags: ['a'], price: 5 }),
    ]
    expect((await importAndWait(host.server, q, { path: fixture('users.jsonl', lines.join('\n')) })).state).toBe('succeeded')
    const measures = [
      { expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' },
      { expression: 'event.view', aggregator: 'AVG_COUNT' },
      { expression: 'event.view.price', aggregator: 'AVG_PER' },
    ]
    const run = (byFields: unknown[]) => host.server.call('POST', '/uba/api/events/analyze?explain=true', { headers: q, body: { ...base, toDate: '2024-01-02', measures, byFields } })
    const city = await run([{ expression: 'event.view.city' }])
    expect(city.status).toBe(200)
    // a few users and labels: bitmaps, sized by a statement that reads only statistics
    expect(city.body.sql).toHaveLength(2)
    // DuckDB's statement text (ClickHouse counts users with uniqExact whatever the breakdown)
    if (engine === 'duckdb') expect(city.body.sql[1].sql).toContain('bitstring_agg(distinct_id)')
    // Y on 01-02: u1 (price 40) and u2 (no price): 2 users, 1 view each, 40 over the 1 user with a price
    expect(city.body.rows).toEqual([
      { byValue: ['X'], sum: [2, 1.5, 17.5], values: [[1, 1], [2, 1], [30, 5]] },
      { byValue: ['Y'], sum: [2, 1.5, 23.5], values: [[1, 2], [1, 1], [7, 40]] },
    ])
    const tags = await run([{ expression: 'event.view.tags' }])
    // list elements cannot be bounded from statistics: count(DISTINCT)
    if (engine === 'duckdb') {
      expect(tags.body.sql[1].sql).toContain('count(DISTINCT distinct_id)')
      expect(tags.body.sql[1].sql).not.toContain('bitstring_agg')
    }
    expect(tags.body.rows).toEqual([
      { byValue: ['a'], sum: [2, 1.5, 17.5], values: [[1, 1], [2, 1], [30, 5]] },
      { byValue: ['b'], sum: [2, 1, 13.5], values: [[2, 0], [1, null], [13.5, null]] },
      { byValue: ['unknown'], sum: [2, 1, 40], values: [[0, 2], [null, 1], [null, 40]] },
    ])
  })

  it('counts distinct users by bitmap by a user property whose statistics an update dropped (its values counted)', async () => {
    const q = await host.project('evp', 'Asia/Shanghai')
    const first = [
      rec('u1', '$profile_set', '2024-01-01 08:00', { tier: 'gold' }),
      rec('u2', '$profile_set', '2024-01-01 08:00', { tier: 'gold' }),
      rec('u3', '$profile_set', '2024-01-01 08:00', { tier: 'silver' }),
      rec('u1', 'view', '2024-01-01 10:00'),
      rec('u1', 'view', '2024-01-02 10:00'),
      rec('u2', 'view', '2024-01-01 11:00'),
      rec('u3', 'view', '2024-01-02 12:00'),
      rec('u4', 'view', '2024-01-02 13:00'),
    ]
    expect((await importAndWait(host.server, q, { path: fixture('tiers.jsonl', first.join('\n')) })).state).toBe('succeeded')
    // u2 moves to silver: the stored profile is updated in place
    expect((await importAndWait(host.server, q, { path: fixture('tiers2.jsonl', rec('u2', '$profile_set', '2024-01-02 08:00', { tier: 'silver' })) })).state).toBe('succeeded')
    const res = await host.server.call('POST', '/uba/api/events/analyze?explain=true', {
      headers: q,
      body: { ...base, toDate: '2024-01-02', measures: [{ expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' }, { expression: 'event.view', aggregator: 'AVG_COUNT' }], byFields: [{ expression: 'user.tier' }] },
    })
    expect(res.status).toBe(200)
    if (engine === 'duckdb') expect(res.body.sql.at(-1).sql).toContain('bitstring_agg(distinct_id)')
    // gold: u1 (views on both days); silver: u2 (01-01), u3 (01-02); unknown: u4 (no profile)
    expect(res.body.rows).toEqual([
      { byValue: ['silver'], sum: [2, 1], values: [[1, 1], [1, 1]] },
      { byValue: ['gold'], sum: [1, 2], values: [[1, 1], [1, 1]] },
      { byValue: ['unknown'], sum: [1, 1], values: [[0, 1], [null, 1]] },
    ])
  })

  it('serves a cached result until the data changes', async () => {
    setClock(Date.parse('2030-01-01T00:00:00Z'))
    const body = { ...base, useCache: true, measures: [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }] }
    const first = await analyze(body)
    setClock(Date.parse('2030-01-01T01:00:00Z'))
    const cached = await analyze(body)
    expect(cached.body.reportUpdateTime).toBe(first.body.reportUpdateTime)
    const fresh = await analyze({ ...body, useCache: false })
    expect(fresh.body.reportUpdateTime).toBe('2030-01-01 09:00:00')
    await importAndWait(host.server, p, { path: fixture('more.jsonl', rec('d', 'view', '2024-01-02 12:00', { price: 1 })) })
    const after = await analyze(body)
    expect(after.body.reportUpdateTime).toBe('2030-01-01 09:00:00')
    expect(after.body.rows[0].sum).toEqual([5])
    setClock()
  })

  it.each([
    [{ measures: undefined }, ['measures']],
    [{ measures: [] }, ['measures']],
    [{ measures: [{ expression: 'event.nope', aggregator: 'TOTAL_COUNT' }] }, ['measures[0].expression']],
    [{ measures: [{ expression: 'event.view', aggregator: 'SUM' }] }, ['measures[0].aggregator']],
    [{ measures: [{ expression: 'event.view.city', aggregator: 'SUM' }] }, ['measures[0].aggregator']],
    [{ measures: [{ expression: 'event.view.nope', aggregator: 'SUM' }] }, ['measures[0].expression']],
    [{ crowds: undefined }, ['crowds']],
    [{ crowds: ['vip'] }, ['crowds[0]']],
    [{ fromDate: '2024-02-30' }, ['fromDate']],
    [{ toDate: '2023-12-01' }, ['toDate']],
    [{ unit: 'HOUR' }, ['unit']],
    [{ samplingFactor: 0 }, ['samplingFactor']],
    [{ limit: 0 }, ['limit']],
    [{ useCache: 'yes' }, ['useCache']],
    [{ byFields: [{ expression: 'event.view.city', buckets: [1, 2] }] }, ['byFields[0].buckets']],
    [{ byFields: [{ expression: 'event.view.price', buckets: [5, 1] }] }, ['byFields[0].buckets']],
    [{ filter: { conditions: [{ expression: 'event.view.price', function: 'CONTAIN', params: ['1'] }] } }, ['filter.conditions[0].function']],
  ])('answers %j with 400 naming %j', async (override, data) => {
    const res = await analyze({ ...base, measures: [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }], ...override })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe(400)
    expect(res.body.data).toEqual(data)
  })
})

// DuckDB only: the budget of its bitmap counting (ClickHouse counts distinct users with uniqExact)
describe('event analysis, DuckDB\'s user bitmaps', () => {
  it('uses bitmaps only while groups x threads x user ids / 8 fits the budget', () => {
    const facts = { lo: 1, hi: 200_000, threads: 2, labels: [4] }
    expect(useBitmaps(facts, 60)).toBe(true)
    // 10M users, ten years of days: 3.7k bitmaps of 1.25 MB per thread
    expect(useBitmaps({ ...facts, hi: 10_000_000, labels: [] }, 3653)).toBe(false)
    const fits = Math.floor(BITMAP_BUDGET / (61 * 2 * 25_000))
    expect(useBitmaps({ ...facts, labels: [fits] }, 60)).toBe(true)
    expect(useBitmaps({ ...facts, labels: [fits + 1] }, 60)).toBe(false)
    expect(useBitmaps({ ...facts, labels: [4, null] }, 60)).toBe(false)
    expect(useBitmaps({ ...facts, lo: null, hi: null }, 60)).toBe(false)
  })
})
