import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setClock } from '../../src-main/domain/time/clock'
import { ENGINES, useEngine, type EngineHost, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'

const BASE = '/svc/uba/api/operations/utm'

/** Local Shanghai time (UTC+8) as epoch ms. */
const sh = (local: string) => Date.parse(`${local.replace(' ', 'T')}:00+08:00`)
const rec = (xwho: string, xwhat: string, local: string, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen: sh(local), xcontext })
const utm = (campaign: string, medium: string, source: string, extra: Record<string, unknown> = {}) => ({ $utm_campaign: campaign, $utm_medium: medium, $utm_source: source, ...extra })

/** The analysis project: campaign 1 (spring/cpc/baidu), 2 (the same with utm_content banner), 3 (deleted). */
async function loadCampaigns(host: EngineHost): Promise<Project> {
  const s = host.server
  const p = await host.project('utm', 'Asia/Shanghai')
  const lines = [
    // u1 arrives on 03-01 through campaign 2's link, then pays twice
    rec('u1', '$pageview', '2024-03-01 10:00', utm('spring', 'cpc', 'baidu', { $utm_content: 'banner', $url: 'https://shop.example.com/landing?campaign_id=2&utm_campaign=spring' })),
    rec('u1', 'pay', '2024-03-01 11:00', { amount: 100 }),
    rec('u1', 'pay', '2024-03-02 09:00', { amount: 50 }),
    // u2 pays before arriving, not after
    rec('u2', 'pay', '2024-03-01 08:00', { amount: 30 }),
    rec('u2', '$pageview', '2024-03-02 12:00', utm('spring', 'cpc', 'baidu', { $utm_content: 'text' })),
    // u3's SDK recorded only the landing address with campaign_id=1; the second payment is after the range
    rec('u3', '$pageview', '2024-03-02 09:00', { $url: 'https://shop.example.com/landing?campaign_id=1&utm_source=x#top' }),
    rec('u3', 'pay', '2024-03-03 20:00', { amount: 70 }),
    rec('u3', 'pay', '2024-03-04 10:00', { amount: 999 }),
    // u4 comes from another campaign (campaign_id=12 must not read as 1)
    rec('u4', '$pageview', '2024-03-03 10:00', utm('summer', 'cpc', 'baidu', { $url: 'https://shop.example.com/landing?campaign_id=12&utm_campaign=summer' })),
    rec('u4', 'pay', '2024-03-03 11:00', { amount: 500 }),
    // u5 arrived the day before the range
    rec('u5', '$pageview', '2024-02-29 10:00', utm('spring', 'cpc', 'baidu')),
    rec('u5', '$pageview', '2024-03-01 09:00'),
    rec('u5', 'pay', '2024-03-01 10:00', { amount: 40 }),
    // u6 arrives late on the last local day and pays after local midnight
    rec('u6', '$pageview', '2024-03-03 23:30', utm('spring', 'cpc', 'baidu')),
    rec('u6', 'pay', '2024-03-04 00:10', { amount: 60 }),
    // u7 has the campaign's name and medium from another source
    rec('u7', '$pageview', '2024-03-01 10:00', utm('spring', 'cpc', 'google')),
    rec('u7', 'pay', '2024-03-01 11:00', { amount: 80 }),
    // campaign_id=2 as the last parameter (u8) and before a fragment (u9) arrives with campaign 2;
    // utm_campaign_id=2 (u10) and campaign_id=2x (u11) do not
    rec('u8', '$pageview', '2024-03-02 10:00', { $url: 'https://shop.example.com/landing?x=1&campaign_id=2' }),
    rec('u9', '$pageview', '2024-03-02 11:00', { $url: 'https://shop.example.com/landing?campaign_id=2#top' }),
    rec('u10', '$pageview', '2024-03-02 11:00', { $url: 'https://shop.example.com/landing?utm_campaign_id=2' }),
    rec('u11', '$pageview', '2024-03-02 11:00', { $url: 'https://shop.example.com/landing?campaign_id=2x' }),
  ]
  const job = await importAndWait(s, p, { path: fixture('utm.jsonl', lines.join('\n')) })
  if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
  const campaigns = [
    { pageUrl: 'https://shop.example.com/landing', utmCampaign: 'spring', utmMedium: 'cpc', utmSource: 'baidu' },
    { pageUrl: 'https://shop.example.com/landing', utmCampaign: 'spring', utmMedium: 'cpc', utmSource: 'baidu', utmContent: 'banner' },
    { pageUrl: 'https://shop.example.com/other', utmCampaign: 'spring', utmMedium: 'cpc', utmSource: 'baidu' },
  ]
  for (const [i, body] of campaigns.entries()) {
    const res = await s.call('POST', BASE, { headers: p, body })
    if (res.body.campaignId !== i + 1) throw new Error(JSON.stringify(res.body))
  }
  if ((await s.call('DELETE', `${BASE}/drop/3`, { headers: p })).status !== 200) throw new Error('campaign 3 not deleted')
  const cond = { conditions: [{ expression: 'event.pay.amount', function: 'GTE', params: [70] }], relation: 'AND' }
  const virtual = await s.call('POST', '/uba/api/meta/event/virtual', { headers: p, body: { id: 'big_pay', name: 'Big pay', events: [{ expression: 'event.pay', filter: cond }] } })
  if (virtual.status !== 200) throw new Error(JSON.stringify(virtual.body))
  return p
}

const range = { fromDate: '2024-03-01', toDate: '2024-03-03' }
const result = (expression: string, aggregator: string, convertedUsers: number, conversionRate: number | null, value: number | null) => ({ expression, aggregator, convertedUsers, conversionRate, value })

describe.each(ENGINES)('conversion analysis of a campaign, on %s', (engine) => {
  const host = useEngine(engine)
  let p: Project
  beforeAll(async () => {
    p = await loadCampaigns(host)
  })
  afterAll(() => setClock())
  const analyse = (id: number | string, body: Record<string, unknown>, query = '') => host.server.call('POST', `${BASE}/analysis/${id}${query}`, { headers: p, body })

  // DuckDB only: its statement text with bound values (ClickHouse 18.16 binds nothing: the dialect prints checked literals)
  it.runIf(engine === 'duckdb')('returns the SQL with explain=true, with every value bound', async () => {
    const res = await analyse(1, { ...range, expression: 'event.pay' }, '?explain=true')
    expect(res.body.sql).toHaveLength(1)
    expect(res.body.sql[0].sql).not.toContain('spring')
    expect(res.body.sql[0].params).toEqual(expect.arrayContaining(['spring', 'cpc', 'baidu', 'pay', 20240301, 20240303]))
  })

  // campaign 1 (spring/cpc/baidu), 2024-03-01..03: arrived u1 (utm, 03-01 10:00), u2 (utm, 03-02 12:00),
  // u3 (campaign_id=1 in $url, 03-02 09:00), u6 (utm, 03-03 23:30) = 4. Not: u4 (other campaign,
  // campaign_id=12), u5 (arrived 02-29), u7 (source google). Payments at or after arrival inside
  // the range: u1 100 and 50, u3 70 (u2 paid before arriving, u3's 999 and u6's 60 fall on 03-04).
  it('counts arrivals and conversions per measure, with the numbers worked out by hand', async () => {
    const res = await analyse(1, {
      ...range,
      convertMeasures: [
        { expression: 'event.pay', aggregator: 'TRIGGER_USER_COUNT' },
        { expression: 'event.pay', aggregator: 'TOTAL_COUNT' },
        { expression: 'event.pay', aggregator: 'AVG_COUNT' },
        { expression: 'event.pay.amount', aggregator: 'SUM' },
        { expression: 'event.pay.amount', aggregator: 'AVG' },
        { expression: 'event.pay.amount', aggregator: 'MAX' },
        { expression: 'event.pay.amount', aggregator: 'MIN' },
        { expression: 'event.pay.amount', aggregator: 'AVG_PER' },
        { expression: 'event.pay.amount', aggregator: 'REMOVE_DUMPLICATE' },
        { expression: 'event.$pageview', aggregator: 'TRIGGER_USER_COUNT' },
      ],
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      success: 0,
      campaignId: 1,
      fromDate: '2024-03-01',
      toDate: '2024-03-03',
      arrivedUsers: 4,
      results: [
        result('event.pay', 'TRIGGER_USER_COUNT', 2, 0.5, 2),
        result('event.pay', 'TOTAL_COUNT', 2, 0.5, 3),
        result('event.pay', 'AVG_COUNT', 2, 0.5, 1.5),
        result('event.pay.amount', 'SUM', 2, 0.5, 220),
        result('event.pay.amount', 'AVG', 2, 0.5, 73.333333),
        result('event.pay.amount', 'MAX', 2, 0.5, 100),
        result('event.pay.amount', 'MIN', 2, 0.5, 50),
        result('event.pay.amount', 'AVG_PER', 2, 0.5, 110),
        result('event.pay.amount', 'REMOVE_DUMPLICATE', 2, 0.5, 3),
        // the arrival page view itself is at the arrival time: every arrived user converts
        result('event.$pageview', 'TRIGGER_USER_COUNT', 4, 1, 4),
      ],
      reportUpdateTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    })
  })

  it('takes expression alone as the users who did it, and reads virtual events and filters', async () => {
    const single = await analyse(1, { ...range, expression: 'event.pay' })
    expect(single.body.results).toEqual([result('event.pay', 'TRIGGER_USER_COUNT', 2, 0.5, 2)])
    const more = await analyse(1, {
      ...range,
      convertMeasures: [
        // big_pay = pay with amount >= 70: u1's 100 and u3's 70
        { expression: 'event.big_pay', aggregator: 'TOTAL_COUNT' },
        { expression: 'event.pay', aggregator: 'TOTAL_COUNT', filter: { conditions: [{ expression: 'event.pay.amount', function: 'LT', params: [70] }], relation: 'AND' } },
      ],
    })
    expect(more.body.results).toEqual([result('event.big_pay', 'TOTAL_COUNT', 2, 0.5, 2), result('event.pay', 'TOTAL_COUNT', 1, 0.25, 1)])
  })

  it('requires the campaign content when the campaign sets it, and reads campaign_id=2 exactly (campaign 2: u1, u8, u9)', async () => {
    // u2 has the utm values but content "text"; u1 pays twice after arriving, u8 and u9 never pay
    const res = await analyse(2, { ...range, convertMeasures: [{ expression: 'event.pay', aggregator: 'TOTAL_COUNT' }] })
    expect(res.body).toMatchObject({ campaignId: 2, arrivedUsers: 3, results: [result('event.pay', 'TOTAL_COUNT', 1, 0.333333, 2)] })
  })

  it('counts only arrivals inside the range, and conversions after them inside the range', async () => {
    // 03-02..03: arrived u2, u3, u6; only u3 pays afterwards in the range (u1 arrived on 03-01)
    const res = await analyse(1, { fromDate: '2024-03-02', toDate: '2024-03-03', expression: 'event.pay' })
    expect(res.body).toMatchObject({ arrivedUsers: 3, results: [result('event.pay', 'TRIGGER_USER_COUNT', 1, 0.333333, 1)] })
    const none = await analyse(1, { fromDate: '2024-03-04', toDate: '2024-03-04', convertMeasures: [{ expression: 'event.pay', aggregator: 'TOTAL_COUNT' }, { expression: 'event.pay.amount', aggregator: 'AVG' }] })
    expect(none.body).toMatchObject({ arrivedUsers: 0, results: [result('event.pay', 'TOTAL_COUNT', 0, null, 0), result('event.pay.amount', 'AVG', 0, null, null)] })
  })

  it('still analyses a deleted campaign: campaign 3 shares the utm values, not the campaign_id', async () => {
    expect((await host.server.call('GET', `${BASE}/3`, { headers: p })).body.status).toBe(0)
    const res = await analyse(3, { ...range, expression: 'event.pay' })
    expect(res.status).toBe(200)
    // u1, u2, u6 by utm; u3 came by campaign_id=1
    expect(res.body).toMatchObject({ campaignId: 3, arrivedUsers: 3, results: [result('event.pay', 'TRIGGER_USER_COUNT', 1, 0.333333, 1)] })
  })

  it('serves a cached result with useCache, kept apart per campaign', async () => {
    const body = { fromDate: '2024-03-01', toDate: '2024-03-02', expression: 'event.pay', useCache: true }
    setClock(Date.parse('2024-05-01T02:00:00Z'))
    const first = await analyse(1, body)
    expect(first.body.reportUpdateTime).toBe('2024-05-01 10:00:00')
    setClock(Date.parse('2024-05-01T03:00:00Z'))
    expect((await analyse(1, body)).body).toEqual(first.body)
    const other = await analyse(2, body)
    expect(other.body).toMatchObject({ campaignId: 2, arrivedUsers: 3, reportUpdateTime: '2024-05-01 11:00:00' })
    expect((await analyse(1, { ...body, useCache: false })).body.reportUpdateTime).toBe('2024-05-01 11:00:00')
    setClock()
  })

  it.each([
    [{ toDate: '2024-03-03', expression: 'event.pay' }, ['fromDate']],
    [{ ...range, fromDate: '2024-02-30', expression: 'event.pay' }, ['fromDate']],
    [{ fromDate: '2024-03-03', toDate: '2024-03-01', expression: 'event.pay' }, ['toDate']],
    [{ ...range }, ['expression', 'convertMeasures']],
    [{ ...range, expression: 'event.pay', convertMeasures: [{ expression: 'event.pay', aggregator: 'TOTAL_COUNT' }] }, ['expression', 'convertMeasures']],
    [{ ...range, expression: 'event.nothing' }, ['expression']],
    [{ ...range, expression: 5 }, ['expression']],
    [{ ...range, convertMeasures: [] }, ['convertMeasures']],
    [{ ...range, convertMeasures: [{ expression: 'event.pay', aggregator: 'BOGUS' }] }, ['convertMeasures[0].aggregator']],
    [{ ...range, convertMeasures: [{ expression: 'event.pay', aggregator: 'SUM' }] }, ['convertMeasures[0].aggregator']],
    [{ ...range, convertMeasures: [{ expression: 'event.pay', aggregator: 'TOTAL_COUNT' }, { expression: 'event.pay.nope', aggregator: 'SUM' }] }, ['convertMeasures[1].expression']],
    [{ ...range, convertMeasures: [{ expression: 'event.$pageview.$url', aggregator: 'SUM' }] }, ['convertMeasures[0].aggregator']],
    [{ ...range, convertMeasures: [{ aggregator: 'TOTAL_COUNT' }] }, ['convertMeasures[0].expression']],
    [{ ...range, convertMeasures: [{ expression: 'event.pay', aggregator: 'TOTAL_COUNT', filter: { conditions: [{ expression: 'event.pay.amount', function: 'CONTAIN', params: ['1'] }] } }] }, ['convertMeasures[0].filter.conditions[0].function']],
    [{ ...range, expression: 'event.pay', useCache: 'yes' }, ['useCache']],
  ])('refuses %j with 400 naming %j', async (body, params) => {
    const res = await analyse(1, body)
    expect(res.status).toBe(400)
    expect(res.body.data).toEqual(params)
  })

  it('answers 400 naming campaignId for an unknown campaign', async () => {
    const res = await analyse(99, { ...range, expression: 'event.pay' })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg: 'no campaign has the id 99', data: ['campaignId'] })
    expect((await analyse('x', { ...range, expression: 'event.pay' })).body.data).toEqual(['campaignId'])
  })
})
