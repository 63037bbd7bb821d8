import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'
import { setSetting } from '../../src-main/domain/platform/settings'

const utc = (local: string) => Date.parse(`${local.replace(' ', 'T')}Z`)
const rec = (xwho: string, xwhat: string, local: string, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen: utc(local), xcontext })

/*
 * Funnel view -> cart -> pay on 2024-01-01 (UTC), window 1 DAY. `leave` and `refund` are no step;
 * the views of x1..x5 carry src 'ad'.
 * Ordered (today's order), per user, depth and first-to-last seconds:
 * x1 view 10:00, leave 10:02, cart 10:05, pay 10:10         -> 3 (600)
 * x2 view 10:00, cart 10:05, leave 10:07, pay 10:10         -> 3 (600)
 * x3 view 10:00, leave 10:00 (same ms as view), cart 10:05   -> 2
 * x4 view 10:00, leave 10:05 and cart 10:05 (same ms)        -> 2
 * x5 view 10:00, leave 10:01, view 10:02, cart 10:05, pay 10:06 -> 3 from 10:00 (360)
 * x6 view 11:00, cart 11:05, refund 5 at 11:06, pay 11:10    -> 3 (600)
 * x7 view 11:00, cart 11:05, refund 50 at 11:06, pay 11:10   -> 3 (600)
 * y1 view 12:00, cart 12:01, cart 12:02, pay 12:03          -> 3 (180)
 * z1 view 13:00, cart 13:00 (same ms), pay 01-02 13:00 (the window's last ms) -> 3 (86400)
 */
const lines = [
  rec('x1', 'view', '2024-01-01 10:00:00', { src: 'ad' }),
  rec('x1', 'leave', '2024-01-01 10:02:00'),
  rec('x1', 'cart', '2024-01-01 10:05:00'),
  rec('x1', 'pay', '2024-01-01 10:10:00'),
  rec('x2', 'view', '2024-01-01 10:00:00', { src: 'ad' }),
  rec('x2', 'cart', '2024-01-01 10:05:00'),
  rec('x2', 'leave', '2024-01-01 10:07:00'),
  rec('x2', 'pay', '2024-01-01 10:10:00'),
  rec('x3', 'view', '2024-01-01 10:00:00', { src: 'ad' }),
  rec('x3', 'leave', '2024-01-01 10:00:00'),
  rec('x3', 'cart', '2024-01-01 10:05:00'),
  rec('x4', 'view', '2024-01-01 10:00:00', { src: 'ad' }),
  rec('x4', 'leave', '2024-01-01 10:05:00'),
  rec('x4', 'cart', '2024-01-01 10:05:00'),
  rec('x5', 'view', '2024-01-01 10:00:00', { src: 'ad' }),
  rec('x5', 'leave', '2024-01-01 10:01:00'),
  rec('x5', 'view', '2024-01-01 10:02:00', { src: 'ad' }),
  rec('x5', 'cart', '2024-01-01 10:05:00'),
  rec('x5', 'pay', '2024-01-01 10:06:00'),
  rec('x6', 'view', '2024-01-01 11:00:00'),
  rec('x6', 'cart', '2024-01-01 11:05:00'),
  rec('x6', 'refund', '2024-01-01 11:06:00', { amount: 5 }),
  rec('x6', 'pay', '2024-01-01 11:10:00'),
  rec('x7', 'view', '2024-01-01 11:00:00'),
  rec('x7', 'cart', '2024-01-01 11:05:00'),
  rec('x7', 'refund', '2024-01-01 11:06:00', { amount: 50 }),
  rec('x7', 'pay', '2024-01-01 11:10:00'),
  rec('y1', 'view', '2024-01-01 12:00:00'),
  rec('y1', 'cart', '2024-01-01 12:01:00'),
  rec('y1', 'cart', '2024-01-01 12:02:00'),
  rec('y1', 'pay', '2024-01-01 12:03:00'),
  rec('z1', 'view', '2024-01-01 13:00:00'),
  rec('z1', 'cart', '2024-01-01 13:00:00'),
  rec('z1', 'pay', '2024-01-02 13:00:00'),
]

/*
 * Any order, over 2024-01-01..02 (UTC), window 1 DAY:
 * a1 cart 10:00, view 10:05, pay 10:10           -> 01-01 depth 3 (view~cart 0 s: done at 10:05; cart~pay 300 s)
 * a2 pay 10:00, cart 10:01 (no view)             -> not counted
 * a3 view 10:00, pay 10:05                       -> 01-01 depth 1
 * a4 view, cart, pay at the same ms 10:00        -> 01-01 depth 3 (0 s, 0 s)
 * a5 pay 01-01 10:00, view 01-02 10:00, cart 01-02 10:00:01 -> 01-02 depth 2 (1 s): the pay's window
 *    ends before the cart, and it is on no path of its own
 * a6 cart 09:00, view 10:00, pay 01-02 09:00 (the cart's window's last ms) -> 01-01 depth 3 (0 s, 82800 s)
 * a7 cart 09:00, view 10:00, pay 01-02 09:00:01  -> 01-01 depth 2 (0 s)
 */
const anyLines = [
  rec('a1', 'cart', '2024-01-01 10:00:00'),
  rec('a1', 'view', '2024-01-01 10:05:00'),
  rec('a1', 'pay', '2024-01-01 10:10:00'),
  rec('a2', 'pay', '2024-01-01 10:00:00'),
  rec('a2', 'cart', '2024-01-01 10:01:00'),
  rec('a3', 'view', '2024-01-01 10:00:00'),
  rec('a3', 'pay', '2024-01-01 10:05:00'),
  rec('a4', 'pay', '2024-01-01 10:00:00'),
  rec('a4', 'cart', '2024-01-01 10:00:00'),
  rec('a4', 'view', '2024-01-01 10:00:00'),
  rec('a5', 'pay', '2024-01-01 10:00:00'),
  rec('a5', 'view', '2024-01-02 10:00:00'),
  rec('a5', 'cart', '2024-01-02 10:00:01'),
  rec('a6', 'cart', '2024-01-01 09:00:00'),
  rec('a6', 'view', '2024-01-01 10:00:00'),
  rec('a6', 'pay', '2024-01-02 09:00:00'),
  rec('a7', 'cart', '2024-01-01 09:00:00'),
  rec('a7', 'view', '2024-01-01 10:00:00'),
  rec('a7', 'pay', '2024-01-02 09:00:01'),
]

const steps = [{ expression: 'event.view' }, { expression: 'event.cart' }, { expression: 'event.pay' }]
const base = { crowds: ['$ALL'], fromDate: '2024-01-01', toDate: '2024-01-01', steps, convertTime: 1, convertTimeUnit: 'DAY' }
const leave = { expression: 'event.leave', fromStep: 0, toStep: 1 }
const bigRefund = { expression: 'event.refund', filter: { conditions: [{ expression: 'event.refund.amount', function: 'GTE', params: [10] }] }, fromStep: 1, toStep: 2 }
/** convertedUser per step: columns $ALL, then each day. */
const converted = (row: any) => row.stepsDetail.map((d: any) => d.convertedUser)
const medians = (row: any) => row.medianConvertedTime.map((m: any) => m.median)
const bucketsOf = (res: any) => Object.fromEntries(res.body.timeToConvert.buckets.filter((b: any) => b.users > 0).map((b: any) => [b.from, b.users]))

describe.each(ENGINES)('funnel options, on %s', (engine) => {
  const host = useEngine(engine)
  let p: Project
  let anyOrder: Project

  beforeAll(async () => {
    p = await host.project('opts', 'UTC')
    anyOrder = await host.project('anyorder', 'UTC')
    for (const [project, name, data] of [[p, 'opts.jsonl', lines], [anyOrder, 'any.jsonl', anyLines]] as const) {
      const job = await importAndWait(host.server, project, { path: fixture(name, data.join('\n')) })
      if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
    }
  })

  const analyze = (body: Record<string, unknown>, headers = p) => host.server.call('POST', '/uba/api/funnels/analyze', { headers, body })

  describe('funnel exclusions', () => {
    it('stops a path at step k when an exclusion event lies strictly between steps k and k+1', async () => {
      const plain = await analyze(base)
      expect(converted(plain.body.rows[0])).toEqual([
        [9, 9],
        [9, 9],
        [7, 7],
      ])
      const res = await analyze({ ...base, exclusions: [leave, bigRefund] })
      expect(res.status).toBe(200)
      // x1 stops at view (leave between view and cart); x7 at cart (a refund of 50 between cart and pay);
      // x3 and x4 (leave at the same ms as a step) go on; x5 converts from its second view
      expect(converted(res.body.rows[0])).toEqual([
        [9, 9],
        [8, 8],
        [5, 5],
      ])
      // view~cart: x2, x3, x4, x6, x7 300, x5 180, y1 60, z1 0 -> middle two 300, 300; cart~pay: x2 300, x5 60, x6 300, y1 120, z1 86400
      expect(medians(res.body.rows[0])).toEqual([
        [300, 300],
        [300, 300],
      ])
    })

    it('applies an exclusion to every span from fromStep to toStep (default: first to last)', async () => {
      // leave over both spans also stops x2 (leave between cart and pay) at the cart
      const res = await analyze({ ...base, exclusions: [{ expression: 'event.leave' }] })
      expect(converted(res.body.rows[0]).map((c: number[]) => c[0])).toEqual([9, 8, 5])
      const between = await analyze({ ...base, exclusions: [{ expression: 'event.leave', fromStep: 1, toStep: 2 }] })
      expect(converted(between.body.rows[0]).map((c: number[]) => c[0])).toEqual([9, 9, 6])
    })

    it('excludes with a step\'s own event, and keeps a breakdown\'s labels', async () => {
      // a second cart between cart and pay: y1 stops at its cart
      const res = await analyze({ ...base, exclusions: [{ expression: 'event.cart', fromStep: 1, toStep: 2 }] })
      expect(converted(res.body.rows[0]).map((c: number[]) => c[0])).toEqual([9, 9, 6])
      const broken = await analyze({ ...base, exclusions: [leave, bigRefund], byField: { expression: 'event.view.src' } })
      expect(broken.body.byValues).toEqual([-1, 'ad', 'unknown'])
      const [, ad, unknown] = broken.body.rows
      // ad: x1 1, x2 3, x3 2, x4 2, x5 3; unknown: x6 3, x7 2, y1 3, z1 3
      expect(converted(ad)).toEqual([
        [5, 5],
        [4, 4],
        [2, 2],
      ])
      expect(converted(unknown)).toEqual([
        [4, 4],
        [4, 4],
        [3, 3],
      ])
    })

    it('gives the same answer when the users are followed in parts', async () => {
      const body = { ...base, exclusions: [leave, bigRefund], timeToConvert: true }
      const whole = await analyze(body)
      setSetting(host.server.app.ctx.meta, 'analysis.funnel.eventsPerPart', '4')
      try {
        const parted = await analyze(body)
        expect(parted.body.rows).toEqual(whole.body.rows)
        expect(parted.body.timeToConvert).toEqual(whole.body.timeToConvert)
      } finally {
        setSetting(host.server.app.ctx.meta, 'analysis.funnel.eventsPerPart', '2000000')
      }
    })

    it('refuses a bad exclusion, naming it', async () => {
      const cases: [unknown, string][] = [
        [{ expression: 'event.leave' }, 'exclusions'],
        [[{ expression: 'event.nope' }], 'exclusions[0].expression'],
        [[{ expression: 'event.leave', fromStep: 1, toStep: 1 }], 'exclusions[0].toStep'],
        [[{ expression: 'event.leave', fromStep: 0, toStep: 3 }], 'exclusions[0].toStep'],
        [[{ expression: 'event.leave', fromStep: -1 }], 'exclusions[0].fromStep'],
        [[leave, { expression: 'event.refund', filter: { conditions: [{ expression: 'event.view.amount', function: 'GTE', params: [1] }] } }], 'exclusions[1].filter.conditions[0].expression'],
      ]
      for (const [exclusions, field] of cases) {
        const res = await analyze({ ...base, exclusions })
        expect(res.status, JSON.stringify(exclusions)).toBe(400)
        expect(res.body.data).toEqual([field])
      }
      const anyOrderExcluded = await analyze({ ...base, order: 'any', exclusions: [leave] })
      expect(anyOrderExcluded.status).toBe(400)
      expect(anyOrderExcluded.body.data).toEqual(['exclusions'])
    })
  })

  describe('funnel order', () => {
    it('strict: no other event strictly between two steps; events of the same ms do not interrupt', async () => {
      const res = await analyze({ ...base, order: 'strict' })
      expect(res.status).toBe(200)
      // x1 interrupted after view (leave); x2, x6, x7 after cart (leave, refund); y1 by its second cart;
      // x3, x4 go on (leave at a step's ms); x5 converts from its second view; z1 converts
      expect(converted(res.body.rows[0])).toEqual([
        [9, 9],
        [8, 8],
        [2, 2],
      ])
      // cart~pay: x5 60, z1 86400
      expect(medians(res.body.rows[0])[1]).toEqual([43230, 43230])
      // today's order by name is the default
      expect((await analyze({ ...base, order: 'ORDERED' })).body.rows).toEqual((await analyze(base)).body.rows)
    })

    it('strict with exclusions: an exclusion adds nothing a strict order does not stop already', async () => {
      const res = await analyze({ ...base, order: 'STRICT', exclusions: [{ expression: 'event.view', fromStep: 1, toStep: 2 }] })
      expect(converted(res.body.rows[0]).map((c: number[]) => c[0])).toEqual([9, 8, 2])
    })

    it('any: steps in any order within the window from a path\'s first event, its day the entry day', async () => {
      const res = await analyze({ ...base, toDate: '2024-01-02', order: 'any' }, anyOrder)
      expect(res.status).toBe(200)
      const [total] = res.body.rows
      expect(converted(total)).toEqual([
        [6, 5, 1],
        [5, 4, 1],
        [3, 3, 0],
      ])
      // view~cart: a1 0, a4 0, a6 0, a7 0, a5 1; cart~pay: a1 300, a4 0, a6 82800
      expect(medians(total)).toEqual([
        [0, 0, 1],
        [300, 300, null],
      ])
      // in today's order only a4 (all at one ms) and a5 get past the view
      const ordered = await analyze({ ...base, toDate: '2024-01-02' }, anyOrder)
      expect(converted(ordered.body.rows[0]).map((c: number[]) => c[0])).toEqual([6, 2, 1])
    })

    it('refuses an unknown order, naming it', async () => {
      const res = await analyze({ ...base, order: 'sideways' })
      expect(res.status).toBe(400)
      expect(res.body.data).toEqual(['order'])
    })
  })

  describe('funnel options with the breakdown held constant over the steps (byStepIndex -1)', () => {
    it('an exclusion or a strict order applies to each value\'s paths, other values\' steps interrupting a strict one', async () => {
      // h1: view ios 10:00, leave 10:01, cart ios 10:02, view android 10:03, cart android 10:04
      // h2: view ios 10:00, cart android 10:01, cart ios 10:02
      const held = await host.project('holdopts', 'UTC')
      const data = [
        rec('h1', 'view', '2024-01-01 10:00:00', { plat: 'ios' }),
        rec('h1', 'leave', '2024-01-01 10:01:00'),
        rec('h1', 'cart', '2024-01-01 10:02:00', { plat: 'ios' }),
        rec('h1', 'view', '2024-01-01 10:03:00', { plat: 'android' }),
        rec('h1', 'cart', '2024-01-01 10:04:00', { plat: 'android' }),
        rec('h2', 'view', '2024-01-01 10:00:00', { plat: 'ios' }),
        rec('h2', 'cart', '2024-01-01 10:01:00', { plat: 'android' }),
        rec('h2', 'cart', '2024-01-01 10:02:00', { plat: 'ios' }),
      ]
      expect((await importAndWait(host.server, held, { path: fixture('held.jsonl', data.join('\n')) })).state).toBe('succeeded')
      const body = { ...base, steps: steps.slice(0, 2), byField: { expression: 'event.view.plat' }, byStepIndex: -1 }
      const reached = async (extra: object) => {
        const res = await analyze({ ...body, ...extra }, held)
        expect(res.status).toBe(200)
        expect(res.body.byValues).toEqual([-1, 'ios', 'android'])
        return res.body.rows.map((row: any) => converted(row).map((c: number[]) => c[0]))
      }
      // today's order: ios h1 and h2 reach the cart; android h1
      expect(await reached({})).toEqual([[2, 2], [2, 2], [1, 1]])
      // leave between view and cart: h1's ios path stops; its android path starts after the leave
      expect(await reached({ exclusions: [{ expression: 'event.leave' }] })).toEqual([[2, 2], [2, 1], [1, 1]])
      // strict: h1's ios path has the leave between, h2's the android cart
      expect(await reached({ order: 'STRICT' })).toEqual([[2, 2], [2, 0], [1, 1]])
    })
  })

  describe('funnel time to convert', () => {
    it('counts converted users by seconds from the first to the last step, in buckets up to the window', async () => {
      const res = await analyze({ ...base, timeToConvert: true })
      expect(res.status).toBe(200)
      const ttc = res.body.timeToConvert
      expect(ttc).toMatchObject({ fromStep: 0, toStep: 2 })
      expect(ttc.buckets.map((b: any) => b.from)).toEqual([0, 10, 30, 60, 300, 900, 1800, 3600, 10800, 21600, 43200, 86400])
      expect(ttc.buckets.at(-1)).toEqual({ from: 86400, to: null, users: 1 })
      expect(ttc.buckets[0]).toEqual({ from: 0, to: 10, users: 0 })
      // y1 180; x5 360, x1, x2, x6, x7 600; z1 86400 (the window's length: the last bucket)
      expect(bucketsOf(res)).toEqual({ 60: 1, 300: 5, 86400: 1 })
      expect(ttc.buckets.reduce((n: number, b: any) => n + b.users, 0)).toBe(converted(res.body.rows[0])[2][0])
      expect((await analyze(base)).body.timeToConvert).toBeUndefined()
    })

    it('measures a chosen span, and the paths with the options applied', async () => {
      const span = await analyze({ ...base, timeToConvert: { fromStep: 1, toStep: 2 } })
      // cart~pay: x5 60, y1 120; x1, x2, x6, x7 300; z1 86400
      expect(bucketsOf(span)).toEqual({ 60: 2, 300: 4, 86400: 1 })
      const toCart = await analyze({ ...base, timeToConvert: { toStep: 1 } })
      // view~cart: z1 0; y1 60; x5 300 (from 10:00); x1..x4, x6, x7 300
      expect(bucketsOf(toCart)).toEqual({ 0: 1, 60: 1, 300: 7 })
      const excluded = await analyze({ ...base, exclusions: [leave, bigRefund], timeToConvert: true })
      // x5 now from its 10:02 view: 240; y1 180; x2, x6 600; z1 86400
      expect(bucketsOf(excluded)).toEqual({ 60: 2, 300: 2, 86400: 1 })
      const anyOrdered = await analyze({ ...base, toDate: '2024-01-02', order: 'any', timeToConvert: true }, anyOrder)
      // when all three were done, from the view: a1 300, a4 0, a6 82800
      expect(bucketsOf(anyOrdered)).toEqual({ 0: 1, 300: 1, 43200: 1 })
    })

    it('refuses a bad span, naming it', async () => {
      for (const [timeToConvert, field] of [
        [{ fromStep: 2, toStep: 1 }, 'timeToConvert.toStep'],
        [{ fromStep: 'x' }, 'timeToConvert.fromStep'],
        ['soon', 'timeToConvert'],
      ] as const) {
        const res = await analyze({ ...base, timeToConvert })
        expect(res.status, JSON.stringify(timeToConvert)).toBe(400)
        expect(res.body.data).toEqual([field])
      }
    })
  })

  describe('funnel conversion trend', () => {
    it('counts each entry day in the project time zone, the trend being last step over first per day', async () => {
      // t1 view 2024-01-01 23:30 UTC (01-02 07:30 in Shanghai), cart 23:40; t2 view 2024-01-01 10:00 UTC (18:00), no cart
      const data = [rec('t1', 'view', '2024-01-01 23:30:00'), rec('t1', 'cart', '2024-01-01 23:40:00'), rec('t2', 'view', '2024-01-01 10:00:00')]
      const body = { ...base, toDate: '2024-01-02', steps: steps.slice(0, 2) }
      const rows: Record<string, number[][]> = {}
      for (const zone of ['UTC', 'Asia/Shanghai']) {
        const project = await host.project(`trend${zone.length}`, zone)
        expect((await importAndWait(host.server, project, { path: fixture('trend.jsonl', data.join('\n')) })).state).toBe('succeeded')
        rows[zone] = converted((await analyze(body, project)).body.rows[0])
      }
      // UTC: both enter 01-01, 1 of 2 converts (50%); Shanghai: t2 on 01-01 (0%), t1 on 01-02 (100%)
      expect(rows.UTC).toEqual([
        [2, 2, 0],
        [1, 1, 0],
      ])
      expect(rows['Asia/Shanghai']).toEqual([
        [2, 1, 1],
        [1, 0, 1],
      ])
    })
  })
})
