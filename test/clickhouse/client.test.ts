import { createServer as createHttpServer } from 'node:http'
import { createServer, type AddressInfo } from 'node:net'
import { inspect } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ClickHouseClient } from '../../src-main/warehouse/clickhouse/client'
import { ClickHouseError, EngineUnavailableError } from '../../src-main/warehouse/clickhouse/errors'
import { clickhouseAvailable, READER, SETTINGS_READER, startClickHouse, type TestClickHouse } from '../helpers/clickhouse'
import { closedPort, failure } from '../helpers/failures'

/** Waits until the server lists the query as running. */
async function running(client: ClickHouseClient, queryId: string): Promise<void> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const r = await client.query('SELECT count() FROM system.processes WHERE query_id = {id:String}', { params: { id: queryId } })
    if (r.rows[0][0] === 1n) return
    if (Date.now() > deadline) throw new Error(`query ${queryId} never showed up`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

const LONG = 'SELECT count() FROM numbers(100000000000)'

describe.skipIf(!clickhouseAvailable())('ClickHouse HTTP client against a real clickhouse-server', () => {
  let ch: TestClickHouse
  let admin: ClickHouseClient

  beforeAll(async () => {
    ch = await startClickHouse()
    admin = new ClickHouseClient({ url: ch.url, user: 'default' })
  })
  afterAll(async () => ch?.stop())

  it('the server is up on loopback ports in a temporary folder and answers its version', async () => {
    expect(ch.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(ch.startupMs).toBeLessThan(30_000)
    await admin.ping()
    const r = await admin.query('SELECT version()')
    expect(String(r.rows[0][0])).toMatch(/^\d+\.\d+/)
  })

  it('an event table takes 10,000 rows in bulk and gives them back exactly', async () => {
    await admin.command('CREATE DATABASE IF NOT EXISTS uba_p1')
    const p1 = new ClickHouseClient({ url: ch.url, database: 'uba_p1' })
    // 18.16 has no DateTime64: xwhen is epoch milliseconds (Int64); ds the project-local day.
    await p1.command(`CREATE TABLE event_vd (
        distinct_id Int64, xwho String, xwhat String, xwhen Int64, ds Date, price Nullable(Float64), tags Array(String)
      ) ENGINE = MergeTree PARTITION BY toYYYYMM(ds) ORDER BY (xwho, xwhen)`)
    const start = Date.UTC(2024, 0, 30)
    const odd = ["it's", 'tab\there', 'line\nbreak', 'back\\slash', 'nul\0byte', '日本語 😀', '']
    const rows = Array.from({ length: 10_000 }, (_, i) => [
      BigInt(i % 731) * 1_000_000_007n, // ids beyond 2^32; 731 users
      `u${i % 731}-${odd[(i % 731) % odd.length]}`,
      i % 3 === 0 ? '$startup' : 'pay',
      start + i * 60_001, // Jan 30 .. Feb 5, milliseconds kept
      new Date(start + i * 60_001).toISOString().slice(0, 10),
      i % 5 === 0 ? null : i / 4,
      i % 2 ? [] : [`t${i}`, "q'x"],
    ])
    async function* generate() {
      yield* rows
    }
    expect(await p1.insert('event_vd', ['distinct_id', 'xwho', 'xwhat', 'xwhen', 'ds', 'price', 'tags'], generate())).toBe(10_000)

    const totals = await p1.query('SELECT count(), uniqExact(xwho), uniqExact(distinct_id), sum(xwhen), countIf(price IS NULL), max(distinct_id) FROM event_vd')
    const sumXwhen = rows.reduce((s, r) => s + BigInt(r[3] as number), 0n)
    expect(totals.rows[0]).toEqual([10_000n, 731n, 731n, sumXwhen, 2_000n, 730n * 1_000_000_007n])

    const back = new Map<string, unknown[]>()
    let columns: string[] = []
    for await (const piece of p1.stream('SELECT distinct_id, xwho, xwhat, xwhen, toString(ds), price, tags FROM event_vd')) {
      columns = piece.columns.map((c) => `${c.name}:${c.type}`)
      for (const r of piece.rows) back.set(`${r[1]}|${r[3]}`, r)
    }
    expect(columns).toEqual(['distinct_id:Int64', 'xwho:String', 'xwhat:String', 'xwhen:Int64', 'toString(ds):String', 'price:Nullable(Float64)', 'tags:Array(String)'])
    expect(back.size).toBe(10_000)
    expect(rows.map((r) => back.get(`${r[1]}|${r[3]}`))).toEqual(rows.map((r) => [r[0], r[1], r[2], BigInt(r[3] as number), r[4], r[5], r[6]]))

    const partitions = await admin.query("SELECT DISTINCT partition FROM system.parts WHERE database = 'uba_p1' AND table = 'event_vd' AND active ORDER BY partition")
    expect(partitions.rows).toEqual([['202401'], ['202402']])
    const users = await p1.query("SELECT uniqExact(xwho) FROM event_vd WHERE xwhat = {what:String}", { params: { what: 'pay' } })
    expect(users.rows[0][0]).toBe(BigInt(new Set(rows.filter((r) => r[2] === 'pay').map((r) => r[1])).size))
  })

  it('values come back typed the same from JSON and from TabSeparated', async () => {
    const sql = `SELECT toUInt64(18446744073709551615) AS u64, toInt64(-9223372036854775808) AS i64, toUInt8(255) AS u8, 1.5 AS f,
      CAST(NULL AS Nullable(Int64)) AS n, [NULL, 'a''b'] AS arr, [[1, 2], [3]] AS nested, toDate('2024-02-29') AS d,
      toDateTime('2024-01-01 08:00:00', 'Asia/Shanghai') AS shanghai, toDateTime(1700000000) AS server_zone, {s:String} AS s`
    const s = "q'\\\t\n\0😀"
    const expected = [18446744073709551615n, -9223372036854775808n, 255, 1.5, null, [null, "a'b"], [[1, 2], [3]], '2024-02-29', new Date('2024-01-01T00:00:00Z'), new Date(1_700_000_000_000), s]
    expect((await admin.query(sql, { params: { s } })).rows).toEqual([expected])
    const streamed = []
    for await (const piece of admin.stream(sql, { params: { s } })) streamed.push(...piece.rows)
    expect(streamed).toEqual([expected])
  })

  it('nan and infinities: null in JSON (18.16 writes them so), exact when streamed', async () => {
    const sql = 'SELECT nan, inf, -inf'
    expect((await admin.query(sql)).rows).toEqual([[null, null, null]])
    const streamed = []
    for await (const piece of admin.stream(sql)) streamed.push(...piece.rows)
    expect(streamed).toEqual([[NaN, Infinity, -Infinity]])
  })

  it('bound strings reach the server byte for byte', async () => {
    const texts = ["'", "\\'", "\\", "\\\\'", '\0', "a'); DROP TABLE x; --", '日本 😀 é', '\u0001\u007f', "'||'", '\r\n\t']
    for (const text of texts) {
      const r = await admin.query('SELECT {t:String} AS t, length({t:String}) AS bytes', { params: { t: text } })
      expect(r.rows[0]).toEqual([text, BigInt(Buffer.byteLength(text))])
    }
  })

  it('bad SQL is a typed error naming the code', async () => {
    const syntax = await failure(admin.query('SELEC 1'))
    expect(syntax).toBeInstanceOf(ClickHouseError)
    expect([(syntax as ClickHouseError).code, (syntax as ClickHouseError).kind]).toEqual([62, 'syntax'])
    expect(syntax.message).toMatch(/^ClickHouse error 62: Syntax error/)
    const table = (await failure(admin.query('SELECT * FROM nope.nothing'))) as ClickHouseError
    expect([table.code, table.kind]).toEqual([81, 'unknown-name'])
    const fn = (await failure(admin.query('SELECT arrayFlatten([[1]])'))) as ClickHouseError
    expect([fn.code, fn.kind]).toEqual([46, 'unknown-name'])
  })

  it('a query stopped by KILL QUERY ends with the cancelled error', async () => {
    const queryId = 'kill-me-1'
    const pending = failure(admin.query(LONG, { queryId }))
    await running(admin, queryId)
    expect(await admin.kill(queryId)).toBe(true)
    const e = (await pending) as ClickHouseError
    expect([e.constructor, e.code, e.kind, e.queryId]).toEqual([ClickHouseError, 394, 'cancelled', queryId])
    expect(await admin.kill('not-running')).toBe(false)
  })

  it('aborting the signal kills the query; a client time limit ends it as a timeout', async () => {
    const abort = new AbortController()
    const pending = failure(admin.query(LONG, { queryId: 'abort-me', signal: abort.signal }))
    await running(admin, 'abort-me')
    abort.abort()
    expect([(await pending as ClickHouseError).code, (await pending as ClickHouseError).kind]).toEqual([394, 'cancelled'])
    const late = (await failure(admin.query(LONG, { timeoutMs: 300 }))) as ClickHouseError
    expect([late.code, late.kind]).toEqual([159, 'timeout'])
    const left = await admin.query("SELECT count() FROM system.processes WHERE query LIKE '%numbers(100000000000)%' AND query NOT LIKE '%system.processes%'")
    expect(left.rows[0][0]).toBe(0n)
  })

  it('an error after the first rows were sent is still a typed error', async () => {
    const queryId = 'stream-kill'
    let rows = 0
    const consume = async () => {
      for await (const piece of admin.stream('SELECT number, toString(number) FROM numbers(100000000000)', { queryId })) {
        if (rows === 0 && piece.rows.length) await admin.kill(queryId)
        rows += piece.rows.length
      }
    }
    const e = (await failure(consume())) as ClickHouseError
    expect([e.code, e.kind]).toEqual([394, 'cancelled'])
    expect(rows).toBeGreaterThan(0)
  })

  it('a server that is not there is "engine unavailable"', async () => {
    const gone = new ClickHouseClient({ url: `http://127.0.0.1:${await closedPort()}` })
    const e = (await failure(gone.query('SELECT 1'))) as EngineUnavailableError
    expect(e).toBeInstanceOf(EngineUnavailableError)
    expect(e.reason).toBe('ECONNREFUSED')
    expect(await failure(gone.ping())).toBeInstanceOf(EngineUnavailableError)
  })

  it('a server that accepts but never answers ends as a timeout; one that is not ClickHouse fails the ping', async () => {
    const silent = createServer(() => undefined)
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r))
    const web = createHttpServer((_, res) => res.writeHead(404).end('not here'))
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', r))
    try {
      const mute = new ClickHouseClient({ url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` })
      const started = Date.now()
      const e = (await failure(mute.query('SELECT 1', { timeoutMs: 200 }))) as ClickHouseError
      expect([e.code, e.kind]).toEqual([159, 'timeout'])
      expect(Date.now() - started).toBeLessThan(15_000)
      const other = new ClickHouseClient({ url: `http://127.0.0.1:${(web.address() as AddressInfo).port}` })
      expect(await failure(other.ping())).toBeInstanceOf(EngineUnavailableError)
      expect(await failure(other.query('SELECT 1'))).toBeInstanceOf(EngineUnavailableError)
    } finally {
      silent.close()
      web.close()
    }
  })

  it('a statement without a result reads as no columns and no rows', async () => {
    expect(await admin.query('CREATE TABLE IF NOT EXISTS default.nothing (x UInt8) ENGINE = Memory')).toEqual({ columns: [], rows: [] })
  })

  it('credentials travel in headers and never show in errors or in the client', async () => {
    expect(() => new ClickHouseClient({ url: 'http://u:p@127.0.0.1:8123' })).toThrow(/credentials go in user and password/)
    const reader = new ClickHouseClient({ url: ch.url, ...READER })
    expect((await reader.query('SELECT 1')).rows).toEqual([[1]])
    const wrong = new ClickHouseClient({ url: ch.url, user: READER.user, password: 'Wrong-Secret-42' })
    const e = (await failure(wrong.query('SELECT 1'))) as ClickHouseError
    expect([e.code, e.kind]).toEqual([193, 'auth'])
    for (const shown of [e.message, e.stack ?? '', inspect(wrong, { showHidden: true, depth: 5 }), JSON.stringify(wrong)]) expect(shown).not.toContain('Wrong-Secret-42')
  })

  it('the readonly=1 profile refuses writes, settings and table functions; readonly=2 allows table functions', async () => {
    const reader = new ClickHouseClient({ url: ch.url, ...READER })
    const kinds = []
    for (const sql of ['CREATE TABLE default.t (x UInt8) ENGINE = Memory', 'SELECT * FROM numbers(3)', "SELECT * FROM url('http://127.0.0.1:1/', TSV, 'a String')"]) {
      const e = (await failure(reader.query(sql))) as ClickHouseError
      kinds.push([e.code, e.kind])
    }
    expect(kinds).toEqual([[164, 'read-only'], [164, 'read-only'], [164, 'read-only']])
    const settings = (await failure(reader.query('SELECT 1', { settings: { max_threads: 1 } }))) as ClickHouseError
    expect([settings.code, settings.kind]).toEqual([164, 'read-only'])
    // a reader stops its own query (custom SQL cancel) but not another user's
    const own = failure(reader.query('SELECT count() FROM system.numbers WHERE number = 0', { queryId: 'reader-own' }))
    await running(admin, 'reader-own')
    expect(await reader.kill('reader-own')).toBe(true)
    expect((await own as ClickHouseError).code).toBe(394)
    const others = failure(admin.query(LONG, { queryId: 'admin-own' }))
    await running(admin, 'admin-own')
    expect(((await failure(reader.kill('admin-own'))) as ClickHouseError).code).toBe(164)
    await admin.kill('admin-own')
    expect((await others as ClickHouseError).code).toBe(394)
    const lenient = new ClickHouseClient({ url: ch.url, ...SETTINGS_READER })
    expect((await lenient.query('SELECT count() FROM numbers(3)', { settings: { max_threads: 1 } })).rows).toEqual([[3n]])
  })

  it('a bad row or a value the column cannot take inserts nothing', async () => {
    await admin.command('CREATE TABLE default.small (id Int64, name String) ENGINE = MergeTree ORDER BY id')
    const short = await failure(admin.insert('default.small', ['id', 'name'], [[1, 'a'], [2]]))
    expect(short.message).toMatch(/row 2 has 1 values for 2 columns/)
    const typed = (await failure(admin.insert('default.small', ['id', 'name'], [[1, 'a'], ['not a number', 'b']]))) as ClickHouseError
    expect(typed).toBeInstanceOf(ClickHouseError)
    expect(typed.code).toBeGreaterThan(0)
    expect((await admin.query('SELECT count() FROM default.small')).rows).toEqual([[0n]])
  })
})
