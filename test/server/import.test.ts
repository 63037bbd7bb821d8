import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fixture, footprint, importAndWait, newProject, warehouseRows } from '../helpers/ingest'
import { startTestServer, type TestServer } from '../helpers/server'

let s: TestServer
let shop: { appKey: string; token: string }

beforeAll(async () => {
  s = await startTestServer()
  shop = await newProject(s, 'shop', 'Asia/Shanghai')
})
afterAll(() => s.stop())

const plan = (table: string, appKey: string, id: string) =>
  s.app.ctx.meta.prepare(`SELECT data_type, plan, data_status FROM ${table} WHERE app_key = ? AND id = ?`).get(appKey, id)

describe('importing a CSV of events', () => {
  // Shanghai is UTC+8 all year: local 2024-01-02 07:30 is 2024-01-01 23:30 UTC
  const csv = [
    'user id,Event,time,Price,paid,Tags,city',
    'u1,view_item,2024-01-02 07:30:00,12.5,true,"[""a"",""b""]",Berlin',
    'u2,pay,1704164645000,99,TRUE,,Paris',
    'u1,pay,1704164645,7.25,false,[],',
    'u3,view_item,2024-01-01T23:30:00Z,0,false,"[""x""]",Rome',
    'u2,view_item,2024-01-03,1e3,false,,Paris',
  ].join('\n')

  it('writes every row with its user, event, time, day and typed properties', async () => {
    const job = await importAndWait(s, shop, { path: fixture('events.csv', csv), mapping: { xwho: 'user id', xwhat: 'Event', xwhen: 'time' } })
    expect(job).toMatchObject({ state: 'succeeded', percent: 100, rowsRead: 5, rowsWritten: 5, rowsRejected: 0, rejected: [], error: null, source: 'events.csv', format: 'csv', kind: 'events' })
    expect(job.result).toEqual({ eventsWritten: 5, profilesChanged: 0, debugSkipped: 0, duplicatesSkipped: 0 })
    const rows = await warehouseRows(s, 'shop', `SELECT xwho, xwhat, epoch_ms(xwhen) AS ms, ds, price, paid, tags, city FROM event_vd ORDER BY xwhen, xwho`)
    expect(rows).toEqual([
      { xwho: 'u1', xwhat: 'view_item', ms: Date.UTC(2024, 0, 1, 23, 30), ds: 20240102, price: 12.5, paid: true, tags: ['a', 'b'], city: 'Berlin' },
      { xwho: 'u3', xwhat: 'view_item', ms: Date.UTC(2024, 0, 1, 23, 30), ds: 20240102, price: 0, paid: false, tags: ['x'], city: 'Rome' },
      { xwho: 'u1', xwhat: 'pay', ms: 1704164645000, ds: 20240102, price: 7.25, paid: false, tags: [], city: null },
      { xwho: 'u2', xwhat: 'pay', ms: 1704164645000, ds: 20240102, price: 99, paid: true, tags: null, city: 'Paris' },
      // a bare date is local midnight: 2024-01-02 16:00 UTC
      { xwho: 'u2', xwhat: 'view_item', ms: Date.UTC(2024, 0, 2, 16), ds: 20240103, price: 1000, paid: false, tags: null, city: 'Paris' },
    ])
  })

  it('stores the events by user, then time, whatever their order in the file (funnels read users in ranges)', async () => {
    const rows = await warehouseRows(s, 'shop', 'SELECT xwho, epoch_ms(xwhen) AS ms FROM event_vd ORDER BY rowid')
    expect(rows).toEqual([
      { xwho: 'u1', ms: Date.UTC(2024, 0, 1, 23, 30) },
      { xwho: 'u1', ms: 1704164645000 },
      { xwho: 'u2', ms: 1704164645000 },
      { xwho: 'u2', ms: Date.UTC(2024, 0, 2, 16) },
      { xwho: 'u3', ms: Date.UTC(2024, 0, 1, 23, 30) },
    ])
  })

  it('gives each user one stable distinct_id, numbered in user order', async () => {
    const rows = await warehouseRows(s, 'shop', 'SELECT DISTINCT xwho, distinct_id FROM event_vd ORDER BY xwho')
    expect(rows).toEqual([
      { xwho: 'u1', distinct_id: 1 },
      { xwho: 'u2', distinct_id: 2 },
      { xwho: 'u3', distinct_id: 3 },
    ])
  })

  it('marks what it saw as reported, outside the plan, with the types it inferred', () => {
    expect(plan('plan_event_properties', 'shop', 'price')).toEqual({ data_type: 'number', plan: 0, data_status: 1 })
    expect(plan('plan_event_properties', 'shop', 'paid')).toEqual({ data_type: 'boolean', plan: 0, data_status: 1 })
    expect(plan('plan_event_properties', 'shop', 'tags')).toEqual({ data_type: 'array<string>', plan: 0, data_status: 1 })
    expect(plan('plan_event_properties', 'shop', 'city')).toEqual({ data_type: 'string', plan: 0, data_status: 1 })
    expect(s.app.ctx.meta.prepare("SELECT plan, data_status FROM plan_events WHERE app_key = 'shop' AND id = 'view_item'").get()).toEqual({ plan: 0, data_status: 1 })
    const links = s.app.ctx.meta.prepare("SELECT property_id FROM plan_event_property_links WHERE app_key = 'shop' AND event_id = 'pay' ORDER BY 1").pluck().all()
    expect(links).toEqual(['city', 'paid', 'price', 'tags'])
  })

  it('holds later files to the types: a value that does not fit rejects its record with row, property, value and reason', async () => {
    const before = await footprint(s, 'shop')
    const file = fixture('more.csv', ['user id,Event,time,Price,paid', 'u4,pay,2024-01-05 10:00:00,12,maybe', 'u5,pay,2024-01-05 11:00:00,twelve,true', 'u6,pay,2024-01-05 12:00:00,3,false'].join('\n'))
    const mapping = { xwho: 'user id', xwhat: 'Event', xwhen: 'time' }
    const aborted = await importAndWait(s, shop, { path: file, mapping })
    expect(aborted).toMatchObject({ state: 'failed', rowsRead: 3, rowsRejected: 2, rowsWritten: 0 })
    expect(aborted.rejected).toEqual([
      { row: 1, property: 'paid', value: 'maybe', reason: 'is not a boolean' },
      { row: 2, property: 'price', value: 'twelve', reason: 'is not a number' },
    ])
    expect(aborted.error).toBe('2 of 3 records do not fit (first: row 1, paid is not a boolean); nothing was imported')
    expect(await footprint(s, 'shop')).toEqual(before)

    const skipped = await importAndWait(s, shop, { path: file, mapping, onError: 'skip' })
    expect(skipped).toMatchObject({ state: 'succeeded', rowsRead: 3, rowsRejected: 2, rowsWritten: 1 })
    expect(await warehouseRows(s, 'shop', "SELECT xwho, price, paid FROM event_vd WHERE xwho IN ('u4', 'u5', 'u6')")).toEqual([{ xwho: 'u6', price: 3, paid: false }])
  })

  it('checks user, event and time of every row', async () => {
    const file = fixture('bad.csv', [
      'who,what,when',
      ',view,2024-01-01',
      `${'w'.repeat(255)},view,2024-01-01`,
      'u1,,2024-01-01',
      'u1,9lives,2024-01-01',
      'u1,view,yesterday',
      'u1,view,2024-13-45 10:00:00',
    ].join('\n'))
    const job = await importAndWait(s, shop, { path: file, mapping: { xwho: 'who', xwhat: 'what', xwhen: 'when' }, onError: 'skip' })
    expect(job.rejected.map((r: any) => [r.row, r.property, r.reason])).toEqual([
      [1, 'xwho', 'is missing'],
      [2, 'xwho', 'is longer than 254 characters'],
      [3, 'xwhat', 'is missing'],
      [4, 'xwhat', 'must be an SDK event id (a letter or $ first, then letters, digits, _ and $, at most 99 characters) or a plan id (letters, digits and _, not a digit first, at most 100 characters)'],
      [5, 'xwhen', 'is not a time (epoch ms or s, ISO 8601, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd)'],
      [6, 'xwhen', 'is not a time (epoch ms or s, ISO 8601, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd)'],
    ])
    expect(job.rowsWritten).toBe(0)
  })

  it('takes one event id for the whole file, renames and leaves out columns, and fixes types', async () => {
    const file = fixture('signups.tsv', ['uid\twhen\tplan code\tnote\tsecret', 'n1\t2024-02-01 09:00:00\t007\thi\tx', 'n2\t2024-02-01 10:00:00\t012\t\ty'].join('\n'))
    const job = await importAndWait(s, shop, {
      path: file,
      format: 'tsv',
      mapping: { xwho: 'uid', event: 'sign_up', xwhen: 'when', properties: { 'plan code': 'plan_code', secret: null }, types: { plan_code: 'string' } },
    })
    expect(job.state).toBe('succeeded')
    const rows = await warehouseRows(s, 'shop', "SELECT xwho, xwhat, plan_code, note FROM event_vd WHERE xwhat = 'sign_up' ORDER BY xwho")
    expect(rows).toEqual([
      { xwho: 'n1', xwhat: 'sign_up', plan_code: '007', note: 'hi' },
      { xwho: 'n2', xwhat: 'sign_up', plan_code: '012', note: null },
    ])
    const columns = await warehouseRows(s, 'shop', "SELECT column_name FROM information_schema.columns WHERE table_name = 'event_vd' AND column_name = 'secret'")
    expect(columns).toEqual([])
  })

  it('leaves out records already stored when asked to de-duplicate', async () => {
    const file = fixture('twice.csv', ['u,e,t,n', 'd1,tap,2024-03-01 10:00:00,1', 'd1,tap,2024-03-01 10:00:00,1', 'd2,tap,2024-03-01 10:00:00,2'].join('\n'))
    const mapping = { xwho: 'u', xwhat: 'e', xwhen: 't' }
    const first = await importAndWait(s, shop, { path: file, mapping, dedupe: true })
    expect(first.result).toMatchObject({ eventsWritten: 2, duplicatesSkipped: 1 })
    const again = await importAndWait(s, shop, { path: file, mapping, dedupe: true })
    expect(again.result).toMatchObject({ eventsWritten: 0, duplicatesSkipped: 3 })
    const plain = await importAndWait(s, shop, { path: file, mapping })
    expect(plain.result).toMatchObject({ eventsWritten: 3, duplicatesSkipped: 0 })
    expect(await warehouseRows(s, 'shop', "SELECT count(*) AS n FROM event_vd WHERE xwhat = 'tap'")).toEqual([{ n: 5 }])
  })
})

describe('progress of a running job', () => {
  it('reports the rows read as soon as the file is read, before the job ends', async () => {
    const rows = 400_000
    const lines = ['u,e,t,n']
    for (let i = 0; i < rows; i++) lines.push(`u${i % 997},view,2024-01-0${1 + (i % 9)} 10:00:00,${i}`)
    const file = fixture('progress.csv', lines.join('\n'))
    const started = await s.call('POST', '/uba/api/import/jobs', { headers: shop, body: { path: file, mapping: { xwho: 'u', xwhat: 'e', xwhen: 't' } } })
    expect(started.status).toBe(200)
    const seen: { phase: string; rowsRead: number }[] = []
    let job: any
    do {
      job = (await s.call('GET', `/uba/api/import/jobs/${started.body.id}`, { headers: shop })).body
      if (job.state === 'running') seen.push({ phase: job.phase, rowsRead: job.rowsRead })
    } while (job.state === 'queued' || job.state === 'running')
    expect(job).toMatchObject({ state: 'succeeded', rowsRead: rows, rowsWritten: rows })
    // while reading nothing is counted yet; checking and writing know every row
    expect(seen.filter((o) => o.phase === 'reading').every((o) => o.rowsRead === 0)).toBe(true)
    const later = seen.filter((o) => o.phase === 'checking' || o.phase === 'writing')
    expect(later.length).toBeGreaterThan(0)
    expect(later.every((o) => o.rowsRead === rows)).toBe(true)
  })
})

describe('time zones', () => {
  it('reads local times in the project zone, across a daylight-saving change', async () => {
    const ny = await newProject(s, 'newyork', 'America/New_York')
    const file = fixture('dst.csv', [
      'u,e,t',
      'a,x,2024-03-09 23:30:00', // EST (UTC-5): 2024-03-10 04:30 UTC
      'a,x,2024-03-10 12:00:00', // EDT (UTC-4): 16:00 UTC
      'a,x,2024-03-10T01:00:00+01:00', // carries its zone: 2024-03-10 00:00 UTC = 2024-03-09 19:00 local
    ].join('\n'))
    await importAndWait(s, ny, { path: file, mapping: { xwho: 'u', xwhat: 'e', xwhen: 't' } })
    const rows = await warehouseRows(s, 'newyork', 'SELECT epoch_ms(xwhen) AS ms, ds FROM event_vd ORDER BY xwhen')
    expect(rows).toEqual([
      { ms: Date.UTC(2024, 2, 10, 0, 0), ds: 20240309 },
      { ms: Date.UTC(2024, 2, 10, 4, 30), ds: 20240309 },
      { ms: Date.UTC(2024, 2, 10, 16, 0), ds: 20240310 },
    ])
  })

  it('gives a large load the local day across both daylight-saving changes of a year', async () => {
    // 100,000 rows: a large load computes the day from the zone's transitions (localDate.ts)
    const ny = await newProject(s, 'newyork2', 'America/New_York')
    const start = Date.UTC(2024, 2, 9) // every 5 minutes from 2024-03-09 00:00 UTC to 2025-02-19
    const ticks = Array.from({ length: 99_990 }, (_, i) => `t${i % 100},tick,${start + i * 300_000}`)
    const edges = [
      Date.UTC(2024, 2, 10, 4, 59, 59, 999), // 23:59:59.999 EST, Mar 9
      Date.UTC(2024, 2, 10, 5), // 00:00 EST, Mar 10
      Date.UTC(2024, 2, 11, 3, 59, 59, 999), // 23:59:59.999 EDT, Mar 10
      Date.UTC(2024, 2, 11, 4), // 00:00 EDT, Mar 11
      Date.UTC(2024, 10, 3, 3, 59, 59, 999), // 23:59:59.999 EDT, Nov 2
      Date.UTC(2024, 10, 3, 4), // 00:00 EDT, Nov 3
      Date.UTC(2024, 10, 4, 4, 59, 59, 999), // 23:59:59.999 EST, Nov 3
      Date.UTC(2024, 10, 4, 5), // 00:00 EST, Nov 4
      Date.UTC(2060, 6, 1, 3), // past the listed years: 23:00 EDT, Jun 30
    ].map((ms) => `e,edge,${ms}`)
    edges.push('e,edge,1969-12-31T12:00:00Z') // before them (epoch ms are positive): 07:00 EST, Dec 31
    const file = fixture('year.csv', ['u,e,t', ...ticks, ...edges].join('\n'))
    const job = await importAndWait(s, ny, { path: file, mapping: { xwho: 'u', xwhat: 'e', xwhen: 't' } })
    expect(job).toMatchObject({ error: null, state: 'succeeded', rowsWritten: 100_000 })
    const edgeDays = await warehouseRows(s, 'newyork2', "SELECT ds FROM event_vd WHERE xwhat = 'edge' ORDER BY xwhen")
    expect(edgeDays.map((r) => r.ds)).toEqual([19691231, 20240309, 20240310, 20240310, 20240311, 20241102, 20241103, 20241103, 20241104, 20600630])
    // a local day holds 12 ticks an hour: 23 hours on Mar 10, 25 on Nov 3, 24 otherwise
    const perDay = await warehouseRows(s, 'newyork2', "SELECT ds, count(*) AS n FROM event_vd WHERE xwhat = 'tick' AND ds IN (20240310, 20240601, 20241103) GROUP BY ds ORDER BY ds")
    expect(perDay).toEqual([{ ds: 20240310, n: 276 }, { ds: 20240601, n: 288 }, { ds: 20241103, n: 300 }])
  })
})
