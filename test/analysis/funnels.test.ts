import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'
import { setSetting } from '../../src-main/domain/platform/settings'

/** Local Shanghai time (UTC+8), "yyyy-MM-dd HH:mm:ss", as epoch ms. */
const sh = (local: string) => Date.parse(`${local.replace(' ', 'T')}+08:00`)
const rec = (xwho: string, xwhat: string, local: string, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen: sh(local), xcontext })

/*
 * Funnel view -> cart -> pay over 2024-01-01..03 (Asia/Shanghai), window 1 DAY unless a test says
 * otherwise. Per user:
 * a: enters 01-01 10:00 (and 11:00), cart 10:05, pay 01-02 09:00 -> depth 3 on 01-01 (300 s, 82500 s);
 *    enters again 01-03 08:00 with nothing after -> depth 1 on 01-03; $ALL once, at 3.
 * b: view, cart at the very same second 01-02 12:00:00, pay 01-03 12:00:00 (the window's last second)
 *    -> depth 3 (0 s, 86400 s).
 * c: view 01-02 08:00, cart 09:00, pay 01-03 08:00:01 (one second late) -> depth 2 (3600 s).
 * d: cart 01-01 09:00 before its view 10:00 (does not count) -> depth 1 on 01-01; view 01-03 10:00,
 *    cart 10:30 -> depth 2 on 01-03 (1800 s).
 * e: view 01-03 20:00, cart 01-04 01:00, pay 01-04 02:00 (past toDate, inside the window) -> depth 3
 *    (18000 s, 3600 s); a view 01-04 03:00 is no entry (after toDate).
 */
const lines = [
  rec('a', 'view', '2024-01-01 10:00:00', { city: 'X', price: 10, tags: ['new', 'sale'] }),
  rec('a', 'cart', '2024-01-01 10:05:00'),
  rec('a', 'view', '2024-01-01 11:00:00', { city: 'Y', price: 20 }),
  rec('a', 'pay', '2024-01-02 09:00:00', { method: 'card' }),
  rec('a', 'view', '2024-01-03 08:00:00', { city: 'Y', price: 30 }),
  rec('b', 'view', '2024-01-02 12:00:00', { city: 'X', price: 5 }),
  rec('b', 'cart', '2024-01-02 12:00:00'),
  rec('b', 'pay', '2024-01-03 12:00:00', { method: 'cash' }),
  rec('c', 'view', '2024-01-02 08:00:00', { city: 'Y', price: 50, tags: ['sale'] }),
  rec('c', 'cart', '2024-01-02 09:00:00'),
  rec('c', 'pay', '2024-01-03 08:00:01', { method: 'card' }),
  rec('d', 'cart', '2024-01-01 09:00:00'),
  rec('d', 'view', '2024-01-01 10:00:00', { price: 1 }),
  rec('d', 'view', '2024-01-03 10:00:00', { city: 'X', price: 60 }),
  rec('d', 'cart', '2024-01-03 10:30:00'),
  rec('e', 'view', '2024-01-03 20:00:00', { city: 'X', price: 100 }),
  rec('e', 'cart', '2024-01-04 01:00:00'),
  rec('e', 'pay', '2024-01-04 02:00:00', { method: 'card' }),
  rec('e', 'view', '2024-01-04 03:00:00', { city: 'X', price: 7 }),
  rec('a', '$profile_set', '2024-01-01 00:00:00', { age: 18 }),
  rec('b', '$profile_set', '2024-01-01 00:00:00', { age: 25 }),
  rec('c', '$profile_set', '2024-01-01 00:00:00', { age: 35 }),
  rec('e', '$profile_set', '2024-01-01 00:00:00', { age: 25 }),
]

/*
 * Equal times: t1 two views at the same millisecond; t2 one view; t3 a pay and a view at the same
 * millisecond, the pay first in the file.
 */
const tieLines = [
  rec('t1', 'view', '2024-01-01 10:00:00'),
  rec('t1', 'view', '2024-01-01 10:00:00'),
  rec('t2', 'view', '2024-01-01 10:00:00'),
  rec('t3', 'pay', '2024-01-01 12:00:00'),
  rec('t3', 'view', '2024-01-01 12:00:00'),
]

const steps = [{ expression: 'event.view' }, { expression: 'event.cart' }, { expression: 'event.pay' }]
const base = { crowds: ['$ALL'], fromDate: '2024-01-01', toDate: '2024-01-03', steps, convertTime: 1, convertTimeUnit: 'DAY' }
const DATES = ['$ALL', '2024/01/01 00:00:00', '2024/01/02 00:00:00', '2024/01/03 00:00:00']

/** convertedUser per step, columns $ALL, 01-01, 01-02, 01-03. */
const converted = (row: any) => row.stepsDetail.map((d: any) => d.convertedUser)
const medians = (row: any) => row.medianConvertedTime.map((m: any) => m.median)

describe.each(ENGINES)('funnel analysis, on %s', (engine) => {
  const host = useEngine(engine)
  let p: Project
  let ties: Project

  beforeAll(async () => {
    p = await host.project('fn', 'Asia/Shanghai')
    ties = await host.project('ties', 'Asia/Shanghai')
    for (const [project, name, data] of [[p, 'fn.jsonl', lines], [ties, 'ties.jsonl', tieLines]] as const) {
      const job = await importAndWait(host.server, project, { path: fixture(name, data.join('\n')) })
      if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
    }
    const virtual = await host.server.call('POST', '/uba/api/meta/event/virtual', {
      headers: p,
      body: {
        id: 'shop',
        name: 'Shop',
        events: [{ expression: 'event.view', filter: { conditions: [{ expression: 'event.view.price', function: 'GTE', params: [10] }] } }, { expression: 'event.cart' }],
      },
    })
    if (virtual.status !== 200) throw new Error(JSON.stringify(virtual.body))
  })

  const analyze = (body: Record<string, unknown>, query = '', headers = p) => host.server.call('POST', `/uba/api/funnels/analyze${query}`, { headers, body })

  // DuckDB only: DuckDB binds the values; ClickHouse 18.16 binds nothing server-side, so its dialect
  // prints each value into the statement as a checked literal (warehouse/clickhouse/params.ts)
  it.runIf(engine === 'duckdb')('shows the SQL it ran with explain=true, with values bound, not pasted', async () => {
    const res = await analyze(base, '?explain=true')
    // how many events and users to read, then the candidate events of the one part of users
    expect(res.body.sql).toHaveLength(2)
    expect(res.body.sql[0].sql).toContain('count(*)')
    const scan = res.body.sql[1]
    expect(scan.sql).toContain('FROM event_vd e')
    expect(scan.sql).not.toContain("'cart'")
    expect(scan.params).toContain('cart')
  })

  it('counts each entry day at its deepest step and $ALL once per user, with median step times', async () => {
    const res = await analyze(base)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      dateList: DATES,
      byField: null,
      byValues: [-1],
      stepEvents: ['event.view', 'event.cart', 'event.pay'],
      samplingFactor: 1,
    })
    expect(res.body.rows).toHaveLength(1)
    const [total] = res.body.rows
    expect(total.byValue).toBe(-1)
    expect(total.stepsDetail.map((d: any) => d.expression)).toEqual(['event.view', 'event.cart', 'event.pay'])
    expect(converted(total)).toEqual([
      [5, 2, 2, 3],
      [5, 1, 2, 2],
      [3, 1, 1, 1],
    ])
    expect(total.medianConvertedTime.map((m: any) => m.stepsExpress)).toEqual(['event.view~event.cart', 'event.cart~event.pay'])
    // view~cart: $ALL a 300, b 0, c 3600, d 1800, e 18000 (odd: the middle); 01-02 b 0, c 3600 (even: averaged)
    expect(medians(total)).toEqual([
      [1800, 300, 1800, 9900],
      [82500, 82500, 86400, 3600],
    ])
    expect(res.body.reportUpdateTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
  })

  it('takes the deepest path from the earliest entry for the medians, over a longer window', async () => {
    // 7 days: c's late pay counts, d's 01-01 entry reaches the cart of 01-03 (its earliest deepest path)
    const res = await analyze({ ...base, convertTime: 7 })
    const [total] = res.body.rows
    expect(converted(total)).toEqual([
      [5, 2, 2, 3],
      [5, 2, 2, 2],
      [4, 1, 2, 1],
    ])
    // view~cart $ALL: 0, 300, 3600, 18000 and d's 174600 (01-01 10:00 -> 01-03 10:30), not its later 1800
    expect(medians(total)).toEqual([
      [3600, 87450, 1800, 9900],
      [82650.5, 82500, 84600.5, 3600],
    ])
  })

  it('measures the window in hours or minutes, its last moment included', async () => {
    // 300 minutes: e's cart 5 h after its view counts, its pay 6 h after does not
    const res = await analyze({ ...base, convertTime: 300, convertTimeUnit: 'MINUTE' })
    expect(converted(res.body.rows[0]).map((c: number[]) => c[3])).toEqual([3, 2, 0])
    const hours = await analyze({ ...base, convertTime: 5, convertTimeUnit: 'HOUR' })
    expect(hours.body.rows).toEqual(res.body.rows)
  })

  it('gives each day of the range a column, with null medians where nobody converted', async () => {
    const res = await analyze({ ...base, toDate: '2024-01-04' })
    expect(res.body.dateList).toEqual([...DATES, '2024/01/04 00:00:00'])
    const [total] = res.body.rows
    expect(converted(total)).toEqual([
      [5, 2, 2, 3, 1],
      [5, 1, 2, 2, 0],
      [3, 1, 1, 1, 0],
    ])
    expect(medians(total).map((m: (number | null)[]) => m[4])).toEqual([null, null])
  })

  it('answers an empty range with zeros and null medians', async () => {
    const res = await analyze({ ...base, fromDate: '2025-01-01', toDate: '2025-01-02' })
    expect(res.status).toBe(200)
    expect(res.body.dateList).toEqual(['$ALL', '2025/01/01 00:00:00', '2025/01/02 00:00:00'])
    expect(res.body.byValues).toEqual([-1])
    expect(res.body.rows).toEqual([
      {
        byValue: -1,
        stepsDetail: steps.map((st) => ({ expression: st.expression, convertedUser: [0, 0, 0] })),
        medianConvertedTime: [
          { stepsExpress: 'event.view~event.cart', median: [null, null, null] },
          { stepsExpress: 'event.cart~event.pay', median: [null, null, null] },
        ],
      },
    ])
  })

  it('breaks down by the first step\'s event property, from each user\'s counted path', async () => {
    const res = await analyze({ ...base, byField: { expression: 'event.view.city' }, byStepIndex: 0 })
    expect(res.body.byField).toBe('event.view.city')
    expect(res.body.byValues).toEqual([-1, 'X', 'Y', 'unknown'])
    const [total, x, y, unknown] = res.body.rows
    expect(converted(total)).toEqual([
      [5, 2, 2, 3],
      [5, 1, 2, 2],
      [3, 1, 1, 1],
    ])
    // a counts under X over the range (its 01-01 10:00 entry) and under Y on 01-03
    expect(converted(x)).toEqual([
      [4, 1, 1, 2],
      [4, 1, 1, 2],
      [3, 1, 1, 1],
    ])
    expect(converted(y)).toEqual([
      [1, 0, 1, 1],
      [1, 0, 1, 0],
      [0, 0, 0, 0],
    ])
    expect(converted(unknown)).toEqual([
      [0, 1, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
    ])
    expect(medians(x)).toEqual([
      [1050, 300, 0, 9900],
      [82500, 82500, 86400, 3600],
    ])
    expect(medians(y)).toEqual([
      [3600, null, 3600, null],
      [null, null, null, null],
    ])
    // byStepIndex -1 holds the value over every step (funnel-any-step.test.ts): city is the view's only
    const anyStep = await analyze({ ...base, byField: { expression: 'event.view.city' }, byStepIndex: -1 })
    expect(anyStep.status).toBe(400)
    const omitted = await analyze({ ...base, byField: { expression: 'event.view.city' } })
    expect(omitted.body.rows).toEqual(res.body.rows)
  })

  it('breaks down by each element of a list property, counting the user once in the total', async () => {
    const res = await analyze({ ...base, byField: { expression: 'event.view.tags' } })
    expect(res.body.byValues).toEqual([-1, 'unknown', 'sale', 'new'])
    const [total, unknown, sale, fresh] = res.body.rows
    expect(converted(total).map((c: number[]) => c[0])).toEqual([5, 5, 3])
    // a's counted path over the range starts at its tagged 01-01 view; its 01-03 view has no tags
    expect(converted(unknown)[0]).toEqual([3, 1, 1, 3])
    expect(converted(sale)).toEqual([
      [2, 1, 1, 0],
      [2, 1, 1, 0],
      [1, 1, 0, 0],
    ])
    expect(converted(fresh)[0]).toEqual([1, 1, 0, 0])
  })

  it('breaks down by a later step\'s property, users who stop before it being unknown', async () => {
    const res = await analyze({ ...base, byField: { expression: 'event.pay.method' }, byStepIndex: 2 })
    // card 2 and unknown 2 tie: the known value first
    expect(res.body.byValues).toEqual([-1, 'card', 'unknown', 'cash'])
    const [, card, unknown, cash] = res.body.rows
    expect(converted(card)).toEqual([
      [2, 1, 0, 1],
      [2, 1, 0, 1],
      [2, 1, 0, 1],
    ])
    expect(converted(unknown)).toEqual([
      [2, 1, 1, 2],
      [2, 0, 1, 1],
      [0, 0, 0, 0],
    ])
    expect(converted(cash)).toEqual([
      [1, 0, 1, 0],
      [1, 0, 1, 0],
      [1, 0, 1, 0],
    ])
    const limited = await analyze({ ...base, byField: { expression: 'event.pay.method' }, byStepIndex: 2, limit: 1 })
    expect(limited.body.byValues).toEqual([-1, 'card'])
    expect(limited.body.rows).toHaveLength(2)
  })

  it('breaks down by a user property cut into buckets', async () => {
    const res = await analyze({ ...base, byField: { expression: 'user.age', buckets: [20, 30] } })
    expect(res.body.byValues).toEqual([-1, '20~30', '-∞~20', '30~+∞', 'unknown'])
    const [, mid, low, high, unknown] = res.body.rows
    expect(converted(mid)).toEqual([
      [2, 0, 1, 1],
      [2, 0, 1, 1],
      [2, 0, 1, 1],
    ])
    expect(converted(low)).toEqual([
      [1, 1, 0, 1],
      [1, 1, 0, 0],
      [1, 1, 0, 0],
    ])
    expect(converted(high)).toEqual([
      [1, 0, 1, 0],
      [1, 0, 1, 0],
      [0, 0, 0, 0],
    ])
    expect(converted(unknown)).toEqual([
      [1, 1, 0, 1],
      [1, 0, 0, 1],
      [0, 0, 0, 0],
    ])
  })

  it('applies a step\'s filter to that step and the global filter to every step', async () => {
    const priced = await analyze({
      ...base,
      steps: [{ expression: 'event.view', filter: { conditions: [{ expression: 'event.view.price', function: 'GTE', params: [10] }] } }, steps[1], steps[2]],
    })
    expect(converted(priced.body.rows[0])).toEqual([
      [4, 1, 1, 3],
      [4, 1, 1, 2],
      [2, 1, 0, 1],
    ])
    const adults = await analyze({ ...base, filter: { conditions: [{ expression: 'user.age', function: 'GTE', params: [20] }], relation: 'AND' } })
    expect(converted(adults.body.rows[0])).toEqual([
      [3, 0, 2, 1],
      [3, 0, 2, 1],
      [2, 0, 1, 1],
    ])
  })

  it('takes a virtual event as a step, with its members\' filters', async () => {
    // shop = view with price >= 10, or cart
    const res = await analyze({ ...base, steps: [{ expression: 'event.shop' }, { expression: 'event.pay' }] })
    expect(res.body.stepEvents).toEqual(['event.shop', 'event.pay'])
    expect(converted(res.body.rows[0])).toEqual([
      [5, 2, 2, 3],
      [4, 1, 2, 1],
    ])
    // c enters at its 08:00 view (pay 1 s late) and again at its 09:00 cart (82801 s): the later entry counts
    expect(medians(res.body.rows[0])).toEqual([[82800.5, 82800, 84600.5, 21600]])
    expect(res.body.rows[0].medianConvertedTime[0].stepsExpress).toBe('event.shop~event.pay')
  })

  it('gates each step by its own filter when steps name the same event, and ORs a virtual event\'s members of one event', async () => {
    // view with price >= 20, then any later view: only e goes on (01-03 20:00 -> 01-04 03:00, 7 h)
    const priced = await analyze({ ...base, steps: [{ expression: 'event.view', filter: { conditions: [{ expression: 'event.view.price', function: 'GTE', params: [20] }] } }, steps[0]] })
    expect(converted(priced.body.rows[0])).toEqual([
      [4, 1, 1, 3],
      [1, 0, 0, 1],
    ])
    expect(medians(priced.body.rows[0])).toEqual([[25200, null, null, 25200]])
    const created = await host.server.call('POST', '/uba/api/meta/event/virtual', {
      headers: p,
      body: {
        id: 'extremes',
        name: 'Extremes',
        events: [
          { expression: 'event.view', filter: { conditions: [{ expression: 'event.view.price', function: 'GTE', params: [50] }] } },
          { expression: 'event.view', filter: { conditions: [{ expression: 'event.view.price', function: 'LT', params: [10] }] } },
        ],
      },
    })
    expect(created.status).toBe(200)
    // views priced >= 50 or < 10: b (5), c (50), d (1, 60), e (100); b pays 86400 s later, e 21600 s, c 1 s too late
    const extremes = await analyze({ ...base, steps: [{ expression: 'event.extremes' }, steps[2]] })
    expect(converted(extremes.body.rows[0])).toEqual([
      [4, 1, 2, 2],
      [2, 0, 1, 1],
    ])
    expect(medians(extremes.body.rows[0])).toEqual([[54000, null, 86400, 21600]])
  })

  it('lets steps share a moment and an event, each step taking a different event', async () => {
    const tie = (body: Record<string, unknown>) => analyze({ ...base, toDate: '2024-01-01', ...body }, '', ties)
    const twice = await tie({ steps: [{ expression: 'event.view' }, { expression: 'event.view' }] })
    expect(converted(twice.body.rows[0])).toEqual([
      [3, 3],
      [1, 1],
    ])
    expect(medians(twice.body.rows[0])).toEqual([[0, 0]])
    const paid = await tie({ steps: [{ expression: 'event.view' }, { expression: 'event.pay' }] })
    expect(converted(paid.body.rows[0])).toEqual([
      [3, 3],
      [1, 1],
    ])
    const anything = await tie({ steps: [{ expression: 'event.view' }, { expression: 'event.$Anything' }] })
    expect(converted(anything.body.rows[0])).toEqual([
      [3, 3],
      [2, 2],
    ])
  })

  const breakdowns = [
    {},
    { byField: { expression: 'event.view.city' } },
    { byField: { expression: 'event.view.tags' } },
    { byField: { expression: 'event.pay.method' }, byStepIndex: 2 },
    { byField: { expression: 'user.age', buckets: [20, 30] } },
    { steps: [{ expression: 'event.shop' }, { expression: 'event.pay' }], convertTime: 2 },
  ]

  it('gives the same answer when it follows the users in parts, each part with labels of its own', async () => {
    const whole = await Promise.all(breakdowns.map((b) => analyze({ ...base, ...b })))
    setSetting(host.server.app.ctx.meta, 'analysis.funnel.eventsPerPart', '4')
    try {
      const res = await analyze({ ...base, ...breakdowns[1] }, '?explain=true')
      // 19 events of 5 users in parts of at most 4 events: 5 parts, one user each
      expect(res.body.sql).toHaveLength(1 + 5)
      for (const [i, b] of breakdowns.entries()) {
        const parted = await analyze({ ...base, ...b })
        expect(parted.status).toBe(200)
        expect(parted.body.rows).toEqual(whole[i].body.rows)
        expect(parted.body.byValues).toEqual(whole[i].body.byValues)
      }
      // a value that is not a number reads as the default: one part here
      setSetting(host.server.app.ctx.meta, 'analysis.funnel.eventsPerPart', 'lots')
      expect((await analyze(base, '?explain=true')).body.sql).toHaveLength(2)
    } finally {
      setSetting(host.server.app.ctx.meta, 'analysis.funnel.eventsPerPart', '2000000')
    }
  })

  it('gives the same answer whatever order the events were stored in', async () => {
    const reversed = await host.project('fnrev', 'Asia/Shanghai')
    const job = await importAndWait(host.server, reversed, { path: fixture('fn-rev.jsonl', [...lines].reverse().join('\n')) })
    expect(job.state).toBe('succeeded')
    for (const b of breakdowns.slice(0, 5)) {
      const forward = await analyze({ ...base, ...b })
      const backward = await analyze({ ...base, ...b }, '', reversed)
      expect(backward.body.rows).toEqual(forward.body.rows)
    }
  })

  it('counts every user of a larger project followed in parts, each user\'s events stored out of order', async () => {
    // 40,000 users, about 2.4 events each, in two parts of at most 50,000 events. User i views at
    // 10:00 + (i mod 600) s; if i mod 4 > 0 they add to the cart 60 + (i mod 3) s later, and if
    // i mod 8 = 1 they pay 60 s after that; if i mod 4 = 0 their cart comes 30 s before the view
    // (no conversion). Carts are written first, so every user's events are stored out of order.
    const big = await host.project('fnbig', 'Asia/Shanghai')
    const at = (seconds: number) => sh('2024-01-01 10:00:00') + seconds * 1000
    const carts: string[] = []
    const others: string[] = []
    for (let i = 0; i < 40_000; i++) {
      const view = i % 600
      const cart = i % 4 === 0 ? view - 30 : view + 60 + (i % 3)
      carts.push(JSON.stringify({ xwho: `u${i}`, xwhat: 'cart', xwhen: at(cart), xcontext: {} }))
      others.push(JSON.stringify({ xwho: `u${i}`, xwhat: 'view', xwhen: at(view), xcontext: {} }))
      if (i % 8 === 1) others.push(JSON.stringify({ xwho: `u${i}`, xwhat: 'pay', xwhen: at(cart + 60), xcontext: {} }))
    }
    const job = await importAndWait(host.server, big, { path: fixture('fn-big.jsonl', [...carts, ...others].join('\n')) })
    expect(job.state).toBe('succeeded')
    const body = { ...base, toDate: '2024-01-01' }
    setSetting(host.server.app.ctx.meta, 'analysis.funnel.eventsPerPart', '50000')
    try {
      const res = await analyze(body, '?explain=true', big)
      expect(res.status).toBe(200)
      expect(res.body.sql).toHaveLength(1 + 2)
      const [total] = res.body.rows
      // 30,000 carts after a view; 5,000 pays
      expect(converted(total)).toEqual([[40_000, 40_000], [30_000, 30_000], [5_000, 5_000]])
      // cart delays 60/61/62 s for 10,000 users each: the middle is 61; pays all 60 s after
      expect(medians(total)).toEqual([[61, 61], [60, 60]])
    } finally {
      setSetting(host.server.app.ctx.meta, 'analysis.funnel.eventsPerPart', '2000000')
    }
  })

  it('defaults the window to 7 days', async () => {
    const { convertTime: _t, convertTimeUnit: _u, ...rest } = base
    const res = await analyze(rest)
    const week = await analyze({ ...base, convertTime: 7 })
    expect(res.body.rows).toEqual(week.body.rows)
  })

  const cond = (expression: string, fn: string, params: unknown[] = []) => ({ conditions: [{ expression, function: fn, params }] })
  it.each([
    [{ steps: undefined }, ['steps']],
    [{ steps: 'event.view' }, ['steps']],
    [{ steps: [{ expression: 'event.view' }] }, ['steps']],
    [{ steps: [steps[0], 'event.cart'] }, ['steps[1]']],
    [{ steps: [steps[0], { expression: 'event.nope' }] }, ['steps[1].expression']],
    [{ steps: [{ filter: null }, steps[1]] }, ['steps[0].expression']],
    [{ steps: [steps[0], { expression: 'event.cart', filter: cond('event.cart.nope', 'EQ', ['x']) }] }, ['steps[1].filter.conditions[0].expression']],
    [{ steps: [{ expression: 'event.view', filter: cond('event.view.price', 'CONTAIN', ['1']) }, steps[1]] }, ['steps[0].filter.conditions[0].function']],
    [{ steps: [steps[0], { expression: 'event.cart', filter: cond('event.pay.method', 'EQ', ['card']) }] }, ['steps[1].filter.conditions[0].expression']],
    [{ filter: cond('event.view.price', 'CONTAIN', ['1']) }, ['filter.conditions[0].function']],
    [{ convertTime: 0 }, ['convertTime']],
    [{ convertTime: 1.5 }, ['convertTime']],
    [{ convertTime: 366 }, ['convertTime']],
    [{ convertTimeUnit: 'WEEK' }, ['convertTimeUnit']],
    [{ convertTimeUnit: undefined }, ['convertTimeUnit']],
    [{ convertTime: undefined }, ['convertTime']],
    [{ byStepIndex: 1 }, ['byStepIndex']],
    [{ byStepIndex: 3, byField: { expression: 'event.pay.method' } }, ['byStepIndex']],
    [{ byStepIndex: -2, byField: { expression: 'event.view.city' } }, ['byStepIndex']],
    [{ byStepIndex: 1, byField: { expression: 'user.age' } }, ['byStepIndex']],
    [{ byStepIndex: 'first', byField: { expression: 'event.view.city' } }, ['byStepIndex']],
    [{ convertTime: 'seven' }, ['convertTime']],
    [{ byStepIndex: 0, byField: { expression: 'event.pay.method' } }, ['byField.expression']],
    [{ byField: { expression: 'event.pay.method' } }, ['byField.expression']],
    [{ byField: { expression: 'event.view.nope' } }, ['byField.expression']],
    [{ byField: { expression: 'event.view.city', buckets: [1, 2] } }, ['byField.buckets']],
    [{ crowds: undefined }, ['crowds']],
    [{ crowds: ['vip'] }, ['crowds[0]']],
    [{ crowds: ['$ALL', '$ALL'] }, ['crowds']],
    [{ fromDate: undefined }, ['fromDate']],
    [{ fromDate: '2024-02-30' }, ['fromDate']],
    [{ toDate: '2023-12-01' }, ['toDate']],
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
