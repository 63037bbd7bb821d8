import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setSetting } from '../../src-main/domain/platform/settings'
import { newProject, warehouseRows } from '../helpers/ingest'
import { eventually, startTestServer, type TestServer } from '../helpers/server'

/*
 * The analyses on realistic data, against plain SQL over the stored events: a sample shop of 2,000
 * users in America/New_York over 30 days that span the end of daylight saving (2025-11-02, a 25-hour
 * day). The reference queries share nothing with the engine but the stored rows: local days come
 * from DuckDB's own time-zone cast, funnels from one correlated lookup per step and entry event.
 * The hand-computed tests of each analysis pin the rules down on a few rows; this one checks that
 * they hold at scale, over thousands of users, with users followed in many parts.
 */

let s: TestServer
let p: { appKey: string; token: string }
const FROM = '2025-10-20'
const TO = '2025-11-05'
const STEPS = ['view_product', 'add_to_cart', 'checkout', 'pay']

const rows = (sql: string) => warehouseRows(s, 'xcheck', sql)
const post = async (path: string, body: Record<string, unknown>) => {
  const res = await s.call('POST', path, { headers: p, body: { crowds: ['$ALL'], fromDate: FROM, toDate: TO, useCache: false, ...body } })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body
}
/** The local day of `xwhen`, by DuckDB's cast in the project's zone (the connection's). */
const localDay = 'CAST(xwhen AS DATE)'
const inRange = `${localDay} BETWEEN DATE '${FROM}' AND DATE '${TO}'`
const label = (day: string) => `${day.replaceAll('-', '/')} 00:00:00`

/**
 * Per user (and `key`, e.g. the entry day), the deepest step reached from an entry event in the
 * range: each later step is the first such event at or after the previous one, all within
 * `window` seconds of the entry.
 */
function funnelDepths(window: number, key: string): string {
  const next = (step: string, of: string, after: string) =>
    `(SELECT min(epoch(x.xwhen)) FROM event_vd x WHERE x.xwhat = '${step}' AND x.distinct_id = ${of}.distinct_id AND epoch(x.xwhen) >= ${of}.${after} AND epoch(x.xwhen) <= ${of}.t + ${window})`
  return `WITH e AS (SELECT distinct_id, epoch(xwhen) AS t, ${key} AS k FROM event_vd WHERE xwhat = '${STEPS[0]}' AND ${inRange}),
    s1 AS (SELECT e.*, ${next(STEPS[1], 'e', 't')} AS t1 FROM e),
    s2 AS (SELECT s1.*, ${next(STEPS[2], 's1', 't1')} AS t2 FROM s1),
    s3 AS (SELECT s2.*, ${next(STEPS[3], 's2', 't2')} AS t3 FROM s2)
    SELECT distinct_id, k, max(1 + (t1 IS NOT NULL)::INT + (t2 IS NOT NULL)::INT + (t3 IS NOT NULL)::INT) AS depth FROM s3 GROUP BY ALL`
}
/** Users reaching each step, from (user, key, depth) rows. */
const reached = (depths: { depth: number }[]) => STEPS.map((_, i) => depths.filter((d) => d.depth > i).length)

beforeAll(async () => {
  s = await startTestServer({ threads: 2 })
  p = await newProject(s, 'xcheck', 'America/New_York')
  const started = await s.call('POST', '/uba/api/import/sample', { headers: p, body: { users: 2000, days: 30, seed: 11, endDate: '2025-11-10' } })
  expect(started.status).toBe(200)
  await eventually(async () => (await s.call('GET', `/uba/api/import/jobs/${started.body.id}`, { headers: p })).body.state === 'succeeded', 120_000)
}, 180_000)
afterAll(() => s.stop())

describe('analyses of the sample shop equal plain SQL over its events', () => {
  it('event analysis: pay events, their users and the amount paid, per local day and over the range', async () => {
    const body = await post('/uba/api/events/analyze', {
      unit: 'DAY',
      measures: [
        { expression: 'event.pay', aggregator: 'TOTAL_COUNT' },
        { expression: 'event.pay', aggregator: 'TRIGGER_USER_COUNT' },
        { expression: 'event.pay.amount', aggregator: 'SUM' },
      ],
    })
    const perDay = await rows(`SELECT strftime(${localDay}, '%Y-%m-%d') AS day, count(*) AS n, count(DISTINCT distinct_id) AS users, sum(amount) AS amount
      FROM event_vd WHERE xwhat = 'pay' AND ${inRange} GROUP BY 1`)
    const [total] = await rows(`SELECT count(*) AS n, count(DISTINCT distinct_id) AS users, sum(amount) AS amount FROM event_vd WHERE xwhat = 'pay' AND ${inRange}`)
    expect(total.n).toBeGreaterThan(300)
    // event analysis writes its days yyyy-MM-dd
    const byDay = new Map(perDay.map((r) => [String(r.day), r]))
    expect(body.series).toHaveLength(17)
    const [row] = body.rows
    body.series.forEach((day: string, i: number) => {
      const want = byDay.get(day) ?? { n: 0, users: 0, amount: 0 }
      expect([day, row.values[0][i], row.values[1][i]]).toEqual([day, want.n, want.users])
      expect(row.values[2][i]).toBeCloseTo(Number(want.amount), 6)
    })
    expect(row.sum.slice(0, 2)).toEqual([total.n, total.users])
    expect(row.sum[2]).toBeCloseTo(Number(total.amount), 6)
  })

  it('funnel view -> cart -> checkout -> pay in a day: users per entry day and over the range, whole or in parts', async () => {
    const depths = await rows(funnelDepths(86_400, `strftime(${localDay}, '%Y-%m-%d')`))
    const users = new Map<number, number>()
    for (const d of depths) users.set(Number(d.distinct_id), Math.max(users.get(Number(d.distinct_id)) ?? 0, Number(d.depth)))
    const days = [...new Set(depths.map((d) => String(d.k)))].sort()
    const want = [
      ['$ALL', reached([...users.values()].map((depth) => ({ depth })))],
      ...days.map((day) => [label(day), reached(depths.filter((d) => d.k === day) as { depth: number }[])]),
    ]
    expect((want[0][1] as number[])[3]).toBeGreaterThan(100)
    const funnel = { steps: STEPS.map((e) => ({ expression: `event.${e}` })), convertTime: 1, convertTimeUnit: 'DAY' }
    const got = (body: any) => body.dateList.map((d: string, i: number) => [d, body.rows[0].stepsDetail.map((st: any) => st.convertedUser[i])])
    expect(got(await post('/uba/api/funnels/analyze', funnel))).toEqual(want)
    // a few hundred events per part: the users are followed in dozens of parts
    setSetting(s.app.ctx.meta, 'analysis.funnel.eventsPerPart', '500')
    try {
      const parts = await post('/uba/api/funnels/analyze?explain=true', funnel)
      // one statement for the part boundaries, then one per part
      expect(parts.sql.length).toBeGreaterThan(1 + 24)
      expect(got(parts)).toEqual(want)
    } finally {
      setSetting(s.app.ctx.meta, 'analysis.funnel.eventsPerPart', '2000000')
    }
  })

  it('funnel in two hours, by the entry event\'s platform', async () => {
    const depths = await rows(funnelDepths(7_200, '"$platform"'))
    const platforms = [...new Set(depths.map((d) => String(d.k)))].sort()
    const want = platforms.map((platform) => [platform, reached(depths.filter((d) => d.k === platform) as { depth: number }[])])
    expect(platforms).toEqual(['Android', 'Web', 'iOS'].sort())
    const body = await post('/uba/api/funnels/analyze', {
      steps: STEPS.map((e) => ({ expression: `event.${e}` })),
      convertTime: 2,
      convertTimeUnit: 'HOUR',
      byStepIndex: 0,
      byField: { expression: 'event.view_product.$platform' },
    })
    const got = body.rows.filter((r: any) => String(r.byValue) !== '-1').map((r: any) => [r.byValue, r.stepsDetail.map((st: any) => st.convertedUser[0])])
    expect(got.sort()).toEqual(want)
  })

  it('retention $startup -> view_product over 7 days per start day; days past the last stored one are null', async () => {
    const body = await post('/uba/api/retentions/analyze', {
      firstEvent: { expression: 'event.$startup' },
      secondEvent: { expression: 'event.view_product' },
      duration: 7,
      unit: 'DAY',
      byFieldIndex: -1,
    })
    const ref = await rows(`WITH f AS (SELECT DISTINCT distinct_id, ${localDay} AS d FROM event_vd WHERE xwhat = '$startup' AND ${inRange}),
        r AS (SELECT DISTINCT distinct_id, ${localDay} AS d FROM event_vd WHERE xwhat = 'view_product')
      SELECT strftime(f.d, '%Y/%m/%d 00:00:00') AS day, count(DISTINCT f.distinct_id) AS total,
        [${Array.from({ length: 8 }, (_, k) => `CASE WHEN f.d + ${k} <= (SELECT max(${localDay}) FROM event_vd) THEN count(DISTINCT f.distinct_id) FILTER (r.d = f.d + ${k}) END`).join(', ')}] AS kept
      FROM f LEFT JOIN r ON r.distinct_id = f.distinct_id AND r.d BETWEEN f.d AND f.d + 7 GROUP BY f.d ORDER BY f.d`)
    const want = ref.map((r) => [r.day, r.total, (r.kept as (bigint | null)[]).map((v) => (v === null ? null : Number(v)))])
    expect(want).toHaveLength(17)
    // the last stored day is 2025-11-10: starts from 11-04 on have days not seen yet
    expect(want[16][2]).toEqual([expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number), null, null])
    const got = body.rows.slice(1).map((r: any) => [r.byValue, r.totalPeople, r.retentionPeoples])
    expect(got).toEqual(want)
  })
})
