import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fixture, footprint, importAndWait, newProject, warehouseRows } from '../helpers/ingest'
import { startTestServer, type TestServer } from '../helpers/server'

// Every check a JSON-lines import makes, each broken by one record, against properties whose types
// the plan already knows (from a first import) and one the file brings: the reason, the quoted value
// and the line of each rejected record, the counts, and the rows of the records that load. This pins
// what the checks answer while the way values are read from the records changes.

let s: TestServer
let app: { appKey: string; token: string }

beforeAll(async () => {
  s = await startTestServer()
  app = await newProject(s, 'checks', 'Europe/Oslo')
  const known = [
    rec('k1', 'view', 1000, { name: 'n', price: 1.5, vip: true, signup: '2024-01-01 10:00:00', tags: ['t'] }),
    rec('k1', '$profile_set', 1000, { level: 1, nick: 'k', vip: false, badges: ['b'] }),
  ]
  const job = await importAndWait(s, app, { path: fixture('known.jsonl', known.join('\n')) })
  expect(job).toMatchObject({ state: 'succeeded', rowsRead: 2, rowsRejected: 0 })
})
afterAll(() => s.stop())

const rec = (xwho: unknown, xwhat: unknown, xwhen: unknown, xcontext: Record<string, unknown> = {}) => JSON.stringify({ appid: 'checks', xwho, xwhat, xwhen, xcontext })

describe('every check of a JSON-lines import', () => {
  const wide = Object.fromEntries(Array.from({ length: 301 }, (_, i) => [`k${i}`, 1]))
  const lines = [
    /* 1 */ rec('good1', 'view', 1700000000000, { name: 'plain', price: 2, vip: false, signup: '2024-02-03', tags: ['a', 'b'], fresh: 'new', $platform: 'iOS' }),
    /* 2 */ '{"xwho": "a", ',
    /* 3 */ '"just text"',
    /* 4 */ rec(5, 'view', 1000),
    /* 5 */ JSON.stringify({ xwhat: 'view', xwhen: 1000 }),
    /* 6 */ rec('', 'view', 1000),
    /* 7 */ rec('x'.repeat(255), 'view', 1000),
    /* 8 */ JSON.stringify({ xwho: 'a', xwhen: 1000 }),
    /* 9 */ rec('a', '9lives', 1000),
    /* 10 */ rec('a', 'bad-id', 1000),
    /* 11 */ JSON.stringify({ xwho: 'a', xwhat: 'view' }),
    /* 12 */ rec('a', 'view', 'yesterday'),
    /* 13 */ rec('a', 'view', 1.5),
    /* 14 */ rec('a', 'view', true),
    /* 15 */ JSON.stringify({ xwho: 'a', xwhat: 'view', xwhen: 1000, xcontext: [1] }),
    /* 16 */ rec('a', 'view', 1000, { 'has space': 1 }),
    /* 17 */ rec('a', 'view', 1000, { xwhen: 1 }),
    /* 18 */ rec('a', 'view', 1000, wide),
    /* 19 */ rec('a', 'view', 1000, { name: 7 }),
    /* 20 */ rec('a', 'view', 1000, { name: ['x'] }),
    /* 21 */ rec('a', 'view', 1000, { price: '5' }),
    /* 22 */ rec('a', 'view', 1000, { price: true }),
    /* 23 */ rec('a', 'view', 1000, { vip: 1 }),
    /* 24 */ rec('a', 'view', 1000, { vip: 'true' }),
    /* 25 */ rec('a', 'view', 1000, { signup: 'soon' }),
    /* 26 */ rec('a', 'view', 1000, { signup: 20240101 }),
    /* 27 */ rec('a', 'view', 1000, { tags: 'a' }),
    /* 28 */ rec('a', 'view', 1000, { tags: ['a', 1] }),
    /* 29 */ rec('a', 'view', 1000, { tags: Array.from({ length: 101 }, (_, i) => `t${i}`) }),
    /* 30 */ rec('a', 'view', 1000, { tags: ['y'.repeat(256)] }),
    /* 31 */ rec('a', 'view', 1000, { fresh: 3 }),
    /* 32 */ rec('a', 'view', 1000, { name: { nested: 'x' } }),
    /* 33 */ rec('p1', '$profile_set', 1000, { level: 'high' }),
    /* 34 */ rec('p1', '$profile_increment', 1000, { nick: 'x' }),
    /* 35 */ rec('p1', '$profile_append', 1000, { level: 2 }),
    /* 36 */ rec('p1', '$profile_set', 1000, { badges: [3] }),
    /* 37 */ rec('good2', 'buy', '2024-03-04T05:06:07Z', { name: 'quote " and \\ and é', price: -0.25, vip: null, tags: [] }),
    /* 38 */ rec('good2', '$profile_set', 1700000000, { level: 3, nick: 'g\u00e9', vip: true, badges: ['x', 'y'], $lib: 'web' }),
    /* 39 */ rec('good2', '$profile_increment', 1700000001, { level: 2, $lib: 'web' }),
    /* 40 */ rec('good3', '_checkout_v2', '2024-05-06 07:08:09.123', { $debug: 0, name: 'ok', $platform: 'Android' }),
    /* 41 */ rec('dbg', 'view', 1000, { $debug: 1 }),
    /* 42 */ '',
  ]

  // two imports of 42 lines: near a minute when the machine is loaded
  it('rejects each bad record with its line, reason and value, and loads the others, or nothing', { timeout: 180_000 }, async () => {
    const before = await footprint(s, 'checks')
    const aborted = await importAndWait(s, app, { path: fixture('checks.jsonl', lines.join('\n')) })
    expect(aborted).toMatchObject({ state: 'failed', rowsWritten: 0 })
    expect(await footprint(s, 'checks')).toEqual(before)

    const job = await importAndWait(s, app, { path: fixture('checks.jsonl', lines.join('\n')), onError: 'skip' })
    expect(job).toMatchObject({ state: 'succeeded', rowsRead: 41, rowsRejected: 35, rowsWritten: 5 })
    expect(job.result).toMatchObject({ eventsWritten: 3, debugSkipped: 1 })
    expect(job.rejected.map((r: any) => [r.row, r.property, r.value, r.reason])).toEqual(EXPECTED_REJECTED)
  })

  it('stores the values of the records that load exactly', async () => {
    const events = await warehouseRows(s, 'checks', `SELECT xwho, xwhat, epoch_ms(xwhen) AS at, ds, name, price, vip, strftime(signup, '%Y-%m-%d %H:%M:%S') AS signup, tags, fresh, "$platform" AS platform
      FROM event_vd WHERE xwho LIKE 'good%' ORDER BY xwho, xwhen`)
    expect(events).toEqual(EXPECTED_EVENTS)
    const profiles = await warehouseRows(s, 'checks', `SELECT xwho, level, nick, vip, badges, "$lib" AS lib FROM profile_vd WHERE xwho = 'good2'`)
    expect(profiles).toEqual([{ xwho: 'good2', level: 5, nick: 'gé', vip: true, badges: ['x', 'y'], lib: 'web' }])
  })
})

describe('keys that differ only in case', () => {
  it('reads each record by its own key: a file with "NAME" somewhere still reads and checks "name"', async () => {
    const cased = await newProject(s, 'cased', 'UTC')
    const lines = [
      rec('c1', 'view', 1000, { name: 'plain' }),
      rec('c2', 'view', 2000, { NAME: 'upper', name: 'lower' }),
      rec('c3', 'view', 3000, { name: 7 }),
      rec('c4', 'view', 4000, { NAME: 'only upper' }),
    ]
    const job = await importAndWait(s, cased, { path: fixture('cased.jsonl', lines.join('\n')), onError: 'skip' })
    expect(job).toMatchObject({ state: 'succeeded', rowsRead: 4, rowsRejected: 1, rowsWritten: 3 })
    expect(job.rejected.map((r: any) => [r.row, r.property, r.value, r.reason])).toEqual([[3, 'name', '7', 'is not a string']])
    // both fold to the id "name"; in a record that has both, the upper-case key comes first (keys in byte order)
    expect(await warehouseRows(s, 'cased', 'SELECT xwho, name FROM event_vd ORDER BY xwho')).toEqual([
      { xwho: 'c1', name: 'plain' },
      { xwho: 'c2', name: 'upper' },
      { xwho: 'c4', name: 'only upper' },
    ])
  })
})

const EXPECTED_REJECTED: unknown[] = [
  [2, 'record', '{"xwho": "a", ', 'is not valid JSON'],
  [3, 'record', '"just text"', 'is not a JSON object'],
  [4, 'xwho', '5', 'must be a string'],
  [5, 'xwho', '', 'is missing'],
  [6, 'xwho', '', 'is missing'],
  [7, 'xwho', 'x'.repeat(200), 'is longer than 254 characters'],
  [8, 'xwhat', '', 'is missing'],
  [9, 'xwhat', '9lives', 'must be an SDK event id (a letter or $ first, then letters, digits, _ and $, at most 99 characters) or a plan id (letters, digits and _, not a digit first, at most 100 characters)'],
  [10, 'xwhat', 'bad-id', 'must be an SDK event id (a letter or $ first, then letters, digits, _ and $, at most 99 characters) or a plan id (letters, digits and _, not a digit first, at most 100 characters)'],
  [11, 'xwhen', '', 'is not a time (epoch ms or s, ISO 8601, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd)'],
  [12, 'xwhen', 'yesterday', 'is not a time (epoch ms or s, ISO 8601, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd)'],
  [13, 'xwhen', '1.5', 'is not a time (epoch ms or s, ISO 8601, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd)'],
  [14, 'xwhen', 'true', 'is not a time (epoch ms or s, ISO 8601, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd)'],
  [15, 'xcontext', '[1]', 'must be an object'],
  [16, 'xcontext', 'has space', 'has a property id that is not letters, digits and _ (optionally after $) or is longer than 125 characters'],
  [17, 'xcontext', '[xwhen]', 'uses a reserved id (distinct_id, xwho, xwhat, xwhen, ds) as a property'],
  [18, 'xcontext', '301', 'has more than 300 properties'],
  [19, 'name', '7', 'is not a string'],
  [20, 'name', '["x"]', 'is not a string'],
  [21, 'price', '"5"', 'is not a number'],
  [22, 'price', 'true', 'is not a number'],
  [23, 'vip', '1', 'is not a boolean'],
  [24, 'vip', '"true"', 'is not a boolean'],
  [25, 'signup', '"soon"', 'is not a datetime'],
  [26, 'signup', '20240101', 'is not a datetime'],
  [27, 'tags', '"a"', 'is not an array<string>'],
  [28, 'tags', '["a",1]', 'is not an array<string>'],
  [29, 'tags', JSON.stringify(Array.from({ length: 101 }, (_, i) => `t${i}`)).slice(0, 200), 'has more than 100 items'],
  [30, 'tags', `["${'y'.repeat(198)}`, 'has an item longer than 255 characters'],
  [31, 'fresh', '3', 'is not a string'],
  [32, 'name', '{"nested":"x"}', 'is not a string'],
  [33, 'level', '"high"', 'is not a number'],
  [34, 'nick', '"x"', 'is not a number property: only numbers can be incremented'],
  [35, 'level', '2', 'is not an array<string> property: only arrays can be appended to'],
  [36, 'badges', '[3]', 'is not an array<string>'],
]
const EXPECTED_EVENTS: unknown[] = [
  { xwho: 'good1', xwhat: 'view', at: 1700000000000, ds: 20231114, name: 'plain', price: 2, vip: false, signup: '2024-02-03 00:00:00', tags: ['a', 'b'], fresh: 'new', platform: 'iOS' },
  { xwho: 'good2', xwhat: 'buy', at: 1709528767000, ds: 20240304, name: 'quote " and \\ and é', price: -0.25, vip: null, signup: null, tags: [], fresh: null, platform: null },
  { xwho: 'good3', xwhat: '_checkout_v2', at: 1714972089123, ds: 20240506, name: 'ok', price: null, vip: null, signup: null, tags: null, fresh: null, platform: 'Android' },
]
