import { beforeAll, describe, expect, it } from 'vitest'
import { setSetting } from '../../src-main/domain/platform/settings'
import { ENGINES, useEngine, type Engine, type Project } from '../helpers/engines'
import { eventually } from '../helpers/server'

/*
 * The analyses on realistic data, against plain SQL over the stored events: a sample shop of 2,000
 * users in America/New_York over 30 days that span the end of daylight saving (2025-11-02, a 25-hour
 * day). The reference queries share nothing with the engine but the stored rows: local days come
 * from DuckDB's own time-zone cast, funnels from one correlated lookup per step and entry event.
 * The hand-computed tests of each analysis pin the rules down on a few rows; this one checks that
 * they hold at scale, over thousands of users, with users followed in many parts. On ClickHouse the
 * references are ClickHouse's SQL (beside the DuckDB form): its own zone conversion, and per-user
 * arrays of step times instead of lookups (18.16 has no correlated subqueries).
 */

const ZONE = 'America/New_York'
const FROM = '2025-10-20'
const TO = '2025-11-05'
const STEPS = ['view_product', 'add_to_cart', 'checkout', 'pay']

const label = (day: string) => `${day.replaceAll('-', '/')} 00:00:00`

/** Users reaching each step, from (user, key, depth) rows. */
const reached = (depths: { depth: number }[]) => STEPS.map((_, i) => depths.filter((d) => d.depth > i).length)

/** The reference queries, in each engine's own SQL. */
interface Reference {
  /** The local day of an event as yyyy-MM-dd text. */
  day: string
  /** The entry event's platform. */
  platform: string
  /** Pay events, their users and amount: per local day (`day`), and over the range. */
  paysPerDay: string
  paysTotal: string
  funnelDepths(window: number, key: string): string
  /** Per start day: its label (`day`), the users starting (`total`) and those back at +0..+7 (`kept`, null past the last stored day). */
  retention: string
}

/** DuckDB: the local day of `xwhen`, by DuckDB's cast in the project's zone (the connection's). */
const localDay = 'CAST(xwhen AS DATE)'
const inRange = `${localDay} BETWEEN DATE '${FROM}' AND DATE '${TO}'`

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

const DUCKDB: Reference = {
  day: `strftime(${localDay}, '%Y-%m-%d')`,
  platform: '"$platform"',
  paysPerDay: `SELECT strftime(${localDay}, '%Y-%m-%d') AS day, count(*) AS n, count(DISTINCT distinct_id) AS users, sum(amount) AS amount
      FROM event_vd WHERE xwhat = 'pay' AND ${inRange} GROUP BY 1`,
  paysTotal: `SELECT count(*) AS n, count(DISTINCT distinct_id) AS users, sum(amount) AS amount FROM event_vd WHERE xwhat = 'pay' AND ${inRange}`,
  funnelDepths,
  retention: `WITH f AS (SELECT DISTINCT distinct_id, ${localDay} AS d FROM event_vd WHERE xwhat = '$startup' AND ${inRange}),
        r AS (SELECT DISTINCT distinct_id, ${localDay} AS d FROM event_vd WHERE xwhat = 'view_product')
      SELECT strftime(f.d, '%Y/%m/%d 00:00:00') AS day, count(DISTINCT f.distinct_id) AS total,
        [${Array.from({ length: 8 }, (_, k) => `CASE WHEN f.d + ${k} <= (SELECT max(${localDay}) FROM event_vd) THEN count(DISTINCT f.distinct_id) FILTER (r.d = f.d + ${k}) END`).join(', ')}] AS kept
      FROM f LEFT JOIN r ON r.distinct_id = f.distinct_id AND r.d BETWEEN f.d AND f.d + 7 GROUP BY f.d ORDER BY f.d`,
}

/** ClickHouse: `xwhen` is epoch ms; the local day by ClickHouse's own conversion in the project's zone. */
const chDay = `toDate(toDateTime(intDiv(xwhen, 1000)), '${ZONE}')`
const chInRange = `${chDay} BETWEEN toDate('${FROM}') AND toDate('${TO}')`

/**
 * ClickHouse's form of funnelDepths: each user's times of each later step as arrays, joined to the
 * entry events; each step is the earliest time in [previous step, entry + window] (-1: not reached).
 * The bounds reach the lambdas as arguments (18.16 cannot capture a column there).
 */
function chFunnelDepths(window: number, key: string): string {
  const each = (arr: string, v: string) => `arrayResize(emptyArrayInt64(), length(${arr}), ${v})`
  const next = (i: number, after: string) => {
    const found = `arrayFilter((x, lo, hi) -> x >= lo AND x <= hi, a${i}, ${each(`a${i}`, after)}, ${each(`a${i}`, `t + ${window * 1000}`)})`
    return `if(${after} < 0 OR empty(${found}), -1, arrayReduce('min', ${found})) AS t${i}`
  }
  return `SELECT distinct_id, k, max(1 + (t1 >= 0) + (t2 >= 0) + (t3 >= 0)) AS depth FROM (
      SELECT distinct_id, k, t, ${next(1, 't')}, ${next(2, 't1')}, ${next(3, 't2')} FROM (
        SELECT distinct_id, xwhen AS t, ${key} AS k FROM event_vd WHERE xwhat = '${STEPS[0]}' AND ${chInRange}
      ) ALL INNER JOIN (
        SELECT distinct_id, ${STEPS.slice(1).map((step, i) => `groupArrayIf(xwhen, xwhat = '${step}') AS a${i + 1}`).join(', ')} FROM event_vd GROUP BY distinct_id
      ) USING distinct_id
    ) GROUP BY distinct_id, k`
}

const CLICKHOUSE: Reference = {
  day: `toString(${chDay})`,
  platform: '`$platform`',
  paysPerDay: `SELECT toString(${chDay}) AS day, count() AS n, uniqExact(distinct_id) AS users, sum(amount) AS amount
      FROM event_vd WHERE xwhat = 'pay' AND ${chInRange} GROUP BY day`,
  paysTotal: `SELECT count() AS n, uniqExact(distinct_id) AS users, sum(amount) AS amount FROM event_vd WHERE xwhat = 'pay' AND ${chInRange}`,
  funnelDepths: chFunnelDepths,
  retention: `SELECT concat(replaceAll(toString(d), '-', '/'), ' 00:00:00') AS day, uniqExact(distinct_id) AS total,
        [${Array.from({ length: 8 }, (_, k) => `if(d + ${k} <= (SELECT max(${chDay}) FROM event_vd), uniqExactIf(distinct_id, has(rd, d + ${k})), NULL)`).join(', ')}] AS kept
      FROM (SELECT DISTINCT distinct_id, ${chDay} AS d FROM event_vd WHERE xwhat = '$startup' AND ${chInRange})
      ALL LEFT JOIN (SELECT distinct_id, groupUniqArray(${chDay}) AS rd FROM event_vd WHERE xwhat = 'view_product' GROUP BY distinct_id) USING distinct_id
      GROUP BY d ORDER BY d`,
}

const REFERENCES: Record<Engine, Reference> = { duckdb: DUCKDB, clickhouse: CLICKHOUSE }

describe.each(ENGINES)('the sample shop, on %s', (engine) => {
  const host = useEngine(engine, { threads: 2 })
  let p: Project

  const rows = (sql: string) => host.rows(p, sql)
  const post = async (path: string, body: Record<string, unknown>) => {
    const res = await host.server.call('POST', path, { headers: p, body: { crowds: ['$ALL'], fromDate: FROM, toDate: TO, useCache: false, ...body } })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body
  }
  const ref = REFERENCES[engine]

  beforeAll(async () => {
    p = await host.project('xcheck', ZONE)
    const started = await host.server.call('POST', '/uba/api/import/sample', { headers: p, body: { users: 2000, days: 30, seed: 11, endDate: '2025-11-10' } })
    expect(started.status).toBe(200)
    await eventually(async () => (await host.server.call('GET', `/uba/api/import/jobs/${started.body.id}`, { headers: p })).body.state === 'succeeded', 120_000)
  }, 180_000)

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
      const perDay = await rows(ref.paysPerDay)
      const [total] = await rows(ref.paysTotal)
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
      const depths = await rows(ref.funnelDepths(86_400, ref.day))
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
      setSetting(host.server.app.ctx.meta, 'analysis.funnel.eventsPerPart', '500')
      try {
        const parts = await post('/uba/api/funnels/analyze?explain=true', funnel)
        // one statement for the part boundaries, then one per part
        expect(parts.sql.length).toBeGreaterThan(1 + 24)
        expect(got(parts)).toEqual(want)
      } finally {
        setSetting(host.server.app.ctx.meta, 'analysis.funnel.eventsPerPart', '2000000')
      }
    })

    it('funnel in two hours, by the entry event\'s platform', async () => {
      const depths = await rows(ref.funnelDepths(7_200, ref.platform))
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
      const kept = await rows(ref.retention)
      const want = kept.map((r) => [r.day, r.total, (r.kept as (bigint | null)[]).map((v) => (v === null ? null : Number(v)))])
      expect(want).toHaveLength(17)
      // the last stored day is 2025-11-10: starts from 11-04 on have days not seen yet
      expect(want[16][2]).toEqual([expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number), null, null])
      const got = body.rows.slice(1).map((r: any) => [r.byValue, r.totalPeople, r.retentionPeoples])
      expect(got).toEqual(want)
    })
  })
})
