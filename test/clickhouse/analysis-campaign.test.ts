import { beforeAll, describe, expect, it } from 'vitest'
import { CHDB, openChdb } from '../helpers/chdb'
import { clickhouseAvailable } from '../helpers/clickhouse'
import { askBoth, useTwins } from '../helpers/twinProjects'

/**
 * A campaign's conversion analysis (spec 4.9) on a ClickHouse project gives DuckDB's numbers: the
 * same hand-made events with UTM properties in both projects, the same campaigns, the same
 * requests, the same hand-computed answers.
 */

const ZONE = 'Asia/Shanghai'
/** Local Shanghai time (UTC+8) as epoch ms. */
const sh = (local: string) => Date.parse(`${local.replace(' ', 'T')}:00+08:00`)
const rec = (xwho: string, xwhat: string, local: string, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen: sh(local), xcontext })
const utm = (campaign: string, medium: string, source: string) => ({ $utm_campaign: campaign, $utm_medium: medium, $utm_source: source })

const LINES = [
  // u1 arrives with campaign 1 and pays twice after it (a user converting twice); a gold user
  rec('u1', '$profile_set', '2024-03-01 08:00', { tier: 'gold' }),
  rec('u1', '$pageview', '2024-03-01 10:00', utm('spring', 'cpc', 'baidu')),
  rec('u1', 'pay', '2024-03-01 11:00', { amount: 100 }),
  rec('u1', 'pay', '2024-03-02 09:00', { amount: 50 }),
  // u2 pays before arriving, not after
  rec('u2', 'pay', '2024-03-01 08:00', { amount: 30 }),
  rec('u2', '$pageview', '2024-03-02 12:00', utm('spring', 'cpc', 'baidu')),
  // u3 arrives through the link (campaign_id=1 in $url only); the second payment is after the range
  rec('u3', '$pageview', '2024-03-02 09:00', { $url: 'https://shop.example.com/landing?campaign_id=1#top' }),
  rec('u3', 'pay', '2024-03-03 20:00', { amount: 70 }),
  rec('u3', 'pay', '2024-03-04 10:00', { amount: 999 }),
  // u4 comes from campaign_id=12, which is not 1
  rec('u4', '$pageview', '2024-03-01 10:00', { ...utm('summer', 'cpc', 'baidu'), $url: 'https://shop.example.com/landing?campaign_id=12' }),
  rec('u4', 'pay', '2024-03-01 11:00', { amount: 500 }),
  // local-day edges: u5 arrives and pays on local 03-01 (still 02-29 in UTC); u6 arrives on the
  // last local day and pays after local midnight (still 03-03 in UTC)
  rec('u5', '$pageview', '2024-03-01 00:10', utm('spring', 'cpc', 'baidu')),
  rec('u5', 'pay', '2024-03-01 01:00', { amount: 20 }),
  rec('u6', '$pageview', '2024-03-03 23:30', utm('spring', 'cpc', 'baidu')),
  rec('u6', 'pay', '2024-03-04 00:10', { amount: 60 }),
  // u7 arrives with campaign 2 and never pays
  rec('u7', '$pageview', '2024-03-02 10:00', utm('autumn', 'email', 'newsletter')),
  rec('u7', 'view', '2024-03-02 10:05'),
]

const CAMPAIGNS = [
  { pageUrl: 'https://shop.example.com/landing', utmCampaign: 'spring', utmMedium: 'cpc', utmSource: 'baidu' },
  { pageUrl: 'https://shop.example.com/landing', utmCampaign: 'autumn', utmMedium: 'email', utmSource: 'newsletter' },
  { pageUrl: 'https://shop.example.com/landing', utmCampaign: 'winter', utmMedium: 'sms', utmSource: 'none' },
]

describe.skipIf(!clickhouseAvailable())('campaign conversion analysis on ClickHouse and DuckDB (real clickhouse-server)', () => {
  const twins = useTwins('utm', ZONE, LINES)

  beforeAll(async () => {
    expect(twins.copied).toMatchObject({ event_vd: 16, profile_vd: 1 })
    // campaigns live in the metadata: the same ones, numbered 1, 2, 3, in both projects
    for (const p of [twins.duck, twins.house]) {
      for (const [i, body] of CAMPAIGNS.entries()) {
        const made = await twins.server.call('POST', '/svc/uba/api/operations/utm', { headers: p, body })
        expect(made.body).toEqual({ success: 0, campaignId: i + 1 })
      }
    }
  }, 120_000)

  const range = { fromDate: '2024-03-01', toDate: '2024-03-03' }
  const analyse = (id: number, body: Record<string, unknown>) => askBoth(twins.server, twins, 'POST', `/svc/uba/api/operations/utm/analysis/${id}`, body)
  const result = (expression: string, aggregator: string, convertedUsers: number, conversionRate: number | null, value: number | null) => ({ expression, aggregator, convertedUsers, conversionRate, value })
  const pay = (aggregator: string) => ({ expression: 'event.pay', aggregator })
  const amount = (aggregator: string) => ({ expression: 'event.pay.amount', aggregator })

  // campaign 1, 03-01..03-03 (local days): arrived u1 (03-01 10:00), u2 (03-02 12:00), u3 (link,
  // 03-02 09:00), u5 (03-01 00:10), u6 (03-03 23:30) = 5; not u4 (campaign_id=12, summer).
  // Payments at or after the arrival inside the range: u1 100 and 50, u3 70, u5 20 (u2 paid
  // before arriving; u3's 999 and u6's 60 fall on local 03-04).
  it('counts arrivals and conversions per measure, a user converting twice counted once as a user', async () => {
    const measures = [pay('TRIGGER_USER_COUNT'), pay('TOTAL_COUNT'), pay('AVG_COUNT'), amount('SUM'), amount('AVG'), amount('MAX'), amount('MIN'), amount('AVG_PER'), amount('REMOVE_DUMPLICATE'), { expression: 'event.$pageview', aggregator: 'TRIGGER_USER_COUNT' }]
    for (const body of await analyse(1, { ...range, convertMeasures: measures })) {
      expect(body).toMatchObject({ success: 0, campaignId: 1, ...range, arrivedUsers: 5 })
      expect(body.results).toEqual([
        result('event.pay', 'TRIGGER_USER_COUNT', 3, 0.6, 3),
        result('event.pay', 'TOTAL_COUNT', 3, 0.6, 4),
        result('event.pay', 'AVG_COUNT', 3, 0.6, 1.333333),
        result('event.pay.amount', 'SUM', 3, 0.6, 240),
        result('event.pay.amount', 'AVG', 3, 0.6, 60),
        result('event.pay.amount', 'MAX', 3, 0.6, 100),
        result('event.pay.amount', 'MIN', 3, 0.6, 20),
        result('event.pay.amount', 'AVG_PER', 3, 0.6, 80),
        result('event.pay.amount', 'REMOVE_DUMPLICATE', 3, 0.6, 4),
        // the arrival page view itself is at the arrival time: every arrived user converts
        result('event.$pageview', 'TRIGGER_USER_COUNT', 5, 1, 5),
      ])
    }
  })

  it('reads the range in local days: u6 pays on local 03-04, u5 arrived on local 03-01', async () => {
    // to 03-04: u6's 60 and u3's 999 join; u1, u3, u5, u6 paid of 5 arrived
    for (const body of await analyse(1, { fromDate: '2024-03-01', toDate: '2024-03-04', convertMeasures: [pay('TRIGGER_USER_COUNT'), amount('SUM')] })) {
      expect(body.arrivedUsers).toBe(5)
      expect(body.results).toEqual([result('event.pay', 'TRIGGER_USER_COUNT', 4, 0.8, 4), result('event.pay.amount', 'SUM', 4, 0.8, 1299)])
    }
    // from 03-02: u1 and u5 arrived before it; u2, u3, u6 arrive, only u3 pays (70)
    for (const body of await analyse(1, { fromDate: '2024-03-02', toDate: '2024-03-03', convertMeasures: [pay('TRIGGER_USER_COUNT'), amount('SUM')] })) {
      expect(body.arrivedUsers).toBe(3)
      expect(body.results).toEqual([result('event.pay', 'TRIGGER_USER_COUNT', 1, 0.333333, 1), result('event.pay.amount', 'SUM', 1, 0.333333, 70)])
    }
  })

  it('reads a filter on a user property beside the arrivals: the gold user u1 paid twice', async () => {
    const gold = { conditions: [{ expression: 'user.tier', function: 'EQ', params: ['gold'] }], relation: 'AND' }
    for (const body of await analyse(1, { ...range, convertMeasures: [{ ...pay('TOTAL_COUNT'), filter: gold }, pay('TRIGGER_USER_COUNT')] })) {
      expect(body.results).toEqual([result('event.pay', 'TOTAL_COUNT', 1, 0.2, 2), result('event.pay', 'TRIGGER_USER_COUNT', 3, 0.6, 3)])
    }
  })

  it('answers no conversion for a campaign whose users never converted, and no rate for one nobody arrived with', async () => {
    const measures = [pay('TRIGGER_USER_COUNT'), amount('SUM'), amount('AVG'), { expression: 'event.view', aggregator: 'TOTAL_COUNT' }]
    // campaign 2: u7 arrived and viewed once, never paid
    for (const body of await analyse(2, { ...range, convertMeasures: measures })) {
      expect(body).toMatchObject({ campaignId: 2, arrivedUsers: 1 })
      expect(body.results).toEqual([
        result('event.pay', 'TRIGGER_USER_COUNT', 0, 0, 0),
        result('event.pay.amount', 'SUM', 0, 0, 0),
        result('event.pay.amount', 'AVG', 0, 0, null),
        result('event.view', 'TOTAL_COUNT', 1, 1, 1),
      ])
    }
    // campaign 3: nobody
    for (const body of await analyse(3, { ...range, convertMeasures: measures })) {
      expect(body).toMatchObject({ campaignId: 3, arrivedUsers: 0 })
      expect(body.results).toEqual([
        result('event.pay', 'TRIGGER_USER_COUNT', 0, null, 0),
        result('event.pay.amount', 'SUM', 0, null, 0),
        result('event.pay.amount', 'AVG', 0, null, null),
        result('event.view', 'TOTAL_COUNT', 0, null, 0),
      ])
    }
  })

  // opt-in like analysis-current.test.ts: the statement 18.16 ran, run on a copy of its tables in chDB (26.x)
  it.skipIf(!CHDB)('runs the same statements on current ClickHouse (chDB) with the same answers', async () => {
    const chdb = openChdb()
    try {
      await chdb.copy(twins.clickhouse.url, `uba_${twins.house.appKey}`, ['event_vd', 'profile_vd'])
      const gold = { conditions: [{ expression: 'user.tier', function: 'EQ', params: ['gold'] }], relation: 'AND' }
      const requests: [number, Record<string, unknown>][] = [
        [1, { ...range, convertMeasures: [pay('AVG_COUNT'), amount('SUM'), amount('AVG'), amount('AVG_PER'), amount('REMOVE_DUMPLICATE'), { ...pay('TOTAL_COUNT'), filter: gold }] }],
        [3, { ...range, convertMeasures: [pay('TRIGGER_USER_COUNT'), amount('MAX')] }],
      ]
      for (const [id, body] of requests) {
        const res = await twins.server.call('POST', `/svc/uba/api/operations/utm/analysis/${id}?explain=true`, { headers: twins.house, body })
        expect(res.status, JSON.stringify(res.body)).toBe(200)
        const [{ sql, params }] = res.body.sql as { sql: string; params: unknown[] }[]
        expect(params ?? []).toEqual([])
        const old = await twins.server.app.ctx.warehouse.withConnection(twins.house.appKey, ZONE, (w) => w.rows(sql))
        const current = chdb.rows(sql)
        const cell = (v: unknown) => (v === null ? null : Math.round(Number(v) * 1e6) / 1e6)
        // one row: the arrived users (5 and 0), then each measure's users and value
        expect(old).toHaveLength(1)
        expect(cell(old[0][0])).toBe(id === 1 ? 5 : 0)
        expect(current.map((r: unknown[]) => r.map(cell))).toEqual(old.map((r) => r.map(cell)))
      }
    } finally {
      chdb.close()
    }
  })
})
