import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'
import { setSetting } from '../../src-main/domain/platform/settings'

const utc = (local: string) => Date.parse(`${local.replace(' ', 'T')}Z`)
const rec = (xwho: string, xwhat: string, local: string, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen: utc(local), xcontext })

/*
 * Funnel view -> cart -> pay over 2024-01-01..02 (UTC), window 1 DAY, broken down by `plat` held
 * constant over the steps (byStepIndex -1). Per user:
 * u1: view, cart, pay all ios (10:00, 10:05, 10:10) -> ios depth 3 (300 s, 300 s).
 * u2: view ios, cart android, pay android -> total depth 3; ios depth 1 (no ios cart); no android
 *     row (no android view to enter at).
 * u3: view ios 10:00, cart android 10:05, cart ios 10:20, pay ios 11:00 -> total depth 3 (300 s,
 *     3300 s); ios depth 3 through the ios cart (1200 s, 2400 s).
 * u4 (01-02): view android 09:00, view ios 09:30, cart ios 09:40 -> total depth 2 (2400 s); ios
 *     depth 2 (600 s); android depth 1.
 * u5: view, cart without plat -> unknown depth 2 (60 s).
 * city is carried by view only.
 */
const lines = [
  rec('u1', 'view', '2024-01-01 10:00:00', { plat: 'ios', city: 'X' }),
  rec('u1', 'cart', '2024-01-01 10:05:00', { plat: 'ios' }),
  rec('u1', 'pay', '2024-01-01 10:10:00', { plat: 'ios' }),
  rec('u2', 'view', '2024-01-01 10:00:00', { plat: 'ios' }),
  rec('u2', 'cart', '2024-01-01 10:05:00', { plat: 'android' }),
  rec('u2', 'pay', '2024-01-01 10:10:00', { plat: 'android' }),
  rec('u3', 'view', '2024-01-01 10:00:00', { plat: 'ios' }),
  rec('u3', 'cart', '2024-01-01 10:05:00', { plat: 'android' }),
  rec('u3', 'cart', '2024-01-01 10:20:00', { plat: 'ios' }),
  rec('u3', 'pay', '2024-01-01 11:00:00', { plat: 'ios' }),
  rec('u4', 'view', '2024-01-02 09:00:00', { plat: 'android' }),
  rec('u4', 'view', '2024-01-02 09:30:00', { plat: 'ios' }),
  rec('u4', 'cart', '2024-01-02 09:40:00', { plat: 'ios' }),
  rec('u5', 'view', '2024-01-01 12:00:00'),
  rec('u5', 'cart', '2024-01-01 12:01:00'),
]

const base = {
  crowds: ['$ALL'],
  fromDate: '2024-01-01',
  toDate: '2024-01-02',
  steps: [{ expression: 'event.view' }, { expression: 'event.cart' }, { expression: 'event.pay' }],
  convertTime: 1,
  convertTimeUnit: 'DAY',
}
const converted = (row: any) => row.stepsDetail.map((d: any) => d.convertedUser)
const medians = (row: any) => row.medianConvertedTime.map((m: any) => m.median)

describe.each(ENGINES)('funnel broken down on any step (byStepIndex -1), on %s', (engine) => {
  const host = useEngine(engine)
  let p: Project

  beforeAll(async () => {
    p = await host.project('hold', 'UTC')
    const job = await importAndWait(host.server, p, { path: fixture('hold.jsonl', lines.join('\n')) })
    if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
  })

  const analyze = (body: Record<string, unknown>, query = '') => host.server.call('POST', `/uba/api/funnels/analyze${query}`, { headers: p, body })

  it('counts a path under a value only through steps that carry that value', async () => {
    const res = await analyze({ ...base, byField: { expression: 'event.view.plat' }, byStepIndex: -1 })
    expect(res.status).toBe(200)
    expect(res.body.byValues).toEqual([-1, 'ios', 'android', 'unknown'])
    const [total, ios, android, unknown] = res.body.rows
    // columns $ALL, 01-01, 01-02
    expect(converted(total)).toEqual([
      [5, 4, 1],
      [5, 4, 1],
      [3, 3, 0],
    ])
    expect(medians(total)).toEqual([
      [300, 300, 2400],
      [300, 300, null],
    ])
    expect(converted(ios)).toEqual([
      [4, 3, 1],
      [3, 2, 1],
      [2, 2, 0],
    ])
    // view~cart: u1 300, u3 1200, u4 600; cart~pay: u1 300, u3 2400
    expect(medians(ios)).toEqual([
      [600, 750, 600],
      [1350, 1350, null],
    ])
    expect(converted(android)).toEqual([
      [1, 0, 1],
      [0, 0, 0],
      [0, 0, 0],
    ])
    expect(converted(unknown)).toEqual([
      [1, 1, 0],
      [1, 1, 0],
      [0, 0, 0],
    ])
    // the total is the funnel without a breakdown
    const plain = await analyze(base)
    expect(total).toEqual(plain.body.rows[0])
  })

  it('differs from the first step\'s value, and takes the property named on any step\'s event', async () => {
    const first = await analyze({ ...base, byField: { expression: 'event.view.plat' }, byStepIndex: 0 })
    // read on the entry only, u2 counts under ios at depth 3 and u4 (entered at its android view) under android at 2
    const [, ios0] = first.body.rows
    expect(ios0.byValue).toBe('ios')
    expect(converted(ios0)[2]).toEqual([3, 3, 0])
    const onPay = await analyze({ ...base, byField: { expression: 'event.pay.plat' }, byStepIndex: -1 })
    const onView = await analyze({ ...base, byField: { expression: 'event.view.plat' }, byStepIndex: -1 })
    expect(onPay.status).toBe(200)
    expect(onPay.body.rows).toEqual(onView.body.rows)
    expect(onPay.body.byValues).toEqual(onView.body.byValues)
    const anyEvent = await analyze({ ...base, byField: { expression: 'event.$Anything.plat' }, byStepIndex: -1 })
    expect(anyEvent.body.rows).toEqual(onView.body.rows)
  })

  it('gives the same answer when the users are followed in parts', async () => {
    const body = { ...base, byField: { expression: 'event.view.plat' }, byStepIndex: -1 }
    const whole = await analyze(body)
    setSetting(host.server.app.ctx.meta, 'analysis.funnel.eventsPerPart', '3')
    try {
      const parted = await analyze(body, '?explain=true')
      expect(parted.body.sql.length).toBeGreaterThan(3)
      expect((await analyze(body)).body.rows).toEqual(whole.body.rows)
    } finally {
      setSetting(host.server.app.ctx.meta, 'analysis.funnel.eventsPerPart', '2000000')
    }
  })

  it('holds each element of a list property: an event carries every value of its list', async () => {
    // l1: view [a, b], cart [a], pay [b] -> a: view, cart (depth 2); b: view, then no cart with b (depth 1)
    const lists = await host.project('holdlist', 'UTC')
    const data = [
      rec('l1', 'view', '2024-01-01 10:00:00', { labs: ['a', 'b'] }),
      rec('l1', 'cart', '2024-01-01 10:01:00', { labs: ['a'] }),
      rec('l1', 'pay', '2024-01-01 10:02:00', { labs: ['b'] }),
    ]
    expect((await importAndWait(host.server, lists, { path: fixture('holdlist.jsonl', data.join('\n')) })).state).toBe('succeeded')
    const res = await host.server.call('POST', '/uba/api/funnels/analyze', { headers: lists, body: { ...base, byField: { expression: 'event.view.labs' }, byStepIndex: -1 } })
    expect(res.status).toBe(200)
    expect(res.body.byValues).toEqual([-1, 'a', 'b'])
    const [total, a, b] = res.body.rows
    expect(converted(total).map((c: number[]) => c[0])).toEqual([1, 1, 1])
    expect(converted(a).map((c: number[]) => c[0])).toEqual([1, 1, 0])
    expect(converted(b).map((c: number[]) => c[0])).toEqual([1, 0, 0])
  })

  it('refuses a property that some step\'s event does not carry, naming byField.expression', async () => {
    const res = await analyze({ ...base, byField: { expression: 'event.view.city' }, byStepIndex: -1 })
    expect(res.status).toBe(400)
    expect(res.body.data).toEqual(['byField.expression'])
    expect(res.body.msg).toContain('step 1')
    // on the first step alone it is a property of the step's event
    expect((await analyze({ ...base, byField: { expression: 'event.view.city' }, byStepIndex: 0 })).status).toBe(200)
  })
})
