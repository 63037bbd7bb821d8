import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fixture, importAndWait, newProject, warehouseRows } from '../helpers/ingest'
import { startTestServer, type TestServer } from '../helpers/server'

// The import reads JSON values by the first character of their text and checks a record's shape
// only when its keys leave doubt; these cases pin what that must still read and reject.

let s: TestServer
let app: { appKey: string; token: string }

beforeAll(async () => {
  s = await startTestServer()
  app = await newProject(s, 'readers', 'UTC')
})
afterAll(() => s.stop())

const line = (record: Record<string, unknown>) => JSON.stringify({ appid: 'readers', ...record })
const problems = (job: any) => job.rejected.map((r: any) => `${r.row} ${r.property} ${r.value} ${r.reason}`)

describe('JSON values read by their text', () => {
  it('unescapes strings, reads every number form and treats JSON null as absent', async () => {
    const lines = [
      line({ xwho: 'q"1', xwhat: 'tap', xwhen: 1000, xcontext: { label: 'a "quoted" \\ one', n: 1e2, ok: true } }),
      '{"xwho":"\\u00e9t\\u00e9","xwhat":"tap","xwhen":2000,"xcontext":{"label":"caf\\u00e9","n":-0.5,"ok":false}}',
      line({ xwho: 'plain', xwhat: 'tap', xwhen: 3000, xcontext: { label: null, n: 12345678901234567890, ok: null } }),
      '   ',
      line({ xwho: 'empty', xwhat: 'tap', xwhen: 4000, xcontext: {} }),
      line({ xwho: 'none', xwhat: 'tap', xwhen: '1970-01-01 00:00:05' }),
      line({ xwho: 'nullctx', xwhat: 'tap', xwhen: 6000, xcontext: null }),
    ]
    const job = await importAndWait(s, app, { path: fixture('values.jsonl', lines.join('\n')) })
    expect(job).toMatchObject({ state: 'succeeded', rowsRead: 6, rowsRejected: 0, rowsWritten: 6 })
    expect(await warehouseRows(s, 'readers', "SELECT xwho, epoch_ms(xwhen) AS ms, label, n, ok FROM event_vd WHERE xwhat = 'tap' ORDER BY xwhen")).toEqual([
      { xwho: 'q"1', ms: 1000, label: 'a "quoted" \\ one', n: 100, ok: true },
      { xwho: 'été', ms: 2000, label: 'café', n: -0.5, ok: false },
      { xwho: 'plain', ms: 3000, label: null, n: 12345678901234567000, ok: null },
      { xwho: 'empty', ms: 4000, label: null, n: null, ok: null },
      { xwho: 'none', ms: 5000, label: null, n: null, ok: null },
      { xwho: 'nullctx', ms: 6000, label: null, n: null, ok: null },
    ])
  })

  it('rejects values of another JSON kind than the property, whatever their text looks like', async () => {
    const lines = [
      line({ xwho: 'r1', xwhat: 'tap', xwhen: 1000, xcontext: { n: '12' } }),
      line({ xwho: 'r2', xwhat: 'tap', xwhen: 1000, xcontext: { ok: 'true' } }),
      line({ xwho: 'r3', xwhat: 'tap', xwhen: 1000, xcontext: { label: 12 } }),
      line({ xwho: 'r4', xwhat: 'tap', xwhen: 1000, xcontext: { label: ['x'] } }),
      line({ xwho: 'r5', xwhat: 'tap', xwhen: '1000', xcontext: {} }),
      line({ xwho: 'r6', xwhat: 'tap', xwhen: ' 1704067200000', xcontext: {} }),
      '{"xwho":"r7","xwhat":"tap","xwhen":1500.5}',
      line({ xwho: 'r8', xwhat: 7, xwhen: 1000, xcontext: { label: 'x' } }),
      line({ xwho: 'r9', xwhat: 'tap', xwhen: 1000, xcontext: [{ label: 'x' }] }),
      line({ xwho: 'ok', xwhat: 'tap', xwhen: 1000, xcontext: { n: 1 } }),
    ]
    const job = await importAndWait(s, app, { path: fixture('kinds.jsonl', lines.join('\n')), onError: 'skip' })
    expect(job).toMatchObject({ state: 'succeeded', rowsRead: 10, rowsRejected: 9, rowsWritten: 1 })
    expect(problems(job)).toEqual([
      '1 n "12" is not a number',
      '2 ok "true" is not a boolean',
      '3 label 12 is not a string',
      '4 label ["x"] is not a string',
      // epoch text of 4 digits is neither ms nor s
      '5 xwhen 1000 is not a time (epoch ms or s, ISO 8601, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd)',
      // JSON text is not trimmed, and a fractional number is no epoch
      '6 xwhen  1704067200000 is not a time (epoch ms or s, ISO 8601, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd)',
      '7 xwhen 1500.5 is not a time (epoch ms or s, ISO 8601, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd)',
      '8 xwhat  is missing',
      '9 xcontext [{"label":"x"}] must be an object',
    ])
  })

  it('routes a profile operation whose event id is written with escapes', async () => {
    const lines = [
      '{"xwho":"esc","xwhat":"\\u0024profile_set","xwhen":1000,"xcontext":{"tier":"gold"}}',
      line({ xwho: 'esc', xwhat: 'tap', xwhen: 2000, xcontext: { label: 'y' } }),
    ]
    const job = await importAndWait(s, app, { path: fixture('escaped.jsonl', lines.join('\n')) })
    expect(job).toMatchObject({ state: 'succeeded', rowsRejected: 0, result: { eventsWritten: 1, profilesChanged: 1 } })
    expect(await warehouseRows(s, 'readers', "SELECT xwho, tier FROM profile_vd WHERE xwho = 'esc'")).toEqual([{ xwho: 'esc', tier: 'gold' }])
    const columns = await warehouseRows(s, 'readers', "SELECT column_name FROM information_schema.columns WHERE table_name = 'event_vd' AND column_name = 'tier'")
    expect(columns).toEqual([])
  })

  it('adds no property that only records without an event id carry', async () => {
    const lines = [line({ xwho: 'k1', xwhen: 1000, xcontext: { orphan: 'x' } }), line({ xwho: 'k2', xwhat: 'tap', xwhen: 1000, xcontext: { label: 'z' } })]
    const job = await importAndWait(s, app, { path: fixture('orphan.jsonl', lines.join('\n')), onError: 'skip' })
    expect(job).toMatchObject({ state: 'succeeded', rowsRejected: 1, rowsWritten: 1 })
    const orphan = s.app.ctx.meta.prepare("SELECT count(*) FROM plan_event_properties WHERE app_key = 'readers' AND id = 'orphan'").pluck().get()
    expect(orphan).toBe(0)
  })

  it('checks the keys of each record when some record has a bad key', async () => {
    const lines = [
      line({ xwho: 'b1', xwhat: 'tap', xwhen: 1000, xcontext: { label: 'fine' } }),
      line({ xwho: 'b2', xwhat: 'tap', xwhen: 1000, xcontext: { label: 'x', xwho: null } }),
      line({ xwho: 'b3', xwhat: 'tap', xwhen: 1000, xcontext: { 'two words': null } }),
    ]
    const job = await importAndWait(s, app, { path: fixture('keys.jsonl', lines.join('\n')), onError: 'skip' })
    expect(job).toMatchObject({ state: 'succeeded', rowsRejected: 2, rowsWritten: 1 })
    expect(job.rejected.map((r: any) => `${r.row} ${r.property} ${r.reason}`)).toEqual([
      '2 xcontext uses a reserved id (distinct_id, xwho, xwhat, xwhen, ds) as a property',
      '3 xcontext has a property id that is not letters, digits and _ (optionally after $) or is longer than 125 characters',
    ])
  })
})

describe('CSV cells', () => {
  it('reads booleans in any case, trims the user and the time, and rejects the rest', async () => {
    const csv = ['u,e,t,flag', ' c1 ,tap, 1704067200000 ,TRUE', 'c2,tap,1704067200000,False', 'c3,tap,1704067200000,yes'].join('\n')
    const job = await importAndWait(s, app, { path: fixture('cells.csv', csv), mapping: { xwho: 'u', xwhat: 'e', xwhen: 't', types: { flag: 'boolean' } }, onError: 'skip' })
    expect(job).toMatchObject({ state: 'succeeded', rowsRejected: 1, rowsWritten: 2 })
    expect(problems(job)).toEqual(['3 flag yes is not a boolean'])
    expect(await warehouseRows(s, 'readers', "SELECT xwho, epoch_ms(xwhen) AS ms, flag FROM event_vd WHERE xwho IN ('c1', 'c2') ORDER BY xwho")).toEqual([
      { xwho: 'c1', ms: 1704067200000, flag: true },
      { xwho: 'c2', ms: 1704067200000, flag: false },
    ])
  })

  it('types a new column by its values in the first 10,000 rows, or in the whole file when it is empty there', async () => {
    const project = await newProject(s, 'csvtypes', 'UTC')
    const rows = Array.from({ length: 12_000 }, (_, i) => {
      const late = i >= 11_000 ? String(i % 2 === 0) : ''
      // numbers in the head; text after it does not change the type and is rejected
      const count = i < 10_000 ? String(i) : i === 10_500 ? 'many' : ''
      return `u${i % 40},tick,${1704067200000 + i},${late},${count},`
    })
    const csv = ['u,e,t,late,count,never', ...rows].join('\n')
    const job = await importAndWait(s, project, { path: fixture('types.csv', csv), mapping: { xwho: 'u', xwhat: 'e', xwhen: 't' }, onError: 'skip' })
    expect(job).toMatchObject({ state: 'succeeded', rowsRejected: 1 })
    expect(problems(job)).toEqual(['10501 count many is not a number'])
    const types = await warehouseRows(s, 'csvtypes', `SELECT column_name AS c, data_type AS t FROM information_schema.columns WHERE table_name = 'event_vd' AND column_name IN ('late', 'count', 'never') ORDER BY c`)
    // a column with no value at all reports nothing
    expect(types).toEqual([
      { c: 'count', t: 'DOUBLE' },
      { c: 'late', t: 'BOOLEAN' },
    ])
  })
})
