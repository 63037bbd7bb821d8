import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setSetting } from '../../src-main/domain/platform/settings'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait, newProject } from '../helpers/ingest'
import { startTestServer, type TestServer } from '../helpers/server'

let s: TestServer
let app: { appKey: string; token: string }

const rec = (xwho: string, xwhat: string, xwhen: number, xcontext: Record<string, unknown> = {}) =>
  JSON.stringify({ appid: 'sqlp', xwho, xwhat, xwhen, xcontext: { $lib: 'js', $platform: 'js', ...xcontext } })

/** Raw answer of a SQL endpoint: status, content type and the exact bytes. */
async function raw(path: string, body: unknown, headers: Record<string, string> = app) {
  const res = await fetch(s.url + path, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const bytes = Buffer.from(await res.arrayBuffer())
  return { status: res.status, type: res.headers.get('content-type') ?? '', bytes, text: bytes.toString('utf8') }
}

const query = (sql: string, format?: string, headers = app) => s.call('POST', '/uba/api/sql/query', { headers, body: format ? { sql, format } : { sql } })

beforeAll(async () => {
  s = await startTestServer()
  app = await newProject(s, 'sqlp', 'Asia/Shanghai')
  const events = [
    rec('u1', 'view', Date.UTC(2024, 0, 1, 0, 0, 0), { $os: 'iOS', price: 10.5, note: 'a,b "c"' }),
    rec('u1', 'pay', Date.UTC(2024, 0, 1, 16, 30, 0, 123), { $os: 'iOS', price: 99, note: 'é漢字' }),
    rec('u2', 'view', Date.UTC(2024, 0, 2, 1, 0, 0), { $os: 'Android', note: 'line1\nline2', tags: ['x', 'y'] }),
    rec('u1', '$profile_set', Date.UTC(2024, 0, 1), { city: 'Shanghai' }),
  ]
  const job = await importAndWait(s, app, { path: fixture('sql.jsonl', events.join('\n')) })
  expect(job).toMatchObject({ state: 'succeeded', rowsRejected: 0 })
}, 60_000)
afterAll(() => s.stop())

const EVENTS = 'SELECT xwho, xwhat, xwhen, ds, "$os", price, note FROM event_vd ORDER BY xwhen'

describe('POST /uba/api/sql/query', () => {
  it('answers CSV by default: header, RFC 4180 quoting, CRLF, times in the project time zone', async () => {
    const res = await raw('/uba/api/sql/query', { sql: EVENTS })
    expect(res.status).toBe(200)
    expect(res.type).toMatch(/^text\/csv/)
    expect(res.text).toBe(
      'xwho,xwhat,xwhen,ds,$os,price,note\r\n' +
        'u1,view,2024-01-01 08:00:00,20240101,iOS,10.5,"a,b ""c"""\r\n' +
        'u1,pay,2024-01-02 00:30:00.123,20240102,iOS,99.0,é漢字\r\n' +
        'u2,view,2024-01-02 09:00:00,20240102,Android,,"line1\nline2"\r\n',
    )
  })

  it('answers one JSON array of row objects with format json', async () => {
    const res = await query(EVENTS, 'json')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.body).toEqual([
      { xwho: 'u1', xwhat: 'view', xwhen: '2024-01-01 08:00:00', ds: 20240101, $os: 'iOS', price: 10.5, note: 'a,b "c"' },
      { xwho: 'u1', xwhat: 'pay', xwhen: '2024-01-02 00:30:00.123', ds: 20240102, $os: 'iOS', price: 99, note: 'é漢字' },
      { xwho: 'u2', xwhat: 'view', xwhen: '2024-01-02 09:00:00', ds: 20240102, $os: 'Android', price: null, note: 'line1\nline2' },
    ])
  })

  it('keeps BIGINT exact, writes lists as JSON, and gives repeated names a suffix in JSON', async () => {
    const sql = "SELECT 9007199254740993::BIGINT AS big, 12::BIGINT AS small, ['x', 'y'] AS tags, NULL AS nothing, 1 AS a, 2 AS a, DATE '2024-02-29' AS day"
    const json = await query(sql, 'json')
    expect(json.status).toBe(200)
    expect(json.body).toEqual([{ big: '9007199254740993', small: 12, tags: ['x', 'y'], nothing: null, a: 1, a_1: 2, day: '2024-02-29' }])
    const csv = await raw('/uba/api/sql/query', { sql })
    expect(csv.text).toBe('big,small,tags,nothing,a,a,day\r\n9007199254740993,12,"[""x"",""y""]",,1,2,2024-02-29\r\n')
  })

  it('reads the array<string> property and the profile table, with "$os" quoting and aggregates', async () => {
    const res = await query(`SELECT e."$os" AS os, count(*) AS n, max(p.city) AS city FROM event_vd e LEFT JOIN profile_vd p USING (distinct_id) GROUP BY 1 ORDER BY 1`, 'json')
    expect(res.body).toEqual([
      { os: 'Android', n: 1, city: null },
      { os: 'iOS', n: 2, city: 'Shanghai' },
    ])
    const tags = await query("SELECT tags FROM event_vd WHERE xwho = 'u2'", 'json')
    expect(tags.body).toEqual([{ tags: ['x', 'y'] }])
  })

  it('gives the header alone, or [], for an empty result', async () => {
    expect((await raw('/uba/api/sql/query', { sql: 'SELECT xwho, ds FROM event_vd WHERE false' })).text).toBe('xwho,ds\r\n')
    expect((await query('SELECT xwho FROM event_vd WHERE false', 'json')).body).toEqual([])
  })

  it('writes a UTF-8 byte order mark with csvUtfEncoding=0, and none by default or for JSON', async () => {
    const sql = "SELECT note FROM event_vd WHERE xwhat = 'pay'"
    const marked = await raw('/uba/api/sql/query?csvUtfEncoding=0', { sql })
    expect([...marked.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    expect(marked.bytes.subarray(3).toString('utf8')).toBe('note\r\né漢字\r\n')
    const plain = await raw('/uba/api/sql/query?csvUtfEncoding=1', { sql })
    expect(plain.text).toBe('note\r\né漢字\r\n')
    expect((await raw('/uba/api/sql/query', { sql })).bytes[0]).toBe('n'.charCodeAt(0))
    const json = await raw('/uba/api/sql/query?csvUtfEncoding=0', { sql, format: 'json' })
    expect(json.text).toBe('[{"note":"é漢字"}]')
    const exported = await raw('/uba/api/sql/export?csvUtfEncoding=0', { sql })
    expect([...exported.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    expect((await raw('/uba/api/sql/query?csvUtfEncoding=2', { sql })).status).toBe(400)
  })

  it('accepts the project database (its appKey) and DuckDB\'s names for it, and refuses another project\'s', async () => {
    const other = await newProject(s, 'otherp', 'UTC')
    for (const table of ['sqlp.event_vd', '"sqlp".event_vd', 'SQLP.event_vd', 'sqlp.main.event_vd', 'main.event_vd', 'warehouse.event_vd', 'warehouse.main.event_vd', 'EVENT_VD']) {
      const res = await query(`SELECT count(*) AS n FROM ${table} WHERE "$os" = 'iOS'`, 'json')
      expect({ table, status: res.status, body: res.body }).toEqual({ table, status: 200, body: [{ n: 2 }] })
    }
    const joined = await query('SELECT count(*) AS n FROM sqlp.event_vd e JOIN sqlp.profile_vd p ON p.distinct_id = e.distinct_id', 'json')
    expect(joined.body).toEqual([{ n: 2 }])
    for (const table of ['otherp.event_vd', 'otherp.main.event_vd', 'information_schema.tables', 'temp.main.stage_rows', 'system.main.duckdb_tables']) {
      const res = await query(`SELECT * FROM ${table}`)
      expect({ table, status: res.status, data: res.body.data }).toEqual({ table, status: 400, data: ['sql'] })
      expect(res.body.msg).toMatch(/a table of another project is included/)
    }
    const mixed = await query('SELECT * FROM sqlp.event_vd UNION ALL SELECT * FROM otherp.event_vd')
    expect(mixed.status).toBe(400)
    expect(mixed.body.msg).toMatch(/another project/)
    // the other project sees its own (empty) tables under its own credentials
    expect((await query('SELECT count(*) AS n FROM otherp.event_vd', 'json', other)).body).toEqual([{ n: 0 }])
    expect((await query('SELECT count(*) AS n FROM sqlp.event_vd', 'json', other)).status).toBe(400)
  })

  it('reads dimension tables by name', async () => {
    const created = await s.call('POST', '/uba/api/project/dimensions', {
      headers: app,
      body: { table: 'shops', columns: { shop_id: 'string', label: 'string' }, rows: [{ shop_id: 's1', label: 'First, best' }] },
    })
    expect(created.status).toBe(200)
    expect((await raw('/uba/api/sql/query', { sql: 'SELECT * FROM sqlp.shops' })).text).toBe('shop_id,label\r\ns1,"First, best"\r\n')
  })

  it('answers 400 naming sql, with DuckDB\'s message, for SQL DuckDB rejects', async () => {
    const cases: [string, RegExp][] = [
      ['SELEC 1', /syntax error/i],
      ['SELECT nope FROM event_vd', /nope/],
      ["SELECT 'x'::INTEGER", /Conversion Error/],
      ['SELECT * FROM cohort_missing', /cannot be queried/],
      ['   ', /exactly one statement/],
      ['-- nothing', /exactly one statement/],
    ]
    for (const [sql, msg] of cases) {
      const res = await query(sql)
      expect({ sql, status: res.status, data: res.body.data }).toEqual({ sql, status: 400, data: ['sql'] })
      expect(res.body.msg).toMatch(msg)
    }
    expect((await s.call('POST', '/uba/api/sql/query', { headers: app, body: { format: 'csv' } })).body.data).toEqual(['sql'])
    expect((await s.call('POST', '/uba/api/sql/query', { headers: app, body: { sql: 'SELECT 1', format: 'xml' } })).body.data).toEqual(['format'])
    expect((await s.call('POST', '/uba/api/sql/query', { headers: { ...app, token: 'wrong' }, body: { sql: 'SELECT 1' } })).status).toBe(401)
  })

  it('refuses a result past the row limit setting, and -1 lifts the limit', async () => {
    const meta = s.app.ctx.meta
    try {
      setSetting(meta, 'svcweb.open_api.sqlquery.limit', '2')
      const over = await query(EVENTS)
      expect(over.status).toBe(400)
      expect(over.body.data).toEqual(['sql'])
      expect(over.body.msg).toMatch(/more than 2 rows.*LIMIT.*\/uba\/api\/sql\/export/)
      expect((await query(`${EVENTS} LIMIT 2`, 'json')).body).toHaveLength(2)
      // exports have no row limit
      expect((await raw('/uba/api/sql/export', { sql: EVENTS, format: 'json' })).text.trim().split('\n')).toHaveLength(3)
      setSetting(meta, 'svcweb.open_api.sqlquery.limit', '-1')
      expect((await query('SELECT * FROM range(25000)', 'json')).body).toHaveLength(25000)
    } finally {
      setSetting(meta, 'svcweb.open_api.sqlquery.limit', '10000')
    }
    const big = await query('SELECT * FROM range(10001)')
    expect(big.status).toBe(400)
    expect((await query('SELECT * FROM range(10000)', 'json')).body).toHaveLength(10000)
  })
})

describe('POST /uba/api/sql/export', () => {
  it('streams CSV, the same text as the query endpoint', async () => {
    const res = await raw('/uba/api/sql/export', { sql: EVENTS })
    expect(res.status).toBe(200)
    expect(res.type).toMatch(/^text\/csv/)
    expect(res.text).toBe((await raw('/uba/api/sql/query', { sql: EVENTS })).text)
  })

  it('streams JSON lines, one object per row, no array', async () => {
    const res = await raw('/uba/api/sql/export', { sql: `SELECT xwho, xwhen, "$os" FROM event_vd ORDER BY xwhen`, format: 'json' })
    expect(res.type).toMatch(/^application\/x-ndjson/)
    expect(res.text).toBe(
      '{"xwho":"u1","xwhen":"2024-01-01 08:00:00","$os":"iOS"}\n{"xwho":"u1","xwhen":"2024-01-02 00:30:00.123","$os":"iOS"}\n{"xwho":"u2","xwhen":"2024-01-02 09:00:00","$os":"Android"}\n',
    )
    expect((await raw('/uba/api/sql/export', { sql: 'SELECT 1 WHERE false', format: 'json' })).text).toBe('')
  })

  it('streams a large result in order, every row once', async () => {
    const res = await raw('/uba/api/sql/export', { sql: 'SELECT i, i * 2 AS d FROM range(300000) t(i) ORDER BY i DESC', format: 'json' })
    const lines = res.text.trim().split('\n')
    expect(lines).toHaveLength(300000)
    expect(lines[0]).toBe('{"i":299999,"d":599998}')
    expect(lines[299999]).toBe('{"i":0,"d":0}')
    const csv = await raw('/uba/api/sql/export', { sql: 'SELECT i FROM range(300000) t(i) ORDER BY hash(i)' })
    const values = csv.text.trim().split('\r\n').slice(1).map(Number)
    expect(new Set(values).size).toBe(300000)
  })

  it('answers an error found before the first rows as JSON', async () => {
    const res = await s.call('POST', '/uba/api/sql/export', { headers: app, body: { sql: "SELECT 'x'::INTEGER", format: 'json' } })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ code: 400, data: ['sql'] })
  })
})

/*
 * The same custom SQL on both engines gives the same answer for stored datetimes and booleans:
 * ClickHouse stores xwhen and datetime properties as Int64 epoch ms and booleans as UInt8, and
 * shows a column that is one of them (a bare reference, aliased, under min/max, or through *) as
 * DuckDB does (docs/clickhouse.md, "Custom SQL: datetimes and booleans"). Project in Asia/Shanghai
 * (UTC+8): xwhen shows the local time there; a datetime property shows its wall clock as loaded.
 */
describe.each(ENGINES)('custom SQL datetimes and booleans, on %s', (engine) => {
  const host = useEngine(engine)
  let p: Project
  const ev = (xwho: string, xwhat: string, xwhen: number, xcontext: Record<string, unknown>) => JSON.stringify({ xwho, xwhat, xwhen, xcontext })

  beforeAll(async () => {
    p = await host.project('sqltypes', 'Asia/Shanghai')
    const events = [
      ev('u1', 'pay', Date.UTC(2024, 0, 1, 16, 30, 0, 123), { $platform: 'iOS', paid_at: '2024-03-01 09:30:15.250', vip: true }),
      ev('u2', 'pay', Date.UTC(2024, 0, 2, 1, 0, 0), { $platform: 'Android', paid_at: '2024-03-02 10:00:00', vip: false }),
      ev('u3', 'view', Date.UTC(2024, 0, 2, 2, 0, 0), { $platform: 'iOS' }),
      ev('u1', '$profile_set', Date.UTC(2024, 0, 1), { signup: '2023-12-31 23:59:59', member: true }),
    ]
    const job = await importAndWait(host.server, p, { path: fixture('sqltypes.jsonl', events.join('\n')) })
    expect(job).toMatchObject({ state: 'succeeded', rowsRejected: 0 })
  })

  const run = async (path: string, sql: string, format?: string) => {
    const res = await fetch(host.server.url + path, { method: 'POST', headers: { ...p, 'content-type': 'application/json' }, body: JSON.stringify(format ? { sql, format } : { sql }) })
    const text = await res.text()
    expect(res.status, text).toBe(200)
    return text
  }
  const json = async (sql: string) => JSON.parse(await run('/uba/api/sql/query', sql, 'json'))

  const EVENTS = 'SELECT xwho, xwhen, "$platform", paid_at, vip FROM event_vd ORDER BY xwhen'

  it('shows xwhen in the project zone, a datetime property as loaded, booleans as true/false, NULL as null', async () => {
    expect(await json(EVENTS)).toEqual([
      { xwho: 'u1', xwhen: '2024-01-02 00:30:00.123', $platform: 'iOS', paid_at: '2024-03-01 09:30:15.250', vip: true },
      { xwho: 'u2', xwhen: '2024-01-02 09:00:00', $platform: 'Android', paid_at: '2024-03-02 10:00:00', vip: false },
      { xwho: 'u3', xwhen: '2024-01-02 10:00:00', $platform: 'iOS', paid_at: null, vip: null },
    ])
  })

  it('writes the same CSV on the query and export endpoints, and the same JSON lines', async () => {
    const csv =
      'xwho,xwhen,$platform,paid_at,vip\r\n' +
      'u1,2024-01-02 00:30:00.123,iOS,2024-03-01 09:30:15.250,true\r\n' +
      'u2,2024-01-02 09:00:00,Android,2024-03-02 10:00:00,false\r\n' +
      'u3,2024-01-02 10:00:00,iOS,,\r\n'
    expect(await run('/uba/api/sql/query', EVENTS)).toBe(csv)
    expect(await run('/uba/api/sql/export', EVENTS)).toBe(csv)
    expect((await run('/uba/api/sql/export', EVENTS, 'json')).split('\n')[1]).toBe(
      '{"xwho":"u2","xwhen":"2024-01-02 09:00:00","$platform":"Android","paid_at":"2024-03-02 10:00:00","vip":false}',
    )
  })

  it('converts qualified and aliased references, min/max of them, profile columns, joins, subqueries and UNION ALL', async () => {
    expect(await json('SELECT e.xwhen AS t, e.vip v, e.paid_at FROM event_vd AS e WHERE e.vip IS NOT NULL ORDER BY t')).toEqual([
      { t: '2024-01-02 00:30:00.123', v: true, paid_at: '2024-03-01 09:30:15.250' },
      { t: '2024-01-02 09:00:00', v: false, paid_at: '2024-03-02 10:00:00' },
    ])
    expect(await json('SELECT max(xwhen) AS last, min(paid_at) AS first_paid, max(vip) AS some_vip FROM event_vd')).toEqual([
      { last: '2024-01-02 10:00:00', first_paid: '2024-03-01 09:30:15.250', some_vip: true },
    ])
    expect(await json('SELECT xwho, signup, member FROM profile_vd')).toEqual([{ xwho: 'u1', signup: '2023-12-31 23:59:59', member: true }])
    expect(await json(`SELECT e.xwho, e.xwhen, p.signup, p.member FROM event_vd e JOIN profile_vd p ON p.distinct_id = e.distinct_id ORDER BY e.xwhen`)).toEqual([
      { xwho: 'u1', xwhen: '2024-01-02 00:30:00.123', signup: '2023-12-31 23:59:59', member: true },
    ])
    expect(await json("SELECT t, v FROM (SELECT e.xwhen AS t, vip AS v FROM event_vd e WHERE xwho = 'u2') AS s")).toEqual([{ t: '2024-01-02 09:00:00', v: false }])
    const union = await json("SELECT xwhen AS t, vip FROM event_vd WHERE xwho = 'u1' UNION ALL SELECT xwhen, vip FROM event_vd WHERE xwho = 'u2'")
    expect(union.sort((a: { t: string }, b: { t: string }) => a.t.localeCompare(b.t))).toEqual([
      { t: '2024-01-02 00:30:00.123', vip: true },
      { t: '2024-01-02 09:00:00', vip: false },
    ])
  })

  it('converts the columns * brings, of events, of a join and of a dimension table', async () => {
    const u2 = { distinct_id: 2, xwho: 'u2', xwhat: 'pay', xwhen: '2024-01-02 09:00:00', ds: 20240102, $platform: 'Android', paid_at: '2024-03-02 10:00:00', vip: false }
    expect(await json("SELECT * FROM event_vd WHERE xwho = 'u2'")).toEqual([u2])
    expect(await json("SELECT e.*, p.signup FROM event_vd AS e LEFT JOIN profile_vd AS p ON p.distinct_id = e.distinct_id WHERE e.xwho = 'u2'")).toEqual([{ ...u2, signup: null }])
    const shops = { table: 'shops', relations: ['shop_id'], columns: { shop_id: 'string', open: 'boolean', opened: 'datetime' } }
    const rows = [{ shop_id: 's1', open: true, opened: '2024-03-01 09:30:15.250' }, { shop_id: 's2', open: null, opened: null }, { shop_id: 's3', open: false, opened: '1970-01-01 00:00:00' }]
    expect((await host.server.call('POST', '/uba/api/project/dimensions', { headers: p, body: { ...shops, rows } })).body).toEqual({ success: 0 })
    expect(await run('/uba/api/sql/query', 'SELECT * FROM shops ORDER BY shop_id')).toBe('shop_id,open,opened\r\ns1,true,2024-03-01 09:30:15.250\r\ns2,,\r\ns3,false,1970-01-01 00:00:00\r\n')
  })

  it('leaves a computed value, or another column under a datetime name, a number', async () => {
    // epoch ms of xwhen, each engine's way (DuckDB has no TIMESTAMPTZ + 0)
    const ms = host.engine === 'clickhouse' ? 'xwhen + 0' : 'epoch_ms(xwhen)'
    const u1 = "FROM event_vd WHERE xwho = 'u1' AND xwhat = 'pay'"
    // a boolean made text is the engine's text of it: ClickHouse's is the stored 1
    expect(await json(`SELECT ${ms} AS n, CAST(vip AS String) AS v ${u1}`)).toEqual([{ n: Date.UTC(2024, 0, 1, 16, 30, 0, 123), v: host.engine === 'clickhouse' ? '1' : 'true' }])
    expect(await json(`SELECT distinct_id AS xwhen ${u1}`)).toEqual([{ xwhen: 1 }])
    // a ClickHouse alias holds in the whole query, so the second xwhen is distinct_id there too
    if (host.engine === 'clickhouse') expect(await json(`SELECT distinct_id AS xwhen, xwhen AS t ${u1}`)).toEqual([{ xwhen: 1, t: 1 }])
  })
})
