import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getJob } from '../../src-main/domain/ingest/jobs'
import { startSampleJob, type SampleRequest } from '../../src-main/domain/ingest/sample'
import { sampleOptions, sampleWindow } from '../../src-main/domain/ingest/sample/options'
import { createProject } from '../../src-main/domain/platform/projects'
import { eventually, startTestServer, type TestServer } from '../helpers/server'

/**
 * The sample's data, judged as an analyst would judge a chart of it: the numbers are random by
 * design, so the checks are the shapes the generator promises (inequalities), plus exact counts
 * where the definition fixes them (one profile per user, orders that match the pay events).
 */

let s: TestServer

beforeAll(async () => {
  s = await startTestServer()
})
afterAll(() => s.stop())

async function loaded(appKey: string, timeZone: string, request: SampleRequest): Promise<void> {
  createProject(s.app.ctx, { appKey, name: appKey, timeZone }, null)
  await s.app.ctx.background.idle()
  const job = await startSampleJob(s.app.ctx, { appKey, timeZone }, request, null)
  await eventually(async () => !['queued', 'running'].includes(getJob(s.app.ctx, appKey, job.id).state), 120_000)
  expect(getJob(s.app.ctx, appKey, job.id)).toMatchObject({ state: 'succeeded', error: null })
}

function rows<T = Record<string, unknown>>(appKey: string, timeZone: string, sql: string): Promise<T[]> {
  return s.app.ctx.warehouse.withConnection(appKey, timeZone, async (conn) => (await conn.runAndReadAll(sql)).getRowObjectsJS() as T[])
}

async function one(appKey: string, timeZone: string, sql: string): Promise<Record<string, number>> {
  const [row] = await rows(appKey, timeZone, sql)
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]))
}

/** What two equal samples must share: counts per event, amounts, users per day, and every row. */
async function fingerprint(appKey: string): Promise<unknown> {
  return {
    events: await rows(appKey, 'UTC', 'SELECT xwhat, count(*) AS n FROM event_vd GROUP BY xwhat ORDER BY xwhat'),
    amounts: await rows(appKey, 'UTC', "SELECT round(sum(amount), 2) AS total, count(*) AS orders FROM event_vd WHERE xwhat = 'pay'"),
    daily: await rows(appKey, 'UTC', 'SELECT ds, count(DISTINCT distinct_id) AS users FROM event_vd GROUP BY ds ORDER BY ds'),
    rows: await rows(appKey, 'UTC', 'SELECT bit_xor(hash(distinct_id, xwho, xwhat, xwhen, ds, "$city", "$model", product_id, amount, app_version)) AS h FROM event_vd'),
    profiles: await rows(appKey, 'UTC', 'SELECT bit_xor(hash(distinct_id, xwho, gender, age, total_spent, orders_count, "$signup_time", "$email")) AS h FROM profile_vd'),
  }
}

describe('the sample is deterministic', () => {
  const request = { users: 800, days: 21, seed: 42, endDate: '2024-05-31' }

  it('gives the same data for the same users, days, seed and endDate, and other data for another seed', async () => {
    await loaded('twin1', 'UTC', request)
    await loaded('twin2', 'UTC', request)
    await loaded('other', 'UTC', { ...request, seed: 43 })
    const first = await fingerprint('twin1')
    expect(await fingerprint('twin2')).toEqual(first)
    expect(await fingerprint('other')).not.toEqual(first)
  })
})

describe('the sample looks like a real shop', () => {
  const appKey = 'shop'
  const zone = 'Asia/Shanghai'
  const q = (sql: string) => one(appKey, zone, sql)

  beforeAll(async () => {
    await loaded(appKey, zone, { users: 4000, days: 60, seed: 3, endDate: '2024-03-31' })
  }, 120_000)

  it('narrows the funnel at every step: view > cart > checkout > pay users', async () => {
    const f = await q(`SELECT
      count(DISTINCT distinct_id) FILTER (WHERE xwhat = 'view_product') AS viewed,
      count(DISTINCT distinct_id) FILTER (WHERE xwhat = 'add_to_cart') AS carted,
      count(DISTINCT distinct_id) FILTER (WHERE xwhat = 'checkout') AS checked,
      count(DISTINCT distinct_id) FILTER (WHERE xwhat = 'pay') AS paid
      FROM event_vd`)
    expect(f.viewed).toBeGreaterThan(f.carted)
    expect(f.carted).toBeGreaterThan(f.checked)
    expect(f.checked).toBeGreaterThan(f.paid)
    expect(f.paid).toBeGreaterThan(0)
  })

  it('converts iOS users better than web users', async () => {
    const byPlatform = await rows<{ platform: string; rate: number }>(appKey, zone, `SELECT "$platform" AS platform,
      count(DISTINCT distinct_id) FILTER (WHERE xwhat = 'pay') / count(DISTINCT distinct_id) FILTER (WHERE xwhat = 'view_product') AS rate
      FROM event_vd GROUP BY 1`)
    const rate = Object.fromEntries(byPlatform.map((r) => [r.platform, r.rate]))
    expect(Object.keys(rate).sort()).toEqual(['Android', 'Web', 'iOS'])
    expect(rate.iOS).toBeGreaterThan(rate.Web)
  })

  it('keeps fewer users the longer after their first day: day 1 > day 7 > day 30', async () => {
    // cohorts of the first 20 days, so that day 30 lies inside the window for all of them
    const r = await q(`WITH firsts AS (SELECT distinct_id, min(ds) AS first FROM event_vd GROUP BY 1),
        days AS (SELECT DISTINCT distinct_id, ds FROM event_vd),
        offsets AS (SELECT d.distinct_id, date_diff('day', strptime(f.first::VARCHAR, '%Y%m%d'), strptime(d.ds::VARCHAR, '%Y%m%d')) AS k
          FROM days d JOIN firsts f USING (distinct_id) WHERE f.first <= 20240220)
      SELECT count(DISTINCT distinct_id) FILTER (WHERE k = 0) AS d0, count(DISTINCT distinct_id) FILTER (WHERE k = 1) AS d1,
        count(DISTINCT distinct_id) FILTER (WHERE k = 7) AS d7, count(DISTINCT distinct_id) FILTER (WHERE k = 30) AS d30 FROM offsets`)
    expect(r.d0).toBeGreaterThan(r.d1)
    expect(r.d1).toBeGreaterThan(r.d7)
    expect(r.d7).toBeGreaterThan(r.d30)
    expect(r.d30).toBeGreaterThan(0)
  })

  it('writes ds as the project-local day of xwhen, which is not the UTC day for early-morning events', async () => {
    const r = await q(`SELECT count(*) FILTER (WHERE ds <> year(xwhen) * 10000 + month(xwhen) * 100 + day(xwhen)) AS wrong,
      count(*) FILTER (WHERE ds <> strftime(timezone('UTC', xwhen), '%Y%m%d')::INTEGER) AS not_utc, count(*) AS total FROM event_vd`)
    expect(r.wrong).toBe(0)
    expect(r.not_utc).toBeGreaterThan(0)
    expect(r.total).toBeGreaterThan(50_000)
  })

  it('follows a daily rhythm: more sessions start at 20-22h than at 3-5h local time', async () => {
    const r = await q(`SELECT count(*) FILTER (WHERE hour(xwhen) BETWEEN 20 AND 22) AS evening, count(*) FILTER (WHERE hour(xwhen) BETWEEN 3 AND 5) AS night
      FROM event_vd WHERE xwhat IN ('$startup', '$pageview')`)
    expect(r.evening).toBeGreaterThan(r.night * 5)
  })

  it('gives every pay an amount above 0 and the order id of a checkout just before it', async () => {
    const r = await q(`SELECT count(*) AS pays, count(*) FILTER (WHERE p.amount > 0 AND p.item_count >= 1 AND p.payment_method IS NOT NULL) AS priced,
        count(*) FILTER (WHERE c.xwhen < p.xwhen AND c.amount = p.amount) AS after_checkout
      FROM event_vd p LEFT JOIN event_vd c ON c.order_id = p.order_id AND c.xwhat = 'checkout'
      WHERE p.xwhat = 'pay'`)
    expect(r.pays).toBeGreaterThan(100)
    expect(r.priced).toBe(r.pays)
    expect(r.after_checkout).toBe(r.pays)
  })

  it('has repeat buyers', async () => {
    const r = await q("SELECT count(*) FILTER (WHERE n > 1) AS repeat FROM (SELECT count(*) AS n FROM event_vd WHERE xwhat = 'pay' GROUP BY distinct_id)")
    expect(r.repeat).toBeGreaterThan(0)
  })

  it('has exactly one profile per user, and profiles whose orders and spending are those of the pay events', async () => {
    const r = await q(`WITH paid AS (SELECT distinct_id, count(*) AS n, sum(amount) AS total FROM event_vd WHERE xwhat = 'pay' GROUP BY 1)
      SELECT (SELECT count(*) FROM profile_vd) AS profiles, (SELECT count(DISTINCT xwho) FROM profile_vd) AS users,
        (SELECT count(DISTINCT xwho) FROM event_vd) AS active,
        (SELECT count(*) FROM profile_vd p LEFT JOIN paid USING (distinct_id)
          WHERE p.orders_count <> coalesce(paid.n, 0) OR abs(p.total_spent - coalesce(paid.total, 0)) > 0.001) AS inconsistent,
        (SELECT count(*) FROM profile_vd WHERE "$is_login" AND ("$signup_time" IS NULL OR "$email" IS NULL OR "$phone" IS NULL)) AS incomplete`)
    expect(r).toEqual({ profiles: 4000, users: 4000, active: 4000, inconsistent: 0, incomplete: 0 })
  })

  it('gives profiles the time of the first event and of sign_up, and logs users in from sign_up on', async () => {
    const r = await q(`WITH firsts AS (SELECT distinct_id, min(xwhen) AS first FROM event_vd GROUP BY 1),
        signups AS (SELECT distinct_id, xwhen AS at FROM event_vd WHERE xwhat = 'sign_up')
      SELECT (SELECT count(*) FROM profile_vd p JOIN firsts f USING (distinct_id) WHERE p."$first_visit_time" <> f.first::TIMESTAMP) AS first_visit,
        (SELECT count(*) FROM profile_vd p LEFT JOIN signups s USING (distinct_id) WHERE p."$signup_time" IS DISTINCT FROM s.at::TIMESTAMP) AS signup,
        (SELECT count(*) FROM event_vd e LEFT JOIN signups s USING (distinct_id) WHERE e."$is_login" <> coalesce(e.xwhen >= s.at, false)) AS login,
        (SELECT count(*) FROM signups) AS signed_up`)
    expect(r).toMatchObject({ first_visit: 0, signup: 0, login: 0 })
    expect(r.signed_up).toBeGreaterThan(1000)
  })

  it('marks the first day of each user, and only that day', async () => {
    const r = await q(`SELECT count(*) FILTER (WHERE "$is_first_day" <> (e.ds = f.first)) AS wrong FROM event_vd e
      JOIN (SELECT distinct_id, min(ds) AS first FROM event_vd GROUP BY 1) f USING (distinct_id)`)
    expect(r.wrong).toBe(0)
  })
})

describe('sample options', () => {
  it('defaults to 20,000 users over the 90 days that end yesterday in the project time zone', () => {
    // 2024-03-01 01:00 UTC is already 09:00 on 2024-03-01 in Shanghai but still 2024-02-29 in Los Angeles
    const now = new Date('2024-03-01T01:00:00Z')
    expect(sampleOptions({}, 'Asia/Shanghai', now)).toEqual({ users: 20000, days: 90, seed: 1, endDate: '2024-02-29' })
    expect(sampleOptions({}, 'America/Los_Angeles', now).endDate).toBe('2024-02-28')
  })

  it('starts the window days - 1 before endDate, on the right weekday', () => {
    // 2024-02-29 is a Thursday; the 90 days ending there start on Saturday 2023-12-02
    expect(sampleWindow({ users: 5, days: 90, seed: 1, endDate: '2024-02-29' })).toEqual({ users: 5, days: 90, seed: 1, startDate: '2023-12-02', startWeekday: 5 })
  })
})
