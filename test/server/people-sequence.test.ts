import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import type { TestServer } from '../helpers/server'
import { fixture, importAndWait } from '../helpers/ingest'
import { BULK, loadPeople, setMasking, sh } from './people-fixture'

describe.each(ENGINES)('user behaviour sequence, on %s', (engine) => {
  const host = useEngine(engine)
  let s: TestServer
  let p: Project
  let ids: Record<string, number>

  beforeAll(async () => {
    ;({ s, p, ids } = await loadPeople(host, 'pseq'))
    await setMasking(s, p, 'plan_event_properties', 'coupon', 1)
    // cheap: a view under 5, any add, a buy by a vip user (a member filter that reads the profile)
    const created = await s.call('POST', '/uba/api/meta/event/virtual', {
      headers: p,
      body: {
        id: 'cheap',
        events: [
          { expression: 'event.view', filter: { conditions: [{ expression: 'event.view.price', function: 'LT', params: [5] }], relation: 'AND' } },
          { expression: 'event.add' },
          { expression: 'event.buy', filter: { conditions: [{ expression: 'user.vip', function: 'TRUE', params: [] }], relation: 'AND' } },
        ],
      },
    })
    if (created.status !== 200) throw new Error(JSON.stringify(created.body))
  })

  const sequence = (xwho: string, body: Record<string, unknown>) => s.call('POST', `/uba/api/cohort/users/${xwho}/sequence`, { headers: p, body })
  const range = { fromDate: '2024-03-01', toDate: '2024-03-02' }

  const e3 = { eventId: 'view', eventTime: '2024/03/02 23:30:00', properties: { $os: 'ios' } }
  const e5 = { eventId: 'add', eventTime: '2024/03/01 12:00:00', properties: { price: 1 } }
  const e2 = { eventId: 'buy', eventTime: '2024/03/01 12:00:00', properties: { price: 9.5, coupon: '******', paid_at: '2024-03-01 12:00:05' } }
  const e1 = { eventId: 'view', eventTime: '2024/03/01 07:00:00', properties: { $os: 'ios', price: 3, $is_login: true } }
  const e4 = { eventId: 'view', eventTime: '2024/03/03 00:10:00', properties: { $os: 'android' } }

  it('lists the events of the local days newest first, same moment by event id, with their non-null properties', async () => {
    const res = await sequence('u1', range)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ rows: [e3, e5, e2, e1], reportUpdateTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/) })
  })

  it('bounds the range by local days: 23:30 on toDate is in, 00:10 the next day is not; 07:00 on fromDate (UTC the day before) is in', async () => {
    const rows = (await sequence('u1', range)).body.rows
    expect(rows[0]).toEqual(e3)
    expect(rows.at(-1)).toEqual(e1)
    const later = await sequence('u1', { fromDate: '2024-03-02', toDate: '2024-03-03' })
    expect(later.body.rows).toEqual([e4, e3])
    const before = await sequence('u1', { fromDate: '2024-02-29', toDate: '2024-02-29' })
    expect(before.body.rows).toEqual([{ eventId: 'view', eventTime: '2024/02/29 23:59:00', properties: { $os: 'ios' } }])
  })

  it('keeps the chosen events only', async () => {
    expect((await sequence('u1', { ...range, events: ['buy'] })).body.rows).toEqual([e2])
    expect((await sequence('u1', { ...range, events: ['view', 'add'] })).body.rows).toEqual([e3, e5, e1])
    expect((await sequence('u1', { ...range, events: [] })).body.rows).toEqual([e3, e5, e2, e1])
    expect((await sequence('u1', { ...range, events: ['$Anything'] })).body.rows).toEqual([e3, e5, e2, e1])
  })

  it('expands a virtual event into its member events and their filters, user-property filters included', async () => {
    expect((await sequence('u1', { ...range, events: ['cheap'] })).body.rows).toEqual([e5, e2, e1])
    // u2's view has no price and u2 has no profile
    expect((await sequence('u2', { ...range, events: ['cheap'] })).body.rows).toEqual([])
    expect((await sequence('u2', range)).body.rows).toEqual([{ eventId: 'view', eventTime: '2024/03/01 08:00:00', properties: {} }])
  })

  it('returns at most limit rows, 100 by default', async () => {
    expect((await sequence('u1', { ...range, limit: 2 })).body.rows).toEqual([e3, e5])
    const bulk = { fromDate: '2024-03-10', toDate: '2024-03-10' }
    const first = await sequence('bulk', bulk)
    expect(first.body.rows).toHaveLength(100)
    expect(first.body.rows[0]).toEqual({ eventId: 'tick', eventTime: '2024/03/10 01:23:19', properties: { n: BULK - 1 } })
    expect((await sequence('bulk', { ...bulk, limit: 10000 })).body.rows).toHaveLength(BULK)
  })

  it('gives rows [] for a range without events', async () => {
    const res = await sequence('u1', { fromDate: '2023-01-01', toDate: '2023-01-31' })
    expect(res.status).toBe(200)
    expect(res.body.rows).toEqual([])
  })

  it('finds the user by distinctId or xwho on /uba/api/users/sequence, exactly one of them', async () => {
    const byId = await s.call('POST', '/uba/api/users/sequence', { headers: p, body: { distinctId: ids.u1, ...range, limit: 3 } })
    expect(byId.status).toBe(200)
    expect(byId.body.rows).toEqual([e3, e5, e2])
    const byWho = await s.call('POST', '/uba/api/users/sequence', { headers: p, body: { xwho: 'u1', ...range, events: ['buy'] } })
    expect(byWho.body.rows).toEqual([e2])
    const both = await s.call('POST', '/uba/api/users/sequence', { headers: p, body: { distinctId: ids.u1, xwho: 'u1', ...range } })
    expect(both.status).toBe(400)
    expect(both.body.data).toEqual(['distinctId', 'xwho'])
    const neither = await s.call('POST', '/uba/api/users/sequence', { headers: p, body: range })
    expect(neither.body.data).toEqual(['distinctId', 'xwho'])
    const unknown = await s.call('POST', '/uba/api/users/sequence', { headers: p, body: { distinctId: 424242, ...range } })
    expect(unknown.status).toBe(400)
    expect(unknown.body.data).toEqual(['distinctId'])
  })

  it('refuses bad fields, naming them', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ toDate: '2024-03-02' }, 'fromDate'],
      [{ fromDate: '2024-03-01' }, 'toDate'],
      [{ fromDate: '2024-03-03', toDate: '2024-03-02' }, 'toDate'],
      [{ fromDate: '2024-02-30', toDate: '2024-03-02' }, 'fromDate'],
      [{ fromDate: '2024/03/01', toDate: '2024-03-02' }, 'fromDate'],
      [{ ...range, events: ['view', 'nope'] }, 'events[1]'],
      [{ ...range, events: ['a.b'] }, 'events[0]'],
      [{ ...range, limit: 0 }, 'limit'],
      [{ ...range, limit: 2.5 }, 'limit'],
      [{ ...range, useCache: 'yes' }, 'useCache'],
      [{ ...range, limit: 'many' }, 'limit'],
    ]
    for (const [body, field] of cases) {
      const res = await sequence('u1', body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.data, JSON.stringify(body)).toEqual([field])
    }
    const unknown = await sequence('nobody', range)
    expect(unknown.status).toBe(400)
    expect(unknown.body.data).toEqual(['xwho'])
  })

  it('masks a property as soon as it is masked, even for a cached result', async () => {
    await setMasking(s, p, 'plan_event_properties', 'coupon', 0)
    const open = await sequence('u1', { ...range, events: ['buy'], useCache: true })
    expect(open.body.rows[0].properties.coupon).toBe('X1')
    await setMasking(s, p, 'plan_event_properties', 'coupon', 1)
    const masked = await sequence('u1', { ...range, events: ['buy'], useCache: true })
    expect(masked.body.rows[0].properties.coupon).toBe('******')
  })

  // An event that stored an explicit [] is left out here: DuckDB keeps it apart ([]), ClickHouse cannot
  // (it has no NULL list, a missing one is stored as [] too), so on ClickHouse it reads as missing.
  it('leaves out a list property an event does not have (ClickHouse stores [] for it), in the answer and both exports', async () => {
    const q = await host.project('pseqlist', 'Asia/Shanghai')
    const line = (local: string, xcontext: Record<string, unknown>) => JSON.stringify({ xwho: 'w', xwhat: 'view', xwhen: sh(local), xcontext })
    const job = await importAndWait(s, q, { path: fixture('pseqlist.jsonl', [line('2024-03-01 10:00', { labels: ['x', 'y'] }), line('2024-03-01 09:00', { $os: 'ios' })].join('\n')) })
    expect(job.state).toBe('succeeded')
    const res = await s.call('POST', '/uba/api/cohort/users/w/sequence', { headers: q, body: range })
    expect(res.body.rows).toEqual([
      { eventId: 'view', eventTime: '2024/03/01 10:00:00', properties: { labels: ['x', 'y'] } },
      { eventId: 'view', eventTime: '2024/03/01 09:00:00', properties: { $os: 'ios' } },
    ])
    const exported = (body: Record<string, unknown>) =>
      fetch(s.url + '/uba/api/cohort/users/w/sequence/export', { method: 'POST', headers: { ...q, 'content-type': 'application/json' }, body: JSON.stringify({ ...range, ...body }) })
    expect(await (await exported({})).text()).toBe(
      JSON.stringify({ xwhat: 'view', xwhen: sh('2024-03-01 10:00'), labels: ['x', 'y'] }) + '\n' + JSON.stringify({ xwhat: 'view', xwhen: sh('2024-03-01 09:00'), $os: 'ios' }) + '\n',
    )
    expect(await (await exported({ format: 'csv' })).text()).toBe('xwhat,xwhen,$os,labels\r\nview,2024-03-01 10:00:00,,"[""x"",""y""]"\r\nview,2024-03-01 09:00:00,ios,\r\n')
  })
})
