import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fixture, footprint, importAndWait, newProject, warehouseRows } from '../helpers/ingest'
import { startTestServer, type TestServer } from '../helpers/server'

let s: TestServer
let app: { appKey: string; token: string }

beforeAll(async () => {
  s = await startTestServer()
  app = await newProject(s, 'sdk', 'UTC')
})
afterAll(() => s.stop())

const rec = (xwho: string, xwhat: string, xwhen: number, xcontext: Record<string, unknown> = {}) => JSON.stringify({ appid: 'sdk', xwho, xwhat, xwhen, xcontext })

describe('SDK records (JSON lines)', () => {
  it('applies profile operations in time order, whatever the order in the file', async () => {
    const lines = [
      rec('p1', '$profile_set', 6000, { city: 'Bergen' }),
      rec('p1', '$profile_set', 1000, { age: 30, city: 'Oslo', vip: false, tags: ['a'], $lib: 'Android' }),
      rec('p2', '$profile_delete', 2000),
      rec('p1', '$profile_append', 4000, { tags: ['b', 'c'] }),
      rec('p1', '$profile_set_once', 2000, { age: 99, signup: '2024-01-01 10:00:00', nickname: 'pp' }),
      rec('p3', '$profile_set_once', 1000, { nickname: 'q' }),
      rec('p1', '$profile_increment', 3000, { age: 2, score: 5 }),
      rec('p2', '$profile_set', 1000, { age: 40 }),
      rec('p1', '$profile_unset', 5000, { city: '' }),
      rec('p3', '$profile_set_once', 2000, { nickname: 'r' }),
      rec('p1', 'login', 7000, { $platform: 'iOS', screen: 'home', $debug: 0 }),
      rec('p1', 'login', 8000, { $platform: 'iOS', screen: 'home', $debug: 1 }),
    ]
    const job = await importAndWait(s, app, { path: fixture('profiles.jsonl', lines.join('\n') + '\n') })
    expect(job).toMatchObject({ state: 'succeeded', rowsRead: 12, rowsRejected: 0 })
    expect(job.result).toMatchObject({ eventsWritten: 1, debugSkipped: 1 })
    const profiles = await warehouseRows(s, 'sdk', `SELECT xwho, age, city, vip, tags, strftime(signup, '%Y-%m-%d %H:%M:%S') AS signup, nickname, score, "$lib" AS lib FROM profile_vd ORDER BY xwho`)
    expect(profiles).toEqual([
      { xwho: 'p1', age: 32, city: 'Bergen', vip: false, tags: ['a', 'b', 'c'], signup: '2024-01-01 10:00:00', nickname: 'pp', score: 5, lib: 'Android' },
      { xwho: 'p3', age: null, city: null, vip: null, tags: null, signup: null, nickname: 'q', score: null, lib: null },
    ])
  })

  it('types new user properties from their values, and puts the same distinct_id on events and profiles', async () => {
    const types = s.app.ctx.meta.prepare("SELECT id, data_type FROM plan_user_properties WHERE app_key = 'sdk' AND preset = 0 ORDER BY id").all()
    expect(types).toEqual([
      { id: 'age', data_type: 'number' },
      { id: 'city', data_type: 'string' },
      { id: 'nickname', data_type: 'string' },
      { id: 'score', data_type: 'number' },
      { id: 'signup', data_type: 'datetime' },
      { id: 'tags', data_type: 'array<string>' },
      { id: 'vip', data_type: 'boolean' },
    ])
    const ids = await warehouseRows(s, 'sdk', "SELECT e.distinct_id = p.distinct_id AS same FROM event_vd e JOIN profile_vd p USING (xwho) WHERE xwho = 'p1'")
    expect(ids).toEqual([{ same: true }])
    const platform = s.app.ctx.meta.prepare("SELECT platform FROM plan_events WHERE app_key = 'sdk' AND id = 'login'").pluck().get()
    expect(platform).toBe('iOS')
  })

  it('rejects each bad record with its line number and reason, and keeps the good ones', async () => {
    const wide = Object.fromEntries(Array.from({ length: 301 }, (_, i) => [`k${i}`, 1]))
    const lines = [
      rec('ok1', 'view', 1000, { screen: 'a' }),
      'not json',
      '',
      '[1,2]',
      JSON.stringify({ xwho: 5, xwhat: 'view', xwhen: 1000 }),
      JSON.stringify({ xwho: 'a', xwhat: 'view', xwhen: 'soon' }),
      JSON.stringify({ xwho: 'a', xwhat: 'view', xwhen: 1000, xcontext: 'text' }),
      rec('a', 'view', 1000, { 'bad-key': 1 }),
      rec('a', 'view', 1000, { ds: 1 }),
      rec('a', 'view', 1000, wide),
      rec('a', 'view', 1000, { labels: Array.from({ length: 101 }, (_, i) => `l${i}`) }),
      rec('a', 'view', 1000, { labels: ['x'.repeat(256)] }),
      rec('a', 'view', 1000, { screen: 7 }),
      rec('a', 'view', 1000, { screen: { nested: true } }),
      rec('ok2', 'view', 2000, { screen: 'b', labels: ['y'] }),
    ]
    const before = await footprint(s, 'sdk')
    const aborted = await importAndWait(s, app, { path: fixture('bad.jsonl', lines.join('\n')) })
    expect(aborted.state).toBe('failed')
    expect(await footprint(s, 'sdk')).toEqual(before)

    const job = await importAndWait(s, app, { path: fixture('bad.jsonl', lines.join('\n')), onError: 'skip' })
    expect(job).toMatchObject({ state: 'succeeded', rowsRead: 14, rowsRejected: 12, rowsWritten: 2 })
    expect(job.rejected.map((r: any) => `${r.row} ${r.property} ${r.reason}`)).toEqual([
      '2 record is not valid JSON',
      '4 record is not a JSON object',
      '5 xwho must be a string',
      '6 xwhen is not a time (epoch ms or s, ISO 8601, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd)',
      '7 xcontext must be an object',
      '8 xcontext has a property id that is not letters, digits and _ (optionally after $) or is longer than 125 characters',
      '9 xcontext uses a reserved id (distinct_id, xwho, xwhat, xwhen, ds) as a property',
      '10 xcontext has more than 300 properties',
      '11 labels has more than 100 items',
      '12 labels has an item longer than 255 characters',
      '13 screen is not a string',
      '14 screen is not a string',
    ])
    expect(job.rejected[0].value).toBe('not json')
    expect(await warehouseRows(s, 'sdk', "SELECT xwho, screen, labels FROM event_vd WHERE xwhat = 'view' ORDER BY xwho")).toEqual([
      { xwho: 'ok1', screen: 'a', labels: null },
      { xwho: 'ok2', screen: 'b', labels: ['y'] },
    ])
  })

  it('types each new property by its first 1,000 values, however far into the file they are', async () => {
    const project = await newProject(s, 'infer', 'UTC')
    const lines = Array.from({ length: 25_000 }, (_, i) =>
      rec(`u${i % 50}`, 'tick', 1000 + i, {
        n: i,
        // past the first 20,000 lines only
        ...(i >= 21_000 ? { late: i % 2 === 0 } : {}),
        // 4 values among the first 20,000 lines, a fifth after them
        ...(i % 5000 === 0 ? { sparse: `s${i}` } : {}),
        // 1,000 numbers, then text: the numbers decide, the text is rejected
        ...(i < 1000 ? { count: i } : i < 1010 ? { count: 'many' } : {}),
      }),
    )
    const job = await importAndWait(s, project, { path: fixture('infer.jsonl', lines.join('\n')), onError: 'skip' })
    expect(job).toMatchObject({ state: 'succeeded', rowsRead: 25_000, rowsRejected: 10 })
    expect(job.rejected[0]).toMatchObject({ row: 1001, property: 'count' })
    const types = await warehouseRows(s, 'infer', `SELECT column_name AS c, data_type AS t FROM information_schema.columns WHERE table_name = 'event_vd' AND column_name IN ('n', 'late', 'sparse', 'count') ORDER BY c`)
    expect(types).toEqual([
      { c: 'count', t: 'DOUBLE' },
      { c: 'late', t: 'BOOLEAN' },
      { c: 'n', t: 'DOUBLE' },
      { c: 'sparse', t: 'VARCHAR' },
    ])
  })

  it('folds upper-case property ids to lower case', async () => {
    await importAndWait(s, app, { path: fixture('case.jsonl', rec('c1', 'tap', 1000, { Button_Name: 'ok' })) })
    expect(await warehouseRows(s, 'sdk', "SELECT button_name FROM event_vd WHERE xwho = 'c1'")).toEqual([{ button_name: 'ok' }])
  })
})

describe('JSON arrays and gzip', () => {
  it('reads a JSON array of records, gzipped', async () => {
    const array = JSON.stringify([JSON.parse(rec('g1', 'open', 1000)), JSON.parse(rec('g2', 'open', 2000))])
    const job = await importAndWait(s, app, { path: fixture('batch.json.gz', gzipSync(array)) })
    expect(job).toMatchObject({ state: 'succeeded', rowsRead: 2, rowsWritten: 2, format: 'json' })
  })

  it('reads a plain JSON array, pretty-printed, and rejects the items that are not records', async () => {
    const array = JSON.stringify([JSON.parse(rec('a1', 'open', 1000)), 7, JSON.parse(rec('a2', 'open', 2000))], null, 2)
    const preview = await s.call('POST', '/uba/api/import/preview', { headers: app, body: { path: fixture('batch.json', array) } })
    expect(preview.status).toBe(200)
    expect(preview.body).toMatchObject({ format: 'json', kind: 'records', rowsChecked: 3, rowsRejected: 1, problems: [{ row: 2, property: 'record', value: '7', reason: 'is not a JSON object' }] })
    const job = await importAndWait(s, app, { path: fixture('batch.json', array), onError: 'skip' })
    expect(job).toMatchObject({ state: 'succeeded', rowsRead: 3, rowsRejected: 1, rowsWritten: 2 })
    expect(await warehouseRows(s, 'sdk', "SELECT xwho FROM event_vd WHERE xwho IN ('a1', 'a2') ORDER BY xwho")).toEqual([{ xwho: 'a1' }, { xwho: 'a2' }])
  })

  it('refuses a JSON array cut short with 400 naming file, and its import writes nothing', async () => {
    const file = fixture('cut.json', `[${rec('k1', 'open', 1000)}, {"xwho": "k2", "xw`)
    const preview = await s.call('POST', '/uba/api/import/preview', { headers: app, body: { path: file } })
    expect(preview.status).toBe(400)
    expect(preview.body.data).toEqual(['file'])
    expect(preview.body.msg).toMatch(/^the file could not be read as JSON: Malformed JSON/)
    const before = await footprint(s, 'sdk')
    expect(await importAndWait(s, app, { path: file, onError: 'skip' })).toMatchObject({ state: 'failed', rowsWritten: 0, error: preview.body.msg })
    expect(await footprint(s, 'sdk')).toEqual(before)
  })

  it('reads gzipped JSON lines', async () => {
    const job = await importAndWait(s, app, { path: fixture('lines.jsonl.gz', gzipSync([rec('g3', 'open', 1000), rec('g4', 'open', 1000)].join('\n'))) })
    expect(job).toMatchObject({ state: 'succeeded', rowsRead: 2, rowsWritten: 2 })
  })

  it('fails a truncated gzip file whole, whatever onError says, and writes nothing', async () => {
    const gz = gzipSync(Array.from({ length: 200 }, (_, i) => rec(`t${i}`, 'open', 1000 + i)).join('\n'))
    const before = await footprint(s, 'sdk')
    for (const onError of ['abort', 'skip']) {
      const job = await importAndWait(s, app, { path: fixture('cut.jsonl.gz', gz.subarray(0, gz.length - 30)), onError })
      expect(job.state).toBe('failed')
      expect(job.error).toBe('the gzip file is damaged or truncated (unexpected end of file)')
    }
    expect(await footprint(s, 'sdk')).toEqual(before)
  })
})
