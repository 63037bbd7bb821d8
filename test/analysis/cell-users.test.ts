import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'

const utc = (local: string) => Date.parse(`${local.replace(' ', 'T')}Z`)
const rec = (xwho: string, xwhat: string, local: string, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen: utc(local), xcontext })

/*
 * 2024-01-01..03, UTC. Per user:
 * a: view 01-01 10:00 (city X), cart 10:05, pay 11:00 (price 30), view 01-02 09:00 (X)
 * b: view 01-01 12:00 (Y), cart 01-02 08:00, view 01-03 10:00 (Y)
 * c: view 01-02 10:00 (X)
 * d: cart 01-01 09:00, pay 01-03 10:00 (price 50); never a view
 * Profiles: a iOS age 18, b iOS age 25, c Android age 25, d Android (no age).
 */
const lines = [
  rec('a', 'view', '2024-01-01 10:00:00', { city: 'X' }),
  rec('a', 'cart', '2024-01-01 10:05:00'),
  rec('a', 'pay', '2024-01-01 11:00:00', { price: 30 }),
  rec('a', 'view', '2024-01-02 09:00:00', { city: 'X' }),
  rec('b', 'view', '2024-01-01 12:00:00', { city: 'Y' }),
  rec('b', 'cart', '2024-01-02 08:00:00'),
  rec('b', 'view', '2024-01-03 10:00:00', { city: 'Y' }),
  rec('c', 'view', '2024-01-02 10:00:00', { city: 'X' }),
  rec('d', 'cart', '2024-01-01 09:00:00'),
  rec('d', 'pay', '2024-01-03 10:00:00', { price: 50 }),
  rec('a', '$profile_set', '2024-01-01 00:00:00', { platform: 'iOS', age: 18 }),
  rec('b', '$profile_set', '2024-01-01 00:00:00', { platform: 'iOS', age: 25 }),
  rec('c', '$profile_set', '2024-01-01 00:00:00', { platform: 'Android', age: 25 }),
  rec('d', '$profile_set', '2024-01-01 00:00:00', { platform: 'Android' }),
]

const range = { crowds: ['$ALL'], fromDate: '2024-01-01', toDate: '2024-01-03' }

describe.each(ENGINES)('the users behind a cell, on %s', (engine) => {
  const host = useEngine(engine)
  let p: Project

  beforeAll(async () => {
    p = await host.project('cells', 'UTC')
    const job = await importAndWait(host.server, p, { path: fixture('cells.jsonl', lines.join('\n')) })
    if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
  })

  async function users(analysis: string, body: Record<string, unknown>): Promise<string[]> {
    const res = await host.server.call('POST', `/uba/api/${analysis}/users`, { headers: p, body: { ...body, pageSize: 100 } })
    if (res.status !== 200) throw new Error(`${analysis}/users ${res.status} ${JSON.stringify(res.body)}`)
    expect(res.body.count).toBe(res.body.users.length)
    return res.body.users.map((u: { xwho: string }) => u.xwho).sort()
  }

  async function refused(analysis: string, body: Record<string, unknown>): Promise<{ status: number; data: unknown }> {
    const res = await host.server.call('POST', `/uba/api/${analysis}/users`, { headers: p, body })
    return { status: res.status, data: res.body.data }
  }

  describe('the users behind a funnel cell', () => {
    const funnel = { ...range, steps: ['view', 'cart', 'pay'].map((e) => ({ expression: `event.${e}` })), convertTime: 1, convertTimeUnit: 'DAY' }

    it('lists the users who converted at each step and who dropped off after it, over the range', async () => {
      expect(await users('funnels', { ...funnel, cell: { step: 0 } })).toEqual(['a', 'b', 'c'])
      expect(await users('funnels', { ...funnel, cell: { step: 1, outcome: 'converted' } })).toEqual(['a', 'b'])
      expect(await users('funnels', { ...funnel, cell: { step: 2 } })).toEqual(['a'])
      expect(await users('funnels', { ...funnel, cell: { step: 0, outcome: 'dropped' } })).toEqual(['c'])
      expect(await users('funnels', { ...funnel, cell: { step: 1, outcome: 'dropped' } })).toEqual(['b'])
    })

    it('lists the users of one entry day, and none where nobody dropped off', async () => {
      expect(await users('funnels', { ...funnel, cell: { step: 0, day: '2024-01-01' } })).toEqual(['a', 'b'])
      expect(await users('funnels', { ...funnel, cell: { step: 0, outcome: 'dropped', day: '2024-01-01' } })).toEqual([])
      expect(await users('funnels', { ...funnel, cell: { step: 0, outcome: 'dropped', day: '2024-01-02' } })).toEqual(['a', 'c'])
      expect(await users('funnels', { ...funnel, cell: { step: 0, day: '2024-01-03' } })).toEqual(['b'])
    })

    it('lists the users of a breakdown row (the city of the entry view)', async () => {
      const by = { ...funnel, byField: { expression: 'event.view.city' }, byStepIndex: 0 }
      expect(await users('funnels', { ...by, cell: { step: 0, byValue: 'X' } })).toEqual(['a', 'c'])
      expect(await users('funnels', { ...by, cell: { step: 0, outcome: 'dropped', byValue: 'X' } })).toEqual(['c'])
      expect(await users('funnels', { ...by, cell: { step: 1, byValue: 'Y' } })).toEqual(['b'])
      expect(await users('funnels', { ...by, cell: { step: 2, byValue: 'Y' } })).toEqual([])
      expect(await users('funnels', { ...by, cell: { step: 2, byValue: -1 } })).toEqual(['a'])
    })

    it('refuses coordinates outside the answer, naming the field', async () => {
      expect(await refused('funnels', { ...funnel, cell: { step: 2, outcome: 'dropped' } })).toEqual({ status: 400, data: ['cell.outcome'] })
      expect(await refused('funnels', { ...funnel, cell: { step: 3 } })).toEqual({ status: 400, data: ['cell.step'] })
      expect(await refused('funnels', { ...funnel, cell: { step: 0, day: '2024-01-04' } })).toEqual({ status: 400, data: ['cell.day'] })
      expect(await refused('funnels', { ...funnel, cell: { step: 0, outcome: 'left' } })).toEqual({ status: 400, data: ['cell.outcome'] })
      expect(await refused('funnels', { ...funnel, cell: { step: 0, byValue: 'X' } })).toEqual({ status: 400, data: ['cell.byValue'] })
      expect(await refused('funnels', { ...funnel })).toEqual({ status: 400, data: ['cell'] })
      expect(await refused('funnels', { ...funnel, steps: [], cell: { step: 0 } })).toEqual({ status: 400, data: ['steps'] })
    })
  })

  describe('the users behind a retention cell', () => {
    // starts (view): a 01-01, 01-02; b 01-01, 01-03; c 01-02. Returns (cart): a 01-01, b 01-02, d 01-01.
    const retention = { ...range, firstEvent: { expression: 'event.view' }, secondEvent: { expression: 'event.cart' }, unit: 'DAY', duration: 2 }

    it('lists the starters, the returned and the not returned of a period row', async () => {
      expect(await users('retentions', { ...retention, cell: { day: '2024-01-01' } })).toEqual(['a', 'b'])
      expect(await users('retentions', { ...retention, cell: { day: '2024-01-01', offset: 0 } })).toEqual(['a'])
      expect(await users('retentions', { ...retention, cell: { day: '2024-01-01', offset: 0, outcome: 'notReturned' } })).toEqual(['b'])
      expect(await users('retentions', { ...retention, cell: { day: '2024-01-01', offset: 1 } })).toEqual(['b'])
      expect(await users('retentions', { ...retention, cell: { day: '2024-01-01', offset: 2 } })).toEqual([])
      expect(await users('retentions', { ...retention, cell: { day: '2024-01-02', offset: 0 } })).toEqual([])
    })

    it('lists the $ALL row de-duplicated', async () => {
      expect(await users('retentions', { ...retention, cell: {} })).toEqual(['a', 'b', 'c'])
      expect(await users('retentions', { ...retention, cell: { offset: 0 } })).toEqual(['a'])
      expect(await users('retentions', { ...retention, cell: { offset: 0, outcome: 'notReturned' } })).toEqual(['b', 'c'])
      expect(await users('retentions', { ...retention, cell: { offset: 1 } })).toEqual(['b'])
    })

    it('lists a breakdown row (the city of the initial view)', async () => {
      const by = { ...retention, byField: { expression: 'event.view.city' }, byFieldIndex: 1 }
      expect(await users('retentions', { ...by, cell: { byValue: 'X' } })).toEqual(['a', 'c'])
      expect(await users('retentions', { ...by, cell: { byValue: 'X', offset: 0 } })).toEqual(['a'])
      expect(await users('retentions', { ...by, cell: { byValue: 'Y', offset: 0 } })).toEqual([])
      expect(await users('retentions', { ...by, cell: { byValue: 'Y', offset: 1 } })).toEqual(['b'])
    })

    it('refuses a cell not observed yet and a day that starts no period', async () => {
      expect(await refused('retentions', { ...retention, cell: { day: '2024-01-02', offset: 2 } })).toEqual({ status: 400, data: ['cell.offset'] })
      expect(await refused('retentions', { ...retention, cell: { day: '2024-01-05', offset: 0 } })).toEqual({ status: 400, data: ['cell.day'] })
      expect(await refused('retentions', { ...retention, cell: { outcome: 'notReturned' } })).toEqual({ status: 400, data: ['cell.offset'] })
      expect(await refused('retentions', { ...retention, cell: { offset: 3 } })).toEqual({ status: 400, data: ['cell.offset'] })
    })
  })

  describe('the users behind a distribution cell', () => {
    // views per user: a 2, b 2, c 1 -> intervals [1,2) and [2,3)
    const distribution = { ...range, measure: { expression: 'event.view', aggregator: 'TOTAL_COUNT' } }

    it('lists the users of an interval, of a breakdown row, and none in an empty one', async () => {
      expect(await users('distributions', { ...distribution, cell: { bucket: '[2,3)' } })).toEqual(['a', 'b'])
      expect(await users('distributions', { ...distribution, cell: { byValue: 'all', bucket: '[1,2)' } })).toEqual(['c'])
      const by = { ...distribution, byField: { expression: 'user.platform' } }
      expect(await users('distributions', { ...by, cell: { byValue: 'iOS', bucket: '[2,3)' } })).toEqual(['a', 'b'])
      expect(await users('distributions', { ...by, cell: { byValue: 'iOS', bucket: '[1,2)' } })).toEqual([])
      expect(await users('distributions', { ...by, cell: { byValue: 'Android', bucket: '[1,2)' } })).toEqual(['c'])
    })

    it('refuses an interval the answer does not have', async () => {
      expect(await refused('distributions', { ...distribution, cell: { bucket: '[5,6)' } })).toEqual({ status: 400, data: ['cell.bucket'] })
      expect(await refused('distributions', { ...distribution, cell: { byValue: 'iOS', bucket: '[1,2)' } })).toEqual({ status: 400, data: ['cell.byValue'] })
    })
  })

  describe('the users behind a user-attribute row', () => {
    it('lists the users of a row; for a property measure those with a value', async () => {
      const count = { crowds: ['$ALL'], measure: { aggregator: 'USER_COUNT' }, byFields: [{ expression: 'user.platform' }] }
      expect(await users('userAttributes', { ...count, cell: { byValue: ['iOS'] } })).toEqual(['a', 'b'])
      expect(await users('userAttributes', { ...count, cell: { byValue: ['Android'] } })).toEqual(['c', 'd'])
      expect(await users('userAttributes', { ...count, cell: { byValue: ['Web'] } })).toEqual([])
      const sum = { ...count, measure: { aggregator: 'SUM', expression: 'user.age' } }
      expect(await users('userAttributes', { ...sum, cell: { byValue: ['Android'] } })).toEqual(['c'])
      expect(await users('userAttributes', { crowds: ['$ALL'], measure: { aggregator: 'USER_COUNT' }, cell: {} })).toEqual(['a', 'b', 'c', 'd'])
      expect(await refused('userAttributes', { ...count, cell: { byValue: 'iOS' } })).toEqual({ status: 400, data: ['cell.byValue'] })
    })
  })

  describe('the users behind an event-analysis cell', () => {
    const events = { ...range, unit: 'DAY', measures: [{ expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' }, { expression: 'event.pay.price', aggregator: 'SUM' }] }

    it('lists the users of a period, of the whole range and of a breakdown row', async () => {
      expect(await users('events', { ...events, cell: { period: '2024-01-02' } })).toEqual(['a', 'c'])
      expect(await users('events', { ...events, cell: {} })).toEqual(['a', 'b', 'c'])
      expect(await users('events', { ...events, cell: { measure: 1 } })).toEqual(['a', 'd'])
      const by = { ...events, byFields: [{ expression: 'event.view.city' }] }
      expect(await users('events', { ...by, cell: { byValue: ['X'] } })).toEqual(['a', 'c'])
      expect(await users('events', { ...by, cell: { byValue: ['Y'], period: '2024-01-01' } })).toEqual(['b'])
      expect(await users('events', { ...by, cell: { byValue: ['X'], period: '2024-01-03' } })).toEqual([])
    })

    it('refuses a period that is not one of the answer', async () => {
      expect(await refused('events', { ...events, cell: { period: '2024-02-01' } })).toEqual({ status: 400, data: ['cell.period'] })
      expect(await refused('events', { ...events, cell: { measure: 2 } })).toEqual({ status: 400, data: ['cell.measure'] })
    })
  })

  describe('exporting the users of a cell and saving them as a cohort', () => {
    const funnel = { ...range, steps: ['view', 'cart', 'pay'].map((e) => ({ expression: `event.${e}` })), convertTime: 1, convertTimeUnit: 'DAY' }

    async function exported(body: Record<string, unknown>, query = ''): Promise<{ status: number; type: string | null; text: string }> {
      const res = await fetch(`${host.server.url}/uba/api/funnels/users/export${query}`, { method: 'POST', headers: { ...p, 'content-type': 'application/json' }, body: JSON.stringify(body) })
      return { status: res.status, type: res.headers.get('content-type'), text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer()) }
    }

    it('exports the dropped-off users as CSV (with a byte-order mark on csvUtfEncoding=0) and as JSON lines', async () => {
      const csv = await exported({ ...funnel, cell: { step: 0, outcome: 'dropped' }, format: 'csv', properties: ['platform', 'age'] }, '?csvUtfEncoding=0')
      expect(csv.status).toBe(200)
      expect(csv.type).toBe('text/csv; charset=utf-8')
      expect(csv.text).toBe('\uFEFFplatform,age,distinct_id,xwho\r\nAndroid,25,3,c\r\n')
      const lines = await exported({ ...funnel, cell: { step: 1 }, properties: ['platform'] })
      expect(lines.text).toBe('{"platform":"iOS","distinct_id":1,"xwho":"a"}\n{"platform":"iOS","distinct_id":2,"xwho":"b"}\n')
      const empty = await exported({ ...funnel, cell: { step: 0, outcome: 'dropped', day: '2024-01-01' }, format: 'csv', properties: [] })
      expect(empty.text).toBe('distinct_id,xwho\r\n')
      const bad = await exported({ ...funnel, cell: { step: 9 }, format: 'csv' })
      expect([bad.status, JSON.parse(bad.text).data]).toEqual([400, ['cell.step']])
    })

    it('saves the users of a cell as a static cohort of exactly them, usable as a crowd', async () => {
      const res = await host.server.call('POST', '/uba/api/funnels/users/cohort', { headers: p, body: { ...funnel, cell: { step: 1 }, name: 'Reached cart' } })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ name: 'Reached cart', dynamic: 0, userNumber: 2 })
      const members = await host.server.call('POST', '/uba/api/cohort/users', { headers: p, body: { cohortCode: res.body.code, properties: [] } })
      expect(members.body.users.map((u: { xwho: string }) => u.xwho)).toEqual(['a', 'b'])
      // the cohort as the funnel's crowd: its users only
      expect(await users('funnels', { ...funnel, crowds: [res.body.code], cell: { step: 0 } })).toEqual(['a', 'b'])
      const again = await host.server.call('POST', '/uba/api/funnels/users/cohort', { headers: p, body: { ...funnel, cell: { step: 1 }, name: 'Reached cart' } })
      expect([again.status, again.body.code]).toEqual([501, 50101])
      const none = await host.server.call('POST', '/uba/api/funnels/users/cohort', { headers: p, body: { ...funnel, cell: { step: 0, outcome: 'dropped', day: '2024-01-01' }, name: 'Nobody' } })
      expect([none.status, none.body.data]).toEqual([400, ['cell']])
      const unnamed = await host.server.call('POST', '/uba/api/retentions/users/cohort', { headers: p, body: { ...range, cell: {} } })
      expect([unnamed.status, unnamed.body.data]).toEqual([400, ['name']])
    })

    it('pages the users in distinct_id order', async () => {
      const page = (n: number) => host.server.call('POST', '/uba/api/userAttributes/users', { headers: p, body: { crowds: ['$ALL'], measure: { aggregator: 'USER_COUNT' }, cell: {}, page: n, pageSize: 3, properties: [] } })
      expect((await page(1)).body).toEqual({ count: 4, page: 1, pageSize: 3, size: 3, users: [1, 2, 3].map((id) => ({ distinct_id: id, xwho: 'abc'[id - 1] })) })
      expect((await page(2)).body).toEqual({ count: 4, page: 2, pageSize: 3, size: 1, users: [{ distinct_id: 4, xwho: 'd' }] })
      const bad = await host.server.call('POST', '/uba/api/userAttributes/users', { headers: p, body: { crowds: ['$ALL'], measure: { aggregator: 'USER_COUNT' }, cell: {}, pageSize: 0 } })
      expect([bad.status, bad.body.data]).toEqual([400, ['pageSize']])
    })
  })

  describe('a project without data', () => {
    it('answers no users, not an error', async () => {
      const empty = await host.project('nodata', 'UTC')
      const res = await host.server.call('POST', '/uba/api/userAttributes/users', { headers: empty, body: { crowds: ['$ALL'], measure: { aggregator: 'USER_COUNT' }, cell: {} } })
      expect([res.status, res.body.count, res.body.users]).toEqual([200, 0, []])
    })
  })
})
