import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { importAndWait, fixture, newProject, warehouseRows } from '../helpers/ingest'
import { rawRequest } from '../helpers/raw'
import { EXAMPLES_KEPT, logBatchProblems } from '../../src-main/domain/ingest/problems'
import { eventually, startTestServer, type TestServer } from '../helpers/server'

let s: TestServer
let host: string
let shop: Record<string, string>

beforeAll(async () => {
  s = await startTestServer()
  const p = await newProject(s, 'shop', 'UTC')
  shop = { appKey: p.appKey, token: p.token }
  host = `127.0.0.1:${s.app.port}`
})
afterAll(() => s.stop())

/** What the JS SDK puts in every record's xcontext, profile operations included. */
const PRESETS = { $lib: 'JS', $lib_version: '4.3.2', $platform: 'JS', $is_login: false, $debug: 0, $time_calibrated: true }
const record = (xwho: string | undefined, xwhat: string, xcontext: Record<string, unknown> = {}, xwhen = 1717200000000) => ({
  appid: 'shop',
  ...(xwho === undefined ? {} : { xwho }),
  xwhat,
  xwhen,
  xcontext: { ...PRESETS, ...xcontext },
})
const upload = (records: unknown[]) => rawRequest(s.app.port, 'POST', '/up', { host, 'content-type': 'application/json' }, JSON.stringify(records))
const problems = async (query = '') => (await s.call('GET', `/uba/api/ingest/problems${query}`, { headers: shop })).body
const stream = async (on: boolean) => {
  const x = { xtoken: s.creds.xtoken }
  await s.call('POST', '/uba/manage/enterprise/projects/shop/stream', { headers: x, body: { streamSwitch: on } })
  await eventually(async () => (await s.call('GET', '/uba/manage/enterprise/projects/shop', { headers: x })).body.stream === (on ? 2 : 0))
}

describe('the collector with the real SDK records: nothing is lost silently', () => {
  it('counts uploads refused while the data stream is stopped, with their records and the time', async () => {
    const before = Date.now()
    expect((await upload([record('u1', 'open'), record('u2', 'open')])).status).toBe(503)
    expect((await upload([record('u3', 'open')])).status).toBe(503)
    const log = await problems()
    expect(log.counts).toEqual([
      { kind: 'upload', property: 'appid', reason: 'data stream not started: the whole upload was refused (503)', count: 2, records: 3, lastTime: expect.any(Number) },
    ])
    expect(log.counts[0].lastTime).toBeGreaterThanOrEqual(before)
    expect(log).toMatchObject({ total: 2, examples: [] })
  })

  it('applies $profile_increment and $profile_append with the SDK presets in xcontext, and reports nothing', async () => {
    await stream(true)
    expect((await s.call('DELETE', '/uba/api/ingest/problems', { headers: shop })).body).toEqual({ success: 0 })
    const res = await upload([
      record('u1', '$profile_set', { age: 30, tags: ['a'] }, 1717200000000),
      record('u1', '$profile_increment', { age: 2 }, 1717200001000),
      record('u1', '$profile_increment', { age: 3 }, 1717200002000),
      record('u1', '$profile_append', { tags: ['b', 'c'] }, 1717200003000),
    ])
    expect(res.status).toBe(200)
    // stored counts profile rows changed: the two increments in a row change u1's row once
    expect(res.body).toEqual({ code: 200, received: 4, stored: 3, rejected: 0, debug: 0, problems: [], valuesDropped: 0, dropped: [] })
    expect(await warehouseRows(s, 'shop', 'SELECT xwho, age, tags, "$lib" AS lib, "$is_login" AS is_login FROM profile_vd')).toEqual([
      { xwho: 'u1', age: 35, tags: ['a', 'b', 'c'], lib: 'JS', is_login: false },
    ])
    expect(await problems()).toEqual({ total: 0, lastTime: null, counts: [], examples: [] })
  })

  it('an unset with the SDK presets in xcontext unsets only the properties it names', async () => {
    const res = await upload([record('u9', '$profile_set', { city: 'Oslo' }, 1717200000000), record('u9', '$profile_unset', { city: '' }, 1717200001000)])
    expect(res.body).toMatchObject({ received: 2, rejected: 0, valuesDropped: 0 })
    expect(await warehouseRows(s, 'shop', `SELECT city, "$lib" AS lib, "$platform" AS platform, "$is_login" AS is_login FROM profile_vd WHERE xwho = 'u9'`)).toEqual([
      { city: null, lib: 'JS', platform: 'JS', is_login: false },
    ])
  })

  it('stores an event without a value of the wrong type, and logs what was left out', async () => {
    const res = await upload([
      record('u1', 'buy', { price: 10, item: 'pen' }),
      record('u2', 'buy', { price: 'ten', item: 'ink' }),
    ])
    expect(res.body).toEqual({
      code: 200, received: 2, stored: 2, rejected: 0, debug: 0, problems: [],
      valuesDropped: 1, dropped: [{ row: 2, property: 'price', value: '"ten"', reason: 'is not a number' }],
    })
    expect(await warehouseRows(s, 'shop', "SELECT xwho, price, item FROM event_vd WHERE xwhat = 'buy' ORDER BY xwho")).toEqual([
      { xwho: 'u1', price: 10, item: 'pen' },
      { xwho: 'u2', price: null, item: 'ink' },
    ])
    const log = await problems()
    expect(log.counts).toEqual([{ kind: 'dropped', property: 'price', reason: 'is not a number', count: 1, records: 1, lastTime: expect.any(Number) }])
    expect(log.examples).toEqual([{
      time: log.counts[0].lastTime, kind: 'dropped', property: 'price', value: '"ten"', reason: 'is not a number', lib: 'JS', libVersion: '4.3.2',
      record: JSON.stringify(record('u2', 'buy', { price: 'ten', item: 'ink' })),
    }])
  })

  it('an increment of a property that is not a number leaves that value out, not the record', async () => {
    const res = await upload([record('u1', '$profile_increment', { age: 1, tags: 5 })])
    expect(res.body).toMatchObject({ stored: 1, rejected: 0, valuesDropped: 1, dropped: [{ row: 1, property: 'tags', value: '5', reason: 'is not an array<string>' }] })
    expect(await warehouseRows(s, 'shop', "SELECT age, tags FROM profile_vd WHERE xwho = 'u1'")).toEqual([{ age: 36, tags: ['a', 'b', 'c'] }])
  })

  it('refuses only a record without a usable xwho, and logs it with its SDK', async () => {
    const res = await upload([record(undefined, 'open'), record('u5', 'open', {}, 'yesterday' as unknown as number), record('u6', 'open')])
    expect(res.body).toMatchObject({
      received: 3, stored: 1, rejected: 2, valuesDropped: 0,
      problems: [
        { row: 1, property: 'xwho', value: '', reason: 'is missing' },
        { row: 2, property: 'xwhen', value: 'yesterday', reason: 'is not a time (epoch ms or s, ISO 8601, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd)' },
      ],
    })
    const log = await problems()
    // price and tags left out before, and these two
    expect(log.total).toBe(4)
    expect(log.counts.filter((c: any) => c.kind === 'refused').map((c: any) => [c.property, c.reason, c.count])).toEqual([
      ['xwhen', 'is not a time (epoch ms or s, ISO 8601, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd)', 1],
      ['xwho', 'is missing', 1],
    ])
    expect(log.examples[0]).toMatchObject({ kind: 'refused', property: 'xwhen', lib: 'JS', libVersion: '4.3.2' })
    expect(log.examples[1]).toMatchObject({ kind: 'refused', property: 'xwho', record: JSON.stringify(record(undefined, 'open')) })
    expect((await problems('?limit=1')).examples).toHaveLength(1)
  })

  it('stores a record whose xcontext is not an object or has a key that cannot be a property, noting what was left out', async () => {
    await s.call('DELETE', '/uba/api/ingest/problems', { headers: shop })
    const res = await upload([
      { appid: 'shop', xwho: 'k1', xwhat: 'tap', xwhen: 1717200000000, xcontext: 'oops' },
      record('k2', 'tap', { 'bad-key': 1, xwho: 'k3' }),
    ])
    expect(res.body).toMatchObject({ received: 2, stored: 2, rejected: 0, valuesDropped: 2 })
    expect(res.body.dropped).toEqual([
      { row: 1, property: 'xcontext', value: '"oops"', reason: 'must be an object' },
      { row: 2, property: 'xcontext', value: 'bad-key', reason: 'has a property id that is not letters, digits and _ (optionally after $) or is longer than 125 characters' },
    ])
    expect(await warehouseRows(s, 'shop', "SELECT xwho FROM event_vd WHERE xwhat = 'tap' ORDER BY xwho")).toEqual([{ xwho: 'k1' }, { xwho: 'k2' }])
  })

  it('keeps the counts whole, a few examples per upload, and cuts long records', async () => {
    await s.call('DELETE', '/uba/api/ingest/problems', { headers: shop })
    const long = 'x'.repeat(2000)
    const res = await upload(Array.from({ length: 30 }, (_, i) => record(`v${i}`, 'buy', { price: 'no', note: long })))
    expect(res.body).toMatchObject({ received: 30, stored: 30, valuesDropped: 30 })
    expect(res.body.dropped).toHaveLength(20)
    const log = await problems()
    expect(log.counts).toEqual([{ kind: 'dropped', property: 'price', reason: 'is not a number', count: 30, records: 30, lastTime: expect.any(Number) }])
    expect(log.examples).toHaveLength(10)
    expect(log.examples.every((e: any) => e.record.length === 500)).toBe(true)
  })

  it('file imports still reject a record whose value does not fit, but not for SDK presets on increment', async () => {
    const file = fixture('sdk.json', [
      JSON.stringify(record('f1', '$profile_increment', { age: 1 })),
      JSON.stringify(record('f2', 'buy', { price: 'nope' })),
    ].join('\n'))
    const job = await importAndWait(s, shop, { path: file, onError: 'skip' })
    expect(job).toMatchObject({ state: 'succeeded', rowsRead: 2, rowsRejected: 1, rejected: [{ row: 2, property: 'price', value: '"nope"', reason: 'is not a number' }] })
    expect(await warehouseRows(s, 'shop', "SELECT age FROM profile_vd WHERE xwho = 'f1'")).toEqual([{ age: 1 }])
  })

  it('answers 401 without the project credentials', async () => {
    expect((await s.call('GET', '/uba/api/ingest/problems')).status).toBe(401)
  })
})

describe('the data quality log', () => {
  it(`keeps the newest ${EXAMPLES_KEPT} examples of a project, and every count`, async () => {
    const meta = s.app.ctx.meta
    await s.call('DELETE', '/uba/api/ingest/problems', { headers: shop })
    const example = (i: number) => ({ row: i, kind: 'dropped' as const, property: 'price', value: String(i), reason: 'is not a number', lib: 'JS', libVersion: '1', record: `{"n":${i}}` })
    for (let batch = 0; batch < 3; batch++) {
      const examples = Array.from({ length: 400 }, (_, i) => example(batch * 400 + i))
      logBatchProblems(meta, 'shop', { counts: [{ kind: 'dropped', property: 'price', reason: 'is not a number', count: 400 }], examples }, 1_000 + batch)
    }
    const log = await problems(`?limit=${EXAMPLES_KEPT}`)
    expect(log.counts).toEqual([{ kind: 'dropped', property: 'price', reason: 'is not a number', count: 1200, records: 1200, lastTime: 1002 }])
    expect(log.examples).toHaveLength(EXAMPLES_KEPT)
    expect(log.examples[0].value).toBe('1199')
    expect(log.examples[EXAMPLES_KEPT - 1].value).toBe('200')
    expect(meta.prepare("SELECT count(*) FROM ingest_problems WHERE app_key = 'shop'").pluck().get()).toBe(EXAMPLES_KEPT)
  })

  it('answers 400 naming limit when it is out of range', async () => {
    const res = await s.call('GET', '/uba/api/ingest/problems?limit=5000', { headers: shop })
    expect(res.status).toBe(400)
    expect(res.body.data).toEqual(['limit'])
  })
})
