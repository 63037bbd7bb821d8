import { beforeAll, describe, expect, it } from 'vitest'
import { addColumns } from '../../src-main/domain/schema/columns'
import { emptyReported, recordReported } from '../../src-main/domain/schema/plan'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait, newProject } from '../helpers/ingest'
import type { TestServer } from '../helpers/server'

const at = Date.parse('2024-01-02T10:00:00Z')
const rec = (xwho: string, xwhat: string, xcontext: Record<string, unknown>, i: number) => JSON.stringify({ xwho, xwhat, xwhen: at + i * 60_000, xcontext })
const profile = (xwho: string, xcontext: Record<string, unknown>) => JSON.stringify({ xwho, xwhat: '$profile_set', xwhen: at, xcontext })

/**
 * Eight events (six views, two pays) and four profiles:
 *   1 a view  city Beijing   price 10   tags [x, y]  ok true   note s1
 *   2 a view  city beijing   price 10   tags [x, x]
 *   3 b view  city Shanghai  price 2.5               ok false
 *   4 b view  city Beijing   price 10               ok true
 *   5 c view                 price 20   tags [y]
 *   6 c pay   city Shanghai  amount 5
 *   7 d pay   city Shenzhen  amount 5
 *   8 d view  city Shanghai                                 note s2
 * profiles: a gender f, email a@x, seen 2024-01-02 10:00; b gender m, seen the same; c gender f, seen 2024-01-03 08:30; d level 1.
 */
describe.each(ENGINES)('GET /uba/api/meta/propertyValues, on %s', (engine) => {
  const host = useEngine(engine)
  let s: TestServer
  let p: Project

  beforeAll(async () => {
    s = host.server
    p = await host.project('pv', 'UTC')
    const lines = [
      rec('a', 'view', { city: 'Beijing', price: 10, tags: ['x', 'y'], ok: true, note: 's1' }, 1),
      rec('a', 'view', { city: 'beijing', price: 10, tags: ['x', 'x'] }, 2),
      rec('b', 'view', { city: 'Shanghai', price: 2.5, ok: false }, 3),
      rec('b', 'view', { city: 'Beijing', price: 10, ok: true }, 4),
      rec('c', 'view', { price: 20, tags: ['y'] }, 5),
      rec('c', 'pay', { city: 'Shanghai', amount: 5 }, 6),
      rec('d', 'pay', { city: 'Shenzhen', amount: 5 }, 7),
      rec('d', 'view', { city: 'Shanghai', note: 's2' }, 8),
      profile('a', { gender: 'f', email: 'a@x', seen: '2024-01-02 10:00:00' }),
      profile('b', { gender: 'm', seen: '2024-01-02 10:00:00' }),
      profile('c', { gender: 'f', seen: '2024-01-03 08:30:00' }),
      profile('d', { level: 1 }),
    ]
    const job = await importAndWait(s, p, { path: fixture('pv.jsonl', lines.join('\n')) })
    if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
    const virtual = await s.call('POST', '/uba/api/meta/event/virtual', {
      headers: p,
      body: { id: 'money', events: [{ expression: 'event.view', filter: { conditions: [{ expression: 'event.view.price', function: 'GTE', params: [10] }], relation: 'AND' } }, { expression: 'event.pay' }] },
    })
    if (virtual.status !== 200) throw new Error(JSON.stringify(virtual.body))
  })

  const values = (query: Record<string, string | number>) => s.call('GET', `/uba/api/meta/propertyValues?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`, { headers: p })
  const whole = { sampled: false, fraction: 1, masked: false }

  it("counts an event's values in its events, most frequent first, ties by value (binary order)", async () => {
    const res = await values({ expression: 'event.view.city' })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      expression: 'event.view.city', dataType: 'string', ...whole,
      values: [{ value: 'Beijing', count: 2 }, { value: 'Shanghai', count: 2 }, { value: 'beijing', count: 1 }],
      more: false, rows: 6, nulls: 1,
    })
  })

  it('counts every event for $Anything, and a virtual event over its members with their filters', async () => {
    const any = await values({ expression: 'event.$Anything.city' })
    expect(any.body.values).toEqual([{ value: 'Shanghai', count: 3 }, { value: 'Beijing', count: 2 }, { value: 'Shenzhen', count: 1 }, { value: 'beijing', count: 1 }])
    expect(any.body).toMatchObject({ rows: 8, nulls: 1 })
    // money: views with price >= 10 (events 1, 2, 4, 5) and both pays (6, 7)
    const money = await values({ expression: 'event.money.city' })
    expect(money.body.values).toEqual([{ value: 'Beijing', count: 2 }, { value: 'Shanghai', count: 1 }, { value: 'Shenzhen', count: 1 }, { value: 'beijing', count: 1 }])
    expect(money.body).toMatchObject({ rows: 6, nulls: 1 })
  })

  it('searches a substring in any letter case, and cuts at limit saying more match', async () => {
    expect((await values({ expression: 'event.$Anything.city', search: 'BEI' })).body.values).toEqual([{ value: 'Beijing', count: 2 }, { value: 'beijing', count: 1 }])
    expect((await values({ expression: 'event.$Anything.city', search: 'sh' })).body.values).toEqual([{ value: 'Shanghai', count: 3 }, { value: 'Shenzhen', count: 1 }])
    expect((await values({ expression: 'event.$Anything.city', search: 'nowhere' })).body).toMatchObject({ values: [], more: false, rows: 8, nulls: 1 })
    const cut = await values({ expression: 'event.$Anything.city', limit: 2 })
    expect(cut.body).toMatchObject({ values: [{ value: 'Shanghai', count: 3 }, { value: 'Beijing', count: 2 }], more: true })
  })

  it('gives numbers as numbers (searched as written) and booleans as booleans', async () => {
    const price = await values({ expression: 'event.view.price' })
    expect(price.body).toMatchObject({ dataType: 'number', values: [{ value: 10, count: 3 }, { value: 2.5, count: 1 }, { value: 20, count: 1 }], rows: 6, nulls: 1 })
    expect((await values({ expression: 'event.view.price', search: '2' })).body.values).toEqual([{ value: 2.5, count: 1 }, { value: 20, count: 1 }])
    // "10" is written without ".0": a search for 0 finds 10 and 20 only
    expect((await values({ expression: 'event.view.price', search: '0' })).body.values).toEqual([{ value: 10, count: 3 }, { value: 20, count: 1 }])
    const ok = await values({ expression: 'event.view.ok' })
    expect(ok.body).toMatchObject({ dataType: 'boolean', values: [{ value: true, count: 2 }, { value: false, count: 1 }], nulls: 3 })
  })

  it('counts a list element once per event holding it; a missing list is a null', async () => {
    const res = await values({ expression: 'event.view.tags' })
    expect(res.body).toMatchObject({ dataType: 'array<string>', values: [{ value: 'x', count: 2 }, { value: 'y', count: 2 }], rows: 6, nulls: 3 })
  })

  it('counts user properties in users with a profile', async () => {
    const res = await values({ expression: 'user.gender' })
    expect(res.body).toEqual({ expression: 'user.gender', dataType: 'string', ...whole, values: [{ value: 'f', count: 2 }, { value: 'm', count: 1 }], more: false, rows: 4, nulls: 1 })
  })

  it('gives datetimes as the project shows them, searched in that form', async () => {
    const res = await values({ expression: 'user.seen' })
    expect(res.body).toMatchObject({ dataType: 'datetime', values: [{ value: '2024-01-02 10:00:00', count: 2 }, { value: '2024-01-03 08:30:00', count: 1 }], rows: 4, nulls: 1 })
    expect((await values({ expression: 'user.seen', search: '01-03 08' })).body.values).toEqual([{ value: '2024-01-03 08:30:00', count: 1 }])
  })

  it('shows no values of a masked property, of events or users', async () => {
    expect((await values({ expression: 'event.view.note' })).body.values).toEqual([{ value: 's1', count: 1 }, { value: 's2', count: 1 }])
    expect((await s.call('PUT', '/uba/api/schema/eventProperties?eventId=view&propertyId=note', { headers: p, body: { masking: 1 } })).status).toBe(200)
    expect((await s.call('PUT', '/uba/api/schema/userProperties?id=email', { headers: p, body: { masking: 1 } })).status).toBe(200)
    for (const expression of ['event.view.note', 'event.$Anything.note', 'user.email']) {
      const res = await values({ expression, search: 's' })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ masked: true, values: [], more: false, rows: 0, nulls: 0, fraction: 0 })
      expect(JSON.stringify(res.body)).not.toMatch(/s1|s2|a@x/)
    }
  })

  it('refuses unknown events, properties and bad limits with a 400 naming the parameter', async () => {
    const cases: [Record<string, string | number>, string][] = [
      [{ expression: 'event.nosuch.city' }, 'expression'],
      [{ expression: 'event.view.nosuch' }, 'expression'],
      [{ expression: 'user.nosuch' }, 'expression'],
      [{ expression: 'city' }, 'expression'],
      [{ search: 'x' }, 'expression'],
      [{ expression: 'event.view.city', limit: 0 }, 'limit'],
      [{ expression: 'event.view.city', limit: 201 }, 'limit'],
      [{ expression: 'event.view.city', limit: 'many' }, 'limit'],
    ]
    for (const [query, param] of cases) {
      const res = await values(query)
      expect(res.status, JSON.stringify(query)).toBe(400)
      expect(res.body).toMatchObject({ code: 400, data: [param] })
    }
  })

  it('is described in /openapi.json', async () => {
    const doc = (await s.call('GET', '/openapi.json')).body
    const op = doc.paths['/uba/api/meta/propertyValues'].get
    expect(op.parameters.map((x: any) => x.name)).toEqual(['expression', 'search', 'limit'])
    expect(Object.keys(op.responses)).toEqual(['200', '400', '401', '503'])
  })

  // DuckDB only: its rows are written with DuckDB's SQL (range(), TIMESTAMPTZ) and the sample is DuckDB's block sampling
  if (engine === 'duckdb') describe('GET /uba/api/meta/propertyValues on a large table', () => {
    /** Events i = 1..300,000: every 5,000th is rare (60: platform B on every 15,000th, 20, else A, 40); the rest common (Web on every 3rd, else iOS). */
    let q: { appKey: string; token: string }
    beforeAll(async () => {
      q = await newProject(s, 'pvbig', 'UTC')
      await s.app.ctx.warehouse.withConnection(q.appKey, 'UTC', async (conn) => {
        await addColumns(conn, 'event_vd', [{ id: 'platform', dataType: 'string' }])
        await conn.run(`INSERT INTO event_vd (distinct_id, xwho, xwhat, xwhen, ds, platform)
          SELECT i % 1000, 'u' || (i % 1000), CASE WHEN i % 5000 = 0 THEN 'rare' ELSE 'common' END, TIMESTAMPTZ '2024-01-01 00:00:00+00', 20240101,
                 CASE WHEN i % 5000 = 0 THEN (CASE WHEN i % 15000 = 0 THEN 'B' ELSE 'A' END) WHEN i % 3 = 0 THEN 'Web' ELSE 'iOS' END
          FROM range(1, 300001) r(i) ORDER BY i % 1000`)
      })
      const reported = emptyReported()
      for (const e of ['common', 'rare']) reported.events.set(e, { properties: new Set(['platform']), platforms: new Set() })
      reported.eventProperties.set('platform', 'string')
      recordReported(s.app.ctx.meta, q.appKey, reported)
    })

    const big = (expression: string) => s.call('GET', `/uba/api/meta/propertyValues?expression=${encodeURIComponent(expression)}`, { headers: q })

    it('reads a sample of about 100,000 rows and says so', async () => {
      const res = await big('event.common.platform')
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ sampled: true, fraction: 100_000 / 300_000, nulls: 0 })
      expect(res.body.values.map((v: any) => v.value)).toEqual(['iOS', 'Web'])
      // system sampling takes whole blocks: about a third of the rows, two thirds of them iOS
      expect(res.body.rows).toBeGreaterThan(50_000)
      expect(res.body.rows).toBeLessThan(200_000)
      expect(res.body.values[0].count + res.body.values[1].count).toBe(res.body.rows)
      expect(res.body.values[0].count / res.body.rows).toBeGreaterThan(0.6)
    })

    it('reads a scope too rare for the sample again, up to the whole table: exact counts', async () => {
      // 60 rare events: about 20 in the first sample, under 1,000: the next read (ten times larger) is the whole table
      const res = await big('event.rare.platform')
      expect(res.body).toMatchObject({ sampled: false, fraction: 1, rows: 60, nulls: 0, values: [{ value: 'A', count: 40 }, { value: 'B', count: 20 }] })
    })

    it('a search that matches nothing still reads only the sample, and counts the rows it read', async () => {
      const res = await s.call('GET', `/uba/api/meta/propertyValues?expression=event.common.platform&search=nothing-like-this`, { headers: q })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ sampled: true, fraction: 100_000 / 300_000, values: [], more: false, nulls: 0 })
      expect(res.body.rows).toBeGreaterThan(50_000)
      expect(res.body.rows).toBeLessThan(200_000)
    })
  })
})
