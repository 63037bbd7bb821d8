import { beforeAll, describe, expect, it } from 'vitest'
import { niceIntervals } from '../../src-main/domain/analysis/intervals'
import { ENGINES, useEngine, type EngineHost, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'

/** Local Shanghai time (UTC+8) as epoch ms. */
const sh = (local: string) => Date.parse(`${local.replace(' ', 'T')}:00+08:00`)
const rec = (xwho: string, xwhat: string, local: string, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen: sh(local), xcontext })

/*
 * Per user over 2024-01-01..03 (Mon..Wed), event view:
 *   a: 3 views (01 23:30, 02 00:30, 03 10:00), prices 10 20 30, cities X X Y; 3 local days
 *   b: 2 views on 02, prices 5 5, city X (and one on 2023-12-31, outside); 1 day
 *   c: 1 view on 01, no price, city Y (and one on 01-04 00:10, outside); 1 day
 *   d: 3 views on 03, prices 1 1 1, cities X X and none; 1 day
 *   e: no view, two pays on 02 (0.1 and 0.2); a also pays 0.5 on 03
 * Profiles: a gender f, b gender m, f has a profile and no event.
 */
async function loadDistribution(host: EngineHost): Promise<Project> {
  const p = await host.project('dist', 'Asia/Shanghai')
  const lines = [
    rec('b', 'view', '2023-12-31 23:59', { price: 5, city: 'X' }),
    rec('a', 'view', '2024-01-01 23:30', { price: 10, city: 'X' }),
    rec('a', 'view', '2024-01-02 00:30', { price: 20, city: 'X' }), // the same UTC day as the one above
    rec('c', 'view', '2024-01-01 09:00', { city: 'Y' }),
    rec('b', 'view', '2024-01-02 10:00', { price: 5, city: 'X' }),
    rec('b', 'view', '2024-01-02 11:00', { price: 5, city: 'X' }),
    rec('e', 'pay', '2024-01-02 12:00', { amount: 0.1 }),
    rec('e', 'pay', '2024-01-02 13:00', { amount: 0.2 }),
    rec('a', 'view', '2024-01-03 10:00', { price: 30, city: 'Y' }),
    rec('a', 'pay', '2024-01-03 10:30', { amount: 0.5 }),
    rec('d', 'view', '2024-01-03 08:00', { price: 1, city: 'X' }),
    rec('d', 'view', '2024-01-03 09:00', { price: 1, city: 'X' }),
    rec('d', 'view', '2024-01-03 10:00', { price: 1 }),
    rec('c', 'view', '2024-01-04 00:10', { city: 'Y' }),
    rec('a', '$profile_set', '2024-01-01 08:00', { gender: 'f' }),
    rec('b', '$profile_set', '2024-01-01 08:00', { gender: 'm' }),
    rec('f', '$profile_set', '2024-01-01 08:00', { gender: 'f' }),
  ]
  const job = await importAndWait(host.server, p, { path: fixture('dist.jsonl', lines.join('\n')) })
  if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
  return p
}

const base = { crowds: ['$ALL'], fromDate: '2024-01-01', toDate: '2024-01-03' }
const views = { expression: 'event.view', aggregator: 'TOTAL_COUNT' }
const price = (aggregator: string) => ({ expression: 'event.view.price', aggregator })

describe('distribution intervals', () => {
  it('gives one interval per whole number when the values span at most 10', () => {
    expect(niceIntervals({ min: 1, max: 10, top: 9, whole: true }).map((i) => i.label)).toEqual(['[1,2)', '[2,3)', '[3,4)', '[4,5)', '[5,6)', '[6,7)', '[7,8)', '[8,9)', '[9,10)', '[10,11)'])
    expect(niceIntervals({ min: 3, max: 3, top: 3, whole: true }).map((i) => i.label)).toEqual(['[3,4)'])
  })

  it('picks a 1-2-5 width from the range and opens the last interval for a maximum on the last edge when 10 are used', () => {
    expect(niceIntervals({ min: 1, max: 100, top: 95, whole: true }).map((i) => i.label)).toEqual([
      '[0,10)', '[10,20)', '[20,30)', '[30,40)', '[40,50)', '[50,60)', '[60,70)', '[70,80)', '[80,90)', '[90,100)', '[100,+∞)',
    ])
    expect(niceIntervals({ min: 3, max: 60, top: 60, whole: true }).map((i) => i.label)).toEqual(['[0,10)', '[10,20)', '[20,30)', '[30,40)', '[40,50)', '[50,60)', '[60,70)'])
  })

  it('stops at the 95th percentile when the tail is long, the rest in an open interval', () => {
    expect(niceIntervals({ min: 1, max: 500, top: 40, whole: true }).map((i) => i.label)).toEqual(['[0,5)', '[5,10)', '[10,15)', '[15,20)', '[20,25)', '[25,30)', '[30,35)', '[35,40)', '[40,+∞)'])
    expect(niceIntervals({ min: 1, max: 500, top: 1, whole: true }).map((i) => i.label)).toEqual(['[1,2)', '[2,+∞)'])
  })

  it('uses decimal widths for decimal values, negative ranges included, and gives nothing without values', () => {
    expect(niceIntervals({ min: 0.1, max: 0.9, top: 0.9, whole: false }).map((i) => i.label)).toEqual(['[0.1,0.2)', '[0.2,0.3)', '[0.3,0.4)', '[0.4,0.5)', '[0.5,0.6)', '[0.6,0.7)', '[0.7,0.8)', '[0.8,0.9)', '[0.9,1)'])
    expect(niceIntervals({ min: -35, max: 40, top: 38, whole: false }).map((i) => i.label)).toEqual(['[-40,-30)', '[-30,-20)', '[-20,-10)', '[-10,0)', '[0,10)', '[10,20)', '[20,30)', '[30,40)', '[40,50)'])
    expect(niceIntervals(null)).toEqual([])
  })
})

describe.each(ENGINES)('distribution analysis, on %s', (engine) => {
  const host = useEngine(engine)
  let p: Project
  beforeAll(async () => {
    p = await loadDistribution(host)
  })
  const analyze = (body: Record<string, unknown>, query = '') => host.server.call('POST', `/uba/api/distributions/analyze${query}`, { headers: p, body })

  // DuckDB only: its statement text with bound values (ClickHouse 18.16 binds nothing: the dialect prints checked literals)
  it.runIf(engine === 'duckdb')('shows the SQL it ran with explain=true, with values bound, not pasted', async () => {
    const res = await analyze({ ...base, measure: views, byField: { expression: 'event.view.price', buckets: [10] } }, '?explain=true')
    expect(res.body.sql).toHaveLength(3)
    expect(res.body.sql[0].sql).toContain('FROM event_vd e')
    expect(res.body.sql[0].sql).not.toContain("'view'")
    expect(res.body.sql[0].params).toContain('view')
    expect(res.body.sql[2].params).toEqual([2, 3])
  })

  it('counts users per number of events over the whole range, a value on an edge in the interval it starts', async () => {
    const res = await analyze({ ...base, measure: views })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ measure: 'view · total count', byField: null, samplingFactor: 1 })
    // a 3, b 2, c 1, d 3; e never viewed and is not counted
    expect(res.body.series).toEqual(['[1,2)', '[2,3)', '[3,4)'])
    expect(res.body.rows).toEqual([{ byValue: 'all', sum: 4, values: [1, 1, 2] }])
    expect(res.body.reportUpdateTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
  })

  it('counts distinct local days: 23:30 and 00:30 the next morning are two days', async () => {
    const two = await analyze({ ...base, toDate: '2024-01-02', measure: { expression: 'event.view', aggregator: 'DISTRIBUTION_TIME' } })
    expect(two.body.measure).toBe('view · days with the event')
    // a 2 days (01 and 02 local, one UTC day), b 1 (its 12-31 view is outside), c 1
    expect(two.body.series).toEqual(['[1,2)', '[2,3)'])
    expect(two.body.rows).toEqual([{ byValue: 'all', sum: 3, values: [2, 1] }])
    const any = await analyze({ ...base, measure: { expression: 'event.$Anything', aggregator: 'DISTRIBUTION_TIME' } })
    // a 3 days, b c d e 1 day each
    expect(any.body.series).toEqual(['[1,2)', '[2,3)', '[3,4)'])
    expect(any.body.rows).toEqual([{ byValue: 'all', sum: 5, values: [4, 0, 1] }])
  })

  it('aggregates a property per user, leaving out users without a value', async () => {
    // per user: a 10 20 30, b 5 5, d 1 1 1; c has no price
    const sum = await analyze({ ...base, measure: price('SUM') })
    expect(sum.body.measure).toBe('view.price · sum')
    expect(sum.body.series).toEqual(['[0,10)', '[10,20)', '[20,30)', '[30,40)', '[40,50)', '[50,60)', '[60,70)'])
    expect(sum.body.rows).toEqual([{ byValue: 'all', sum: 3, values: [1, 1, 0, 0, 0, 0, 1] }]) // d 3, b 10, a 60
    const perUser = await analyze({ ...base, measure: price('AVG_PER') })
    expect(perUser.body.series).toEqual(sum.body.series)
    expect(perUser.body.rows).toEqual(sum.body.rows)

    const avg = await analyze({ ...base, measure: price('AVG') }) // d 1, b 5, a 20
    expect(avg.body.series).toEqual(['[0,2)', '[2,4)', '[4,6)', '[6,8)', '[8,10)', '[10,12)', '[12,14)', '[14,16)', '[16,18)', '[18,20)', '[20,+∞)'])
    expect(avg.body.rows[0].values).toEqual([1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1])

    const max = await analyze({ ...base, measure: price('MAX') }) // d 1, b 5, a 30
    expect(max.body.series).toEqual(['[0,5)', '[5,10)', '[10,15)', '[15,20)', '[20,25)', '[25,30)', '[30,35)'])
    expect(max.body.rows[0].values).toEqual([1, 1, 0, 0, 0, 0, 1])

    const min = await analyze({ ...base, measure: price('MIN') }) // d 1, b 5, a 10
    expect(min.body.series).toHaveLength(10)
    expect(min.body.rows[0].values).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 0, 1])

    const distinct = await analyze({ ...base, measure: price('REMOVE_DUMPLICATE') }) // a 3, b 1, d 1
    expect(distinct.body.series).toEqual(['[1,2)', '[2,3)', '[3,4)'])
    expect(distinct.body.rows[0]).toEqual({ byValue: 'all', sum: 3, values: [2, 0, 1] })
  })

  it('rounds per-user sums of decimals before bucketing', async () => {
    // e 0.1 + 0.2 = 0.3, a 0.5
    const res = await analyze({ ...base, measure: { expression: 'event.pay.amount', aggregator: 'SUM' } })
    expect(res.body.series).toEqual(['[0.3,0.32)', '[0.32,0.34)', '[0.34,0.36)', '[0.36,0.38)', '[0.38,0.4)', '[0.4,0.42)', '[0.42,0.44)', '[0.44,0.46)', '[0.46,0.48)', '[0.48,0.5)', '[0.5,+∞)'])
    expect(res.body.rows[0].values).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
  })

  it('gives one row per local day, each user measured within the day, empty days with zeros', async () => {
    const res = await analyze({ ...base, toDate: '2024-01-05', unit: 'DAY', measure: views })
    expect(res.body.series).toEqual(['[1,2)', '[2,3)', '[3,4)'])
    expect(res.body.rows).toEqual([
      { byValue: '2024-01-01', sum: 2, values: [2, 0, 0] }, // a 1, c 1
      { byValue: '2024-01-02', sum: 2, values: [1, 1, 0] }, // a 1, b 2
      { byValue: '2024-01-03', sum: 2, values: [1, 0, 1] }, // a 1, d 3
      { byValue: '2024-01-04', sum: 1, values: [1, 0, 0] }, // c 1
      { byValue: '2024-01-05', sum: 0, values: [0, 0, 0] },
    ])
  })

  it('gives one row per week starting Monday, a week cut by the range counting only its days in it', async () => {
    const res = await analyze({ ...base, fromDate: '2023-12-31', unit: 'WEEK', measure: { expression: 'event.view', aggregator: 'DISTRIBUTION_TIME' } })
    expect(res.body.series).toEqual(['[1,2)', '[2,3)', '[3,4)'])
    expect(res.body.rows).toEqual([
      { byValue: '2023-12-25', sum: 1, values: [1, 0, 0] }, // b on Sunday 12-31
      { byValue: '2024-01-01', sum: 4, values: [3, 0, 1] }, // a 3 days, b c d 1
    ])
  })

  it('breaks down by an event property: a user counts under each value, with the events carrying it', async () => {
    const res = await analyze({ ...base, measure: views, byField: { expression: 'event.view.city' } })
    expect(res.body.byField).toBe('event.view.city')
    // X: a 2, b 2, d 2; Y: a 1, c 1; unknown: d 1
    expect(res.body.series).toEqual(['[1,2)', '[2,3)'])
    expect(res.body.rows).toEqual([
      { byValue: 'X', sum: 3, values: [0, 3] },
      { byValue: 'Y', sum: 2, values: [2, 0] },
      { byValue: 'unknown', sum: 1, values: [1, 0] },
    ])
    const top = await analyze({ ...base, measure: views, byField: { expression: 'event.view.city' }, limit: 2 })
    expect(top.body.rows.map((r: any) => r.byValue)).toEqual(['X', 'Y'])
  })

  it('breaks down by number buckets and by a user property, unknown last among equals', async () => {
    const buckets = await analyze({ ...base, measure: views, byField: { expression: 'event.view.price', buckets: [10] } })
    // -∞~10: b 2, d 3; 10~+∞: a 3; unknown: c 1
    expect(buckets.body.rows).toEqual([
      { byValue: '-∞~10', sum: 2, values: [0, 1, 1] },
      { byValue: '10~+∞', sum: 1, values: [0, 0, 1] },
      { byValue: 'unknown', sum: 1, values: [1, 0, 0] },
    ])
    const gender = await analyze({ ...base, measure: views, byField: { expression: 'user.gender' } })
    // f: a 3; m: b 2; unknown (no profile): c 1, d 3
    expect(gender.body.rows).toEqual([
      { byValue: 'unknown', sum: 2, values: [1, 0, 1] },
      { byValue: 'f', sum: 1, values: [0, 0, 1] },
      { byValue: 'm', sum: 1, values: [0, 1, 0] },
    ])
  })

  it('applies the global filter to every event and the measure filter to the measure', async () => {
    const city = await analyze({ ...base, measure: views, filter: { conditions: [{ expression: 'event.view.city', function: 'EQ', params: ['X'] }] } })
    // a 2, b 2, d 2
    expect(city.body.series).toEqual(['[2,3)'])
    expect(city.body.rows).toEqual([{ byValue: 'all', sum: 3, values: [3] }])
    const both = await analyze({
      ...base,
      filter: { conditions: [{ expression: 'user.gender', function: 'EQ', params: ['f'] }], relation: 'AND' },
      measure: { ...views, filter: { conditions: [{ expression: 'event.view.price', function: 'GTE', params: [20] }] } },
    })
    // only a is f; a's views priced 20 and 30
    expect(both.body.series).toEqual(['[2,3)'])
    expect(both.body.rows).toEqual([{ byValue: 'all', sum: 1, values: [1] }])
  })

  it('counts a virtual event whose member filter reads a user property', async () => {
    const created = await host.server.call('POST', '/uba/api/meta/event/virtual', {
      headers: p,
      body: { id: 'women_view_or_pay', name: 'Women view or pay', events: [{ expression: 'event.view', filter: { conditions: [{ expression: 'user.gender', function: 'EQ', params: ['f'] }] } }, { expression: 'event.pay' }] },
    })
    expect(created.status).toBe(200)
    const res = await analyze({ ...base, measure: { expression: 'event.women_view_or_pay', aggregator: 'TOTAL_COUNT' } })
    // a 3 views + 1 pay, e 2 pays; b (m), c and d (no profile) do not match
    expect(res.body.measure).toBe('Women view or pay · total count')
    expect(res.body.series).toEqual(['[2,3)', '[3,4)', '[4,5)'])
    expect(res.body.rows).toEqual([{ byValue: 'all', sum: 2, values: [1, 0, 1] }])
  })

  it('samples users and says so', async () => {
    const res = await analyze({ ...base, measure: views, samplingFactor: 0.5 })
    expect(res.status).toBe(200)
    expect(res.body.samplingFactor).toBe(0.5)
    expect(res.body.rows[0].sum).toBeLessThanOrEqual(4)
  })

  it('answers an empty range with no intervals and empty rows', async () => {
    const empty = { ...base, fromDate: '2025-01-01', toDate: '2025-01-02' }
    const all = await analyze({ ...empty, measure: views })
    expect(all.body.series).toEqual([])
    expect(all.body.rows).toEqual([{ byValue: 'all', sum: 0, values: [] }])
    const days = await analyze({ ...empty, unit: 'DAY', measure: views })
    expect(days.body.rows).toEqual([
      { byValue: '2025-01-01', sum: 0, values: [] },
      { byValue: '2025-01-02', sum: 0, values: [] },
    ])
    const split = await analyze({ ...empty, measure: views, byField: { expression: 'event.view.city' } })
    expect(split.body.rows).toEqual([])
  })

  it.each([
    [{ measure: undefined }, ['measure']],
    [{ measure: 'event.view' }, ['measure']],
    [{ measure: { expression: 'event.view' } }, ['measure.aggregator']],
    [{ measure: { aggregator: 'TOTAL_COUNT' } }, ['measure.expression']],
    [{ measure: { expression: 'event.view', aggregator: 'SUM' } }, ['measure.aggregator']],
    [{ measure: { expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' } }, ['measure.aggregator']],
    [{ measure: price('DISTRIBUTION_TIME') }, ['measure.aggregator']],
    [{ measure: { expression: 'event.view.city', aggregator: 'AVG' } }, ['measure.aggregator']],
    [{ measure: { expression: 'event.nope', aggregator: 'TOTAL_COUNT' } }, ['measure.expression']],
    [{ measure: { expression: 'event.view.nope', aggregator: 'SUM' } }, ['measure.expression']],
    [{ measure: { ...views, filter: { conditions: [{ expression: 'event.view.price', function: 'CONTAIN', params: ['1'] }] } } }, ['measure.filter.conditions[0].function']],
    [{ filter: { conditions: [{ expression: 'user.nope', function: 'NULL' }] } }, ['filter.conditions[0].expression']],
    [{ unit: 'HOUR' }, ['unit']],
    [{ unit: 'DAY', byField: { expression: 'event.view.city' } }, ['unit']],
    [{ byField: [{ expression: 'event.view.city' }] }, ['byField']],
    [{ byField: { expression: 'event.view.nope' } }, ['byField.expression']],
    [{ byField: { expression: 'event.view.city', buckets: [1] } }, ['byField.buckets']],
    [{ crowds: undefined }, ['crowds']],
    [{ crowds: ['vip'] }, ['crowds[0]']],
    [{ fromDate: undefined }, ['fromDate']],
    [{ fromDate: '2024-02-30' }, ['fromDate']],
    [{ toDate: '2023-12-01' }, ['toDate']],
    [{ samplingFactor: 2 }, ['samplingFactor']],
    [{ limit: 0 }, ['limit']],
    [{ useCache: 'yes' }, ['useCache']],
  ])('answers %j with 400 naming %j', async (override, data) => {
    const res = await analyze({ ...base, measure: views, ...override })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe(400)
    expect(res.body.data).toEqual(data)
  })
})
