import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'

/** Local Shanghai time (UTC+8) as epoch ms. */
const sh = (local: string) => Date.parse(`${local.replace(' ', 'T')}:00+08:00`)
const rec = (xwho: string, xwhat: string, local: string, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen: sh(local), xcontext })
const signup = (who: string, local: string, channel: string, tags?: string[]) => rec(who, 'signup', local, tags ? { channel, tags } : { channel })
const visit = (who: string, local: string, page: string, stay: number) => rec(who, 'visit', local, { page, stay })

const base = {
  firstEvent: { expression: 'event.signup' },
  secondEvent: { expression: 'event.visit' },
  crowds: ['$ALL'],
  fromDate: '2024-01-01',
  toDate: '2024-01-03',
  duration: 2,
  unit: 'DAY',
}

/*
 * 2024-01-01 is a Monday. Initial event: signup; return event: visit.
 *   a  signup 01-01 10:00 (ads); visits 01-01 09:00 (before the signup, same day), 01-02 12:00 and 18:00
 *   b  signup 01-01 23:30 (seo); visit 01-02 00:30: the same UTC day, the next local day
 *   c  signup 01-02 (ads); pay 01-02; visit 01-04, after toDate of the daily tests
 *   d  signups 01-01 (seo) and 01-02 (ads); one visit 01-03: +2 from the first, +1 from the second
 *   e  signup 2023-12-31, before the range; visit 01-01
 *   f  signup 01-03, never back; g visits without signing up
 *   signup tags: a [promo, new], c [promo], d's second [new], f [new]; b and d's first none
 *   h, i: weekly data; j, k: monthly data; l: the last days of data (the latest is 03-01)
 */
describe.each(ENGINES)('retention, on %s', (engine) => {
  const host = useEngine(engine)
  let p: Project

  beforeAll(async () => {
    p = await host.project('ret', 'Asia/Shanghai')
    const lines = [
      signup('a', '2024-01-01 10:00', 'ads', ['promo', 'new']),
      visit('a', '2024-01-01 09:00', 'home', 10),
      visit('a', '2024-01-02 12:00', 'list', 20),
      visit('a', '2024-01-02 18:00', 'home', 4),
      signup('b', '2024-01-01 23:30', 'seo'),
      visit('b', '2024-01-02 00:30', 'home', 5),
      signup('c', '2024-01-02 08:00', 'ads', ['promo']),
      rec('c', 'pay', '2024-01-02 09:00', { amount: 100 }),
      visit('c', '2024-01-04 08:00', 'list', 40),
      signup('d', '2024-01-01 12:00', 'seo'),
      signup('d', '2024-01-02 12:00', 'ads', ['new']),
      visit('d', '2024-01-03 12:00', 'home', 30),
      signup('e', '2023-12-31 12:00', 'ads'),
      visit('e', '2024-01-01 12:00', 'home', 1),
      signup('f', '2024-01-03 09:00', 'ads', ['new']),
      visit('g', '2024-01-02 10:00', 'list', 2),
      signup('h', '2024-01-05 10:00', 'ads'),
      visit('h', '2024-01-02 10:00', 'list', 3),
      visit('h', '2024-01-08 10:00', 'list', 3),
      signup('i', '2024-01-09 10:00', 'seo'),
      visit('i', '2024-01-21 10:00', 'home', 3),
      signup('j', '2024-01-20 10:00', 'ads'),
      visit('j', '2024-01-05 10:00', 'home', 3),
      visit('j', '2024-02-29 10:00', 'home', 3),
      signup('k', '2024-02-05 10:00', 'seo'),
      visit('k', '2024-03-01 10:00', 'home', 3),
      signup('l', '2024-02-29 10:00', 'ads'),
      visit('l', '2024-03-01 12:00', 'list', 3),
      ...[['a', 'X'], ['b', 'Y'], ['c', 'X'], ['d', 'Y']].map(([who, city]) => rec(who, '$profile_set', '2024-01-01 00:00', { city })),
    ]
    const job = await importAndWait(host.server, p, { path: fixture('ret.jsonl', lines.join('\n')) })
    if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
    const engage = await host.server.call('POST', '/uba/api/meta/event/virtual', {
      headers: p,
      body: { id: 'engage', name: 'Engage', events: [{ expression: 'event.visit', filter: { conditions: [{ expression: 'event.visit.page', function: 'EQ', params: ['home'] }] } }, { expression: 'event.pay' }] },
    })
    if (engage.status !== 200) throw new Error(JSON.stringify(engage.body))
    const visitX = await host.server.call('POST', '/uba/api/meta/event/virtual', {
      headers: p,
      body: { id: 'visit_x', name: 'Visit from X', events: [{ expression: 'event.visit', filter: { conditions: [{ expression: 'user.city', function: 'EQ', params: ['X'] }] } }] },
    })
    if (visitX.status !== 200) throw new Error(JSON.stringify(visitX.body))
  })

  const analyze = (body: Record<string, unknown>, query = '') => host.server.call('POST', `/uba/api/retentions/analyze${query}`, { headers: p, body })
  /** A row without a measure, as the response writes it. */
  const row = (byValue: string, totalPeople: number, retentionPeoples: (number | null)[]) => ({ byValue, totalPeople, retentionPeoples, measures: null })
  const counts = (rows: { byValue: string; totalPeople: number; retentionPeoples: (number | null)[] }[]) => rows.map((r) => [r.byValue, r.totalPeople, r.retentionPeoples])

  describe('retention by day', () => {
    it('counts returns per local day at +0, +1, +2, including returns after toDate, with $ALL de-duplicating users', async () => {
      const res = await analyze(base)
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ byField: null, samplingFactor: 1 })
      expect(res.body.rows).toEqual([
        // a, b, c, d, f once each; d returns at +1 (from 01-02) and at +2 (from 01-01)
        row('$ALL', 5, [1, 3, 2]),
        // a's visit at 09:00 before the 10:00 signup counts at +0; b's 00:30 visit is the next local day
        row('2024/01/01 00:00:00', 3, [1, 2, 1]),
        // c's visit on 01-04 is after toDate and counts at +2
        row('2024/01/02 00:00:00', 2, [0, 1, 1]),
        row('2024/01/03 00:00:00', 1, [0, 0, 0]),
      ])
      expect(res.body.reportUpdateTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
    })

    it('counts every initial user at +0 when the initial and return events are the same', async () => {
      const res = await analyze({ ...base, firstEvent: { expression: 'event.visit' } })
      expect(counts(res.body.rows)).toEqual([
        ['$ALL', 6, [6, 1, 0]],
        ['2024/01/01 00:00:00', 2, [2, 1, 0]],
        ['2024/01/02 00:00:00', 4, [4, 0, 0]],
        ['2024/01/03 00:00:00', 1, [1, 0, 0]],
      ])
    })

    it('reports cells after the latest day with data as null, and counts a period that has begun', async () => {
      // the latest event is on 03-01
      const res = await analyze({ ...base, fromDate: '2024-02-28', toDate: '2024-03-01' })
      expect(res.body.rows).toEqual([
        row('$ALL', 1, [0, 1, 0]),
        row('2024/02/28 00:00:00', 0, [0, 0, 0]),
        row('2024/02/29 00:00:00', 1, [0, 1, null]),
        row('2024/03/01 00:00:00', 0, [0, null, null]),
      ])
    })

    it('answers a range with no data with zeros before the data and nulls after it', async () => {
      const before = await analyze({ ...base, fromDate: '2023-06-01', toDate: '2023-06-02', duration: 1 })
      expect(before.body.rows).toEqual([row('$ALL', 0, [0, 0]), row('2023/06/01 00:00:00', 0, [0, 0]), row('2023/06/02 00:00:00', 0, [0, 0])])
      const after = await analyze({ ...base, fromDate: '2025-01-01', toDate: '2025-01-02', duration: 1, measures: [{ expression: 'event.visit.stay', aggregator: 'SUM' }] })
      expect(after.body.rows).toEqual([
        { byValue: '$ALL', totalPeople: 0, retentionPeoples: [null, null], measures: [null, null] },
        { byValue: '2025/01/01 00:00:00', totalPeople: 0, retentionPeoples: [null, null], measures: [null, null] },
        { byValue: '2025/01/02 00:00:00', totalPeople: 0, retentionPeoples: [null, null], measures: [null, null] },
      ])
    })

    it('applies each event\'s filter to that event, and the global filter on user properties to both', async () => {
      const filtered = await analyze({
        ...base,
        firstEvent: { expression: 'event.signup', filter: { conditions: [{ expression: 'event.signup.channel', function: 'EQ', params: ['ads'] }] } },
        secondEvent: { expression: 'event.visit', filter: { conditions: [{ expression: 'event.visit.stay', function: 'GTE', params: [20] }], relation: 'and' } },
      })
      expect(counts(filtered.body.rows)).toEqual([
        ['$ALL', 4, [0, 2, 1]],
        ['2024/01/01 00:00:00', 1, [0, 1, 0]],
        ['2024/01/02 00:00:00', 2, [0, 1, 1]],
        ['2024/01/03 00:00:00', 1, [0, 0, 0]],
      ])
      const cityX = await analyze({ ...base, filter: { conditions: [{ expression: 'user.city', function: 'EQ', params: ['X'] }] } })
      expect(counts(cityX.body.rows)).toEqual([
        ['$ALL', 2, [1, 1, 1]],
        ['2024/01/01 00:00:00', 1, [1, 1, 0]],
        ['2024/01/02 00:00:00', 1, [0, 0, 1]],
        ['2024/01/03 00:00:00', 0, [0, 0, 0]],
      ])
    })

    it('takes a virtual event as the return event: an OR of its members with their filters, user properties included', async () => {
      const res = await analyze({ ...base, secondEvent: { expression: 'event.engage' } })
      expect(counts(res.body.rows)).toEqual([
        ['$ALL', 5, [2, 3, 1]],
        ['2024/01/01 00:00:00', 3, [1, 2, 1]],
        // c paid on the day of the signup; c's later visit is to "list", not "home"
        ['2024/01/02 00:00:00', 2, [1, 1, 0]],
        ['2024/01/03 00:00:00', 1, [0, 0, 0]],
      ])
      // a member filter on a user property: only a and c (city X) come back
      const fromX = await analyze({ ...base, secondEvent: { expression: 'event.visit_x' } })
      expect(counts(fromX.body.rows)).toEqual([
        ['$ALL', 5, [1, 1, 1]],
        ['2024/01/01 00:00:00', 3, [1, 1, 0]],
        ['2024/01/02 00:00:00', 2, [0, 0, 1]],
        ['2024/01/03 00:00:00', 1, [0, 0, 0]],
      ])
    })

    it('echoes the sampling factor', async () => {
      const res = await analyze({ ...base, samplingFactor: 0.5 })
      expect(res.status).toBe(200)
      expect(res.body.samplingFactor).toBe(0.5)
      expect(res.body.rows[0].totalPeople).toBeLessThanOrEqual(5)
    })
  })

  describe('retention by week and month', () => {
    it('counts whole weeks from Monday: initial events only from fromDate, returns on any day of the week', async () => {
      const res = await analyze({ ...base, fromDate: '2024-01-03', toDate: '2024-01-10', unit: 'WEEK', duration: 1 })
      expect(res.body.rows).toEqual([
        row('$ALL', 3, [1, 2]),
        // f and h (a, b, c, d signed up before fromDate); h's visit on Tuesday 01-02 counts at +0
        row('2024/01/01 00:00:00', 2, [1, 1]),
        row('2024/01/08 00:00:00', 1, [0, 1]),
      ])
    })

    it('counts months, the last return in the month after toDate', async () => {
      const res = await analyze({ ...base, fromDate: '2024-01-15', toDate: '2024-02-10', unit: 'MONTH', duration: 1 })
      expect(res.body.rows).toEqual([row('$ALL', 2, [1, 2]), row('2024/01/01 00:00:00', 1, [1, 1]), row('2024/02/01 00:00:00', 1, [0, 1])])
    })
  })

  describe('retention broken down', () => {
    it('by an initial-event property: a user is in the row of each value they started with', async () => {
      const res = await analyze({ ...base, byField: { expression: 'event.signup.channel' }, byFieldIndex: 1 })
      expect(res.body.byField).toBe('event.signup.channel')
      expect(res.body.rows).toEqual([
        row('$ALL', 5, [1, 3, 2]),
        // d started with ads on 01-02 (back at +1) and with seo on 01-01 (back at +2)
        row('ads', 4, [1, 2, 1]),
        row('seo', 2, [0, 1, 1]),
      ])
    })

    it('by each element of a list property of the initial event, a start without one being unknown', async () => {
      const res = await analyze({ ...base, byField: { expression: 'event.signup.tags' }, byFieldIndex: 1 })
      expect(res.body.rows).toEqual([
        row('$ALL', 5, [1, 3, 2]),
        // d is back at +1 from its "new" signup on 01-02 and at +2 from its untagged one on 01-01
        row('new', 3, [1, 2, 0]),
        row('promo', 2, [1, 1, 1]),
        row('unknown', 2, [0, 1, 1]),
      ])
    })

    it('by a return-event property: each value against all initial users', async () => {
      const res = await analyze({ ...base, byField: { expression: 'event.visit.page' }, byFieldIndex: 2 })
      expect(res.body.rows).toEqual([row('$ALL', 5, [1, 3, 2]), row('home', 5, [1, 3, 1]), row('list', 5, [0, 1, 1])])
    })

    it('by a return-event number property in buckets, keeping the top rows with limit', async () => {
      const body = { ...base, byField: { expression: 'event.visit.stay', buckets: [10, 30] }, byFieldIndex: 2 }
      const res = await analyze(body)
      expect(counts(res.body.rows)).toEqual([
        ['$ALL', 5, [1, 3, 2]],
        ['10~30', 5, [1, 1, 0]],
        ['-∞~10', 5, [0, 2, 0]],
        ['30~+∞', 5, [0, 1, 2]],
      ])
      const top = await analyze({ ...body, limit: 2 })
      expect(counts(top.body.rows).map((r) => r[0])).toEqual(['$ALL', '10~30', '-∞~10'])
    })

    it('by a user property, with unknown for users without a value, byFieldIndex -1 or omitted', async () => {
      const expected = [row('$ALL', 5, [1, 3, 2]), row('X', 2, [1, 1, 1]), row('Y', 2, [0, 2, 1]), row('unknown', 1, [0, 0, 0])]
      expect((await analyze({ ...base, byField: { expression: 'user.city' }, byFieldIndex: -1 })).body.rows).toEqual(expected)
      expect((await analyze({ ...base, byField: { expression: 'user.city' } })).body.rows).toEqual(expected)
    })
  })

  describe('retention over a long duration', () => {
    let q: Project
    beforeAll(async () => {
      q = await host.project('retlong', 'Asia/Shanghai')
      const lines = [
        signup('p', '2024-01-01 10:00', 'ads'),
        visit('p', '2024-01-01 12:00', 'home', 1),
        visit('p', '2024-03-04 12:00', 'home', 1), // +63
        visit('p', '2024-03-10 12:00', 'home', 1), // +69, the latest day with data
        signup('q', '2024-01-02 10:00', 'seo'),
        visit('q', '2024-03-04 12:00', 'home', 1), // +62
      ]
      const job = await importAndWait(host.server, q, { path: fixture('long.jsonl', lines.join('\n')) })
      if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
    })
    /** 71 offsets: 0 except `hits`, null from `unseen` on. */
    const cells = (hits: Record<number, number>, unseen: number) => Array.from({ length: 71 }, (_, k) => (k >= unseen ? null : (hits[k] ?? 0)))
    const body = { ...base, fromDate: '2024-01-01', toDate: '2024-01-02', duration: 70 }

    it('counts offsets past 62 days, with and without a breakdown', async () => {
      const plain = await host.server.call('POST', '/uba/api/retentions/analyze', { headers: q, body })
      expect(plain.body.rows).toEqual([
        row('$ALL', 2, cells({ 0: 1, 62: 1, 63: 1, 69: 1 }, 70)),
        row('2024/01/01 00:00:00', 1, cells({ 0: 1, 63: 1, 69: 1 }, 70)),
        row('2024/01/02 00:00:00', 1, cells({ 62: 1 }, 69)),
      ])
      const split = await host.server.call('POST', '/uba/api/retentions/analyze', { headers: q, body: { ...body, byField: { expression: 'event.signup.channel' }, byFieldIndex: 1 } })
      expect(split.body.rows).toEqual([
        row('$ALL', 2, cells({ 0: 1, 62: 1, 63: 1, 69: 1 }, 70)),
        row('ads', 1, cells({ 0: 1, 63: 1, 69: 1 }, 70)),
        row('seo', 1, cells({ 62: 1 }, 70)),
      ])
    })
  })

  describe('retention measures', () => {
    const measured = (aggregator: string, expression = 'event.visit.stay') => analyze({ ...base, measures: [{ expression, aggregator }] })

    it('sums a return-event property per cell, with the same counts as without a measure', async () => {
      const res = await measured('SUM')
      expect(res.body.rows).toEqual([
        // +1: a 20 + 4, b 5, d 30 (from 01-02); +2: d 30 (from 01-01), c 40
        { byValue: '$ALL', totalPeople: 5, retentionPeoples: [1, 3, 2], measures: [10, 59, 70] },
        { byValue: '2024/01/01 00:00:00', totalPeople: 3, retentionPeoples: [1, 2, 1], measures: [10, 29, 30] },
        { byValue: '2024/01/02 00:00:00', totalPeople: 2, retentionPeoples: [0, 1, 1], measures: [0, 30, 40] },
        { byValue: '2024/01/03 00:00:00', totalPeople: 1, retentionPeoples: [0, 0, 0], measures: [0, 0, 0] },
      ])
    })

    it.each([
      ['AVG', 'event.visit.stay', [10, 14.75, 35], [10, 9.666667, 30], [null, null, null]],
      ['AVG_PER', 'event.visit.stay', [10, 19.666667, 35], [10, 14.5, 30], [null, null, null]],
      ['MAX', 'event.visit.stay', [10, 30, 40], [10, 20, 30], [null, null, null]],
      ['MIN', 'event.visit.stay', [10, 4, 30], [10, 4, 30], [null, null, null]],
      ['REMOVE_DUMPLICATE', 'event.visit.page', [1, 2, 2], [1, 2, 1], [0, 0, 0]],
    ])('aggregates %s of %s over the counted return events', async (aggregator, expression, all, firstDay, lastDay) => {
      const res = await measured(aggregator, expression)
      expect(res.status).toBe(200)
      expect(res.body.rows.map((r: { measures: unknown }) => r.measures)).toEqual([all, firstDay, expect.any(Array), lastDay])
    })
  })

  describe('retention requests', () => {
    it('is documented in /openapi.json with its rules', async () => {
      const doc = (await host.server.call('GET', '/openapi.json')).body
      const op = doc.paths['/uba/api/retentions/analyze'].post
      expect(op.description).toContain('retentionPeoples')
      expect(op.description).toContain('after the latest day with data')
    })

    const ev = (expression: string, filter?: unknown) => ({ expression, ...(filter ? { filter } : {}) })
    const cond = (expression: string, fn: string, params: unknown[]) => ({ conditions: [{ expression, function: fn, params }] })
    it.each([
      [{ firstEvent: undefined }, ['firstEvent']],
      [{ firstEvent: 'event.signup' }, ['firstEvent']],
      [{ firstEvent: ev('event.nope') }, ['firstEvent.expression']],
      [{ firstEvent: ev('event.signup', cond('event.signup.channel', 'GT', [1])) }, ['firstEvent.filter.conditions[0].function']],
      [{ firstEvent: ev('event.signup', cond('event.visit.page', 'EQ', ['home'])) }, ['firstEvent.filter.conditions[0].expression']],
      [{ secondEvent: undefined }, ['secondEvent']],
      [{ secondEvent: ev('visit') }, ['secondEvent.expression']],
      [{ secondEvent: ev('event.visit', cond('event.visit.nope', 'EQ', ['x'])) }, ['secondEvent.filter.conditions[0].expression']],
      [{ duration: undefined }, ['duration']],
      [{ duration: 0 }, ['duration']],
      [{ duration: 1.5 }, ['duration']],
      [{ duration: 366 }, ['duration']],
      [{ unit: undefined }, ['unit']],
      [{ unit: 'HOUR' }, ['unit']],
      [{ fromDate: undefined }, ['fromDate']],
      [{ fromDate: '2024-02-30' }, ['fromDate']],
      [{ toDate: '2023-12-01' }, ['toDate']],
      [{ crowds: undefined }, ['crowds']],
      [{ crowds: ['vip'] }, ['crowds[0]']],
      [{ filter: cond('event.signup.channel', 'EQ', ['ads']) }, ['filter.conditions[0].expression']],
      [{ filter: cond('user.city', 'GT', [1]) }, ['filter.conditions[0].function']],
      [{ byFieldIndex: 3 }, ['byFieldIndex']],
      [{ byFieldIndex: 1 }, ['byField']],
      [{ byFieldIndex: 'initial' }, ['byFieldIndex']],
      [{ duration: 'seven' }, ['duration']],
      [{ byField: { expression: 'user.city' }, byFieldIndex: 1 }, ['byFieldIndex']],
      [{ byField: { expression: 'event.signup.channel' }, byFieldIndex: -1 }, ['byFieldIndex']],
      [{ byField: { expression: 'event.signup.channel' } }, ['byFieldIndex']],
      [{ byField: { expression: 'event.visit.page' }, byFieldIndex: 1 }, ['byField.expression']],
      [{ byField: { expression: 'event.signup.channel' }, byFieldIndex: 2 }, ['byField.expression']],
      [{ byField: { expression: 'event.signup.nope' }, byFieldIndex: 1 }, ['byField.expression']],
      [{ byField: { expression: 'event.signup.channel', buckets: [1, 2] }, byFieldIndex: 1 }, ['byField.buckets']],
      [{ byField: 'user.city' }, ['byField']],
      [{ byField: { expression: 'user.city' }, measures: [{ expression: 'event.visit.stay', aggregator: 'SUM' }] }, ['measures']],
      [{ measures: { expression: 'event.visit.stay', aggregator: 'SUM' } }, ['measures']],
      [{ measures: [{ expression: 'event.visit.stay', aggregator: 'SUM' }, { expression: 'event.visit.stay', aggregator: 'MAX' }] }, ['measures']],
      [{ measures: [{ expression: 'event.signup.channel', aggregator: 'REMOVE_DUMPLICATE' }] }, ['measures[0].expression']],
      [{ measures: [{ expression: 'user.city', aggregator: 'REMOVE_DUMPLICATE' }] }, ['measures[0].expression']],
      [{ measures: [{ expression: 'event.visit', aggregator: 'TOTAL_COUNT' }] }, ['measures[0].expression']],
      [{ measures: [{ expression: 'event.visit.stay', aggregator: 'TOTAL_COUNT' }] }, ['measures[0].aggregator']],
      [{ measures: [{ expression: 'event.visit.page', aggregator: 'SUM' }] }, ['measures[0].aggregator']],
      [{ samplingFactor: 2 }, ['samplingFactor']],
      [{ limit: 0 }, ['limit']],
      [{ useCache: 'yes' }, ['useCache']],
    ])('answers %j with 400 naming %j', async (override, data) => {
      const res = await analyze({ ...base, ...override })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe(400)
      expect(res.body.data).toEqual(data)
    })
  })

  /*
   * DuckDB only: its statements carry placeholders and bound values. ClickHouse 18.16 binds nothing
   * server-side, so its dialect prints each value into the text as a checked literal (docs/clickhouse.md,
   * "Bound values") and the statements it shows carry no params.
   */
  if (engine === 'duckdb') describe('retention explained, on duckdb', () => {
    let p: Project
    beforeAll(async () => {
      p = await host.project('retsql', 'Asia/Shanghai')
      const lines = [signup('a', '2024-01-01 10:00', 'ads'), visit('a', '2024-01-02 12:00', 'list', 20)]
      const job = await importAndWait(host.server, p, { path: fixture('retsql.jsonl', lines.join('\n')) })
      if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
    })

    it('shows the SQL it ran with explain=true, with values bound, not pasted', async () => {
      const res = await host.server.call('POST', '/uba/api/retentions/analyze?explain=true', { headers: p, body: base })
      expect(res.body.sql).toHaveLength(2)
      expect(res.body.sql[1].sql).toContain('FROM event_vd e')
      expect(res.body.sql[1].sql).not.toContain("'signup'")
      expect(res.body.sql[1].params).toContain('signup')
    })
  })
})
