import { beforeAll, describe, expect, it } from 'vitest'
import { clickhouseAvailable } from '../helpers/clickhouse'
import { startCutProxy } from '../helpers/cutProxy'
import { twinProjects, useTwins } from '../helpers/twinProjects'

/**
 * The event analysis on a ClickHouse project gives the numbers it gives on DuckDB: the same
 * hand-made events in both projects, the same requests, the same hand-computed answers.
 *
 * The rows reach ClickHouse through `twinProjects` (the DuckDB project's very rows copied).
 */

const ZONE = 'Asia/Shanghai'
/** Local Shanghai time (UTC+8) as epoch ms. */
const sh = (local: string) => Date.parse(`${local.replace(' ', 'T')}:00+08:00`)
const rec = (xwho: string, xwhat: string, local: string, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen: sh(local), xcontext })

const LINES = [
  rec('a', 'view', '2023-12-31 23:59', { price: 1, city: 'X' }), // the day before the range
  rec('a', 'view', '2024-01-01 23:30', { price: 10, city: 'X' }),
  rec('a', 'view', '2024-01-02 00:30', { price: 20, city: 'X' }), // same UTC day as the one above, next local day
  rec('b', 'view', '2024-01-02 10:00', { price: 600, city: 'Y' }),
  rec('b', 'pay', '2024-01-02 11:00', { amount: 30 }),
  rec('c', 'view', '2024-01-03 09:00', { price: 800 }),
  rec('a', 'pay', '2024-01-03 12:00', { amount: 50 }),
  rec('c', 'view', '2024-01-05 08:00', { price: 5, city: 'Y' }), // after the range
  rec('a', '$profile_set', '2024-01-01 08:00', { tier: 'gold' }), // a user property (profile_vd)
]

describe.skipIf(!clickhouseAvailable())('event analysis on ClickHouse and DuckDB (real clickhouse-server)', () => {
  const twins = useTwins('ev', ZONE, LINES)

  beforeAll(async () => {
    expect(twins.copied).toEqual({ event_vd: 8, profile_vd: 1, user_ids: 3, user_aliases: 0 })
  })

  const both = async (body: Record<string, unknown>) => {
    const answers = []
    for (const p of [twins.duck, twins.house]) {
      const res = await twins.server.call('POST', '/uba/api/events/analyze', { headers: p, body })
      expect(res.status, `${p.appKey}: ${JSON.stringify(res.body)}`).toBe(200)
      answers.push(res.body.rows)
    }
    return answers
  }
  const base = { crowds: ['$ALL'], fromDate: '2024-01-01', toDate: '2024-01-03', unit: 'DAY' }

  it('counts events and distinct users per local day (the 00:30 view is the next Shanghai day), a sum and a count per user', async () => {
    const measures = [
      { expression: 'event.view', aggregator: 'TOTAL_COUNT' },
      { expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' },
      { expression: 'event.view.price', aggregator: 'SUM' },
      { expression: 'event.pay', aggregator: 'AVG_COUNT' },
    ]
    const expected = [{ byValue: [], sum: [4, 3, 1430, 1], values: [[1, 2, 1], [1, 2, 1], [10, 620, 800], [null, 1, 1]] }]
    for (const rows of await both({ ...base, measures })) expect(rows).toEqual(expected)
  })

  it('applies the global filter and a measure\'s own filter', async () => {
    const body = {
      ...base,
      filter: { conditions: [{ expression: 'event.view.price', function: 'LT', params: [700] }], relation: 'AND' },
      measures: [
        { expression: 'event.view', aggregator: 'TOTAL_COUNT' },
        { expression: 'event.view', aggregator: 'TOTAL_COUNT', filter: { conditions: [{ expression: 'event.view.city', function: 'EQ', params: ['X'] }] } },
      ],
    }
    for (const rows of await both(body)) expect(rows).toEqual([{ byValue: [], sum: [3, 2], values: [[1, 2, 0], [1, 1, 0]] }])
  })

  it('breaks down by a text property (a missing one is unknown) and by number buckets', async () => {
    const measures = [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }]
    for (const rows of await both({ ...base, measures, byFields: [{ expression: 'event.view.city' }] })) {
      expect(rows).toEqual([
        { byValue: ['X'], sum: [2], values: [[1, 1, 0]] },
        { byValue: ['Y'], sum: [1], values: [[0, 1, 0]] },
        { byValue: ['unknown'], sum: [1], values: [[0, 0, 1]] },
      ])
    }
    for (const rows of await both({ ...base, measures, byFields: [{ expression: 'event.view.price', buckets: [600, 800] }] })) {
      expect(rows).toEqual([
        { byValue: ['-∞~600'], sum: [2], values: [[1, 1, 0]] },
        { byValue: ['600~800'], sum: [1], values: [[0, 1, 0]] },
        { byValue: ['800~+∞'], sum: [1], values: [[0, 0, 1]] },
      ])
    }
  })

  it('rolls days up to the range, and counts distinct values over the range', async () => {
    const measures = ['SUM', 'AVG', 'MAX', 'MIN', 'AVG_PER', 'REMOVE_DUMPLICATE'].map((aggregator) => ({ expression: 'event.view.price', aggregator }))
    // prices by local day: 10 (a) | 20 (a), 600 (b) | 800 (c); over the range 4 views by 3 users
    const expected = [{ byValue: [], sum: [1430, 357.5, 800, 10, 476.666667, 4], values: [[10, 620, 800], [10, 310, 800], [10, 600, 800], [10, 20, 800], [10, 310, 800], [1, 2, 1]] }]
    for (const rows of await both({ ...base, measures })) expect(rows).toEqual(expected)
  })

  it('groups by week starting Monday', async () => {
    for (const rows of await both({ ...base, fromDate: '2024-01-03', toDate: '2024-01-08', unit: 'WEEK', measures: [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }] })) {
      expect(rows).toEqual([{ byValue: [], sum: [2], values: [[2, 0]] }])
    }
  })

  it('compares with the previous range (read by the same statement) and breaks down by the user id on the event row', async () => {
    // 2023-12-29..31: a's view at 23:59 on the 31st, the counterpart of 01-03
    const measures = [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }]
    for (const rows of await both({ ...base, measures, compare: 'previous' })) {
      expect(rows).toEqual([{ byValue: [], sum: [4], values: [[1, 2, 1]], previous: { sum: [1], values: [[0, 0, 1]] } }])
    }
    for (const rows of await both({ ...base, measures: [{ expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' }], byFields: [{ expression: 'user.xwho' }] })) {
      expect(rows).toEqual([
        { byValue: ['a'], sum: [1], values: [[1, 1, 0]] },
        { byValue: ['b'], sum: [1], values: [[0, 1, 0]] },
        { byValue: ['c'], sum: [1], values: [[0, 0, 1]] },
      ])
    }
  })

  const distributions = async (body: Record<string, unknown>) => {
    const answers = []
    for (const p of [twins.duck, twins.house]) {
      const res = await twins.server.call('POST', '/uba/api/distributions/analyze', { headers: p, body })
      expect(res.status, `${p.appKey}: ${JSON.stringify(res.body)}`).toBe(200)
      answers.push({ series: res.body.series, rows: res.body.rows })
    }
    return answers
  }

  it('distribution: users per number of views and per local day with a view (a: 23:30 and 00:30 are two days)', async () => {
    // over 01-01..03: a 2 views on 2 local days, b 1, c 1
    for (const measure of [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }, { expression: 'event.view', aggregator: 'DISTRIBUTION_TIME' }]) {
      for (const answer of await distributions({ ...base, unit: '', measure })) expect(answer).toEqual({ series: ['[1,2)', '[2,3)'], rows: [{ byValue: 'all', sum: 3, values: [2, 1] }] })
    }
  })

  it('distribution: per local day, and by a breakdown', async () => {
    const measure = { expression: 'event.view', aggregator: 'TOTAL_COUNT' }
    // 01-01 a; 01-02 a (00:30) and b; 01-03 c: one view each
    for (const answer of await distributions({ ...base, unit: 'DAY', measure })) {
      expect(answer).toEqual({
        series: ['[1,2)'],
        rows: [
          { byValue: '2024-01-01', sum: 1, values: [1] },
          { byValue: '2024-01-02', sum: 2, values: [2] },
          { byValue: '2024-01-03', sum: 1, values: [1] },
        ],
      })
    }
    // a X twice, b Y once, c (no city) once
    for (const answer of await distributions({ ...base, unit: '', measure, byField: { expression: 'event.view.city' } })) {
      expect(answer.series).toEqual(['[1,2)', '[2,3)'])
      expect(answer.rows).toEqual(
        expect.arrayContaining([
          { byValue: 'X', sum: 1, values: [0, 1] },
          { byValue: 'Y', sum: 1, values: [1, 0] },
          { byValue: 'unknown', sum: 1, values: [1, 0] },
        ]),
      )
      expect(answer.rows).toHaveLength(3)
    }
  })

  it('breaks down by a user property beside the calendar join (18.16: one JOIN per SELECT, the profile join nested)', async () => {
    // gold a: 01-01, 01-02 (00:30); unknown (no profile row) b 01-02, c 01-03
    const body = { ...base, measures: [{ expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' }], byFields: [{ expression: 'user.tier' }] }
    for (const rows of await both(body)) {
      expect(rows).toEqual([
        { byValue: ['unknown'], sum: [2], values: [[0, 1, 1]] },
        { byValue: ['gold'], sum: [1], values: [[1, 1, 0]] },
      ])
    }
  })

  it('answers 503, never a 500, when the ClickHouse server stops answering in the middle of a request, or refuses it', async () => {
    const proxy = await startCutProxy(twins.clickhouse.url)
    try {
      const cut = await twinProjects(twins.server, { ...twins.clickhouse, url: proxy.url }, 'evcut', ZONE, LINES)
      const body = { ...base, measures: [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }] }
      const ask = () => twins.server.call('POST', '/uba/api/events/analyze', { headers: cut.house, body })
      const answered = { status: 200, body: { rows: [{ byValue: [], sum: [4], values: [[1, 2, 1]] }] } }
      expect(await ask()).toMatchObject(answered)
      for (const mode of ['drop-request', 'cut-answer'] as const) {
        const cuts = proxy.cuts
        proxy.mode = mode
        const res = await ask()
        expect(proxy.cuts, mode).toBeGreaterThan(cuts)
        expect({ mode, status: res.status, body: res.body }).toEqual({ mode, status: 503, body: { code: 503, msg: 'the ClickHouse server cannot be reached', data: null } })
        // the project answers again once the server does
        proxy.mode = 'pass'
        expect(await ask()).toMatchObject(answered)
      }
      // a statement the server refuses (here: the table was dropped behind the app's back) is a 503 naming the engine
      const dropped = await fetch(`${twins.clickhouse.url}/?query=${encodeURIComponent(`DROP TABLE uba_${cut.house.appKey}.event_vd`)}`, { method: 'POST' })
      expect(dropped.status).toBe(200)
      const refused = await ask()
      expect(refused.status).toBe(503)
      expect(refused.body).toMatchObject({ code: 503, msg: expect.stringMatching(/^the project's ClickHouse server cannot run this request yet \(ClickHouse error \d+\)$/) })
    } finally {
      await proxy.stop()
    }
  }, 120_000)

  it('distribution: a property summed per user, leaving out users without a value', async () => {
    // a 10 + 20 = 30, b 600, c 800
    const [onDuck, onHouse] = await distributions({ ...base, unit: '', measure: { expression: 'event.view.price', aggregator: 'SUM' } })
    expect(onHouse).toEqual(onDuck)
    expect(onDuck.rows[0].sum).toBe(3)
  })
})
