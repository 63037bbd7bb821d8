import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inspect } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AppendType, Warehouse } from '../../src-main/warehouse'
import { ClickHouseClient } from '../../src-main/warehouse/clickhouse/client'
import { ClickHouseWarehouses } from '../../src-main/warehouse/clickhouse'
import { DuckDBWarehouses } from '../../src-main/warehouse/duckdb'
import type { ValuePolicy } from '../../src-main/warehouse/values'
import { engineFailure } from '../../src-main/warehouse/errors'
import { clickhouseAvailable, READER, startClickHouse, type TestClickHouse } from '../helpers/clickhouse'
import { failure } from '../helpers/failures'

const ZONE = 'America/New_York'
const PROPERTIES = [
  { id: 'price', dataType: 'number' },
  { id: '$platform', dataType: 'string' },
  { id: 'vip', dataType: 'boolean' },
  { id: 'seen_at', dataType: 'datetime' },
  { id: 'tags', dataType: 'array<string>' },
] as const

const TYPES: AppendType[] = ['bigint', 'string', 'string', 'datetime', 'integer', 'number', 'string', 'boolean', 'datetime', 'array<string>']

/** Events of 3 users over two months (a DST change inside), every property type, NULLs, odd text, big ids. */
function events(): unknown[][] {
  const start = Date.UTC(2024, 2, 9, 12) // New York changes clocks on 2024-03-10
  return Array.from({ length: 60 }, (_, i) => {
    const ms = start + i * 26 * 3600_000 + (i % 7)
    const local = new Date(ms + (ms < Date.UTC(2024, 2, 10, 7) ? -5 : -4) * 3600_000)
    const ds = local.getUTCFullYear() * 10000 + (local.getUTCMonth() + 1) * 100 + local.getUTCDate()
    return [
      BigInt(i % 3) * 4_000_000_007n,
      ["ann'a", 'bob\tb', '日本 😀'][i % 3],
      i % 2 ? 'pay' : '$startup',
      BigInt(ms) * 1000n,
      ds,
      i % 5 === 0 ? null : i * 1.25,
      i % 4 === 0 ? null : `p\n${i % 2}`,
      i % 6 === 0 ? null : i % 2 === 0,
      i % 3 === 0 ? null : BigInt(ms + 1234) * 1000n,
      [`t${i % 4}`, ...(i % 2 ? [null, "q'x"] : [])],
    ]
  })
}

describe.skipIf(!clickhouseAvailable())('ClickHouse warehouse: storage and reads, the same values as DuckDB', () => {
  let ch: TestClickHouse
  let dir: string
  let chHost: ClickHouseWarehouses
  let duckHost: DuckDBWarehouses
  let admin: ClickHouseClient
  const rows = events()

  async function both<T>(work: (w: Warehouse, engine: 'clickhouse' | 'duckdb') => Promise<T>): Promise<[T, T]> {
    const a = await chHost.withConnection('p', ZONE, (w) => work(w, 'clickhouse'))
    const b = await duckHost.withConnection('p', ZONE, (w) => work(w, 'duckdb'))
    return [a, b]
  }

  beforeAll(async () => {
    ch = await startClickHouse()
    dir = mkdtempSync(join(tmpdir(), 'chexec22-wh-'))
    admin = new ClickHouseClient({ url: ch.url, user: 'default' })
    chHost = new ClickHouseWarehouses({ url: ch.url, database: 'uba_w1', user: 'default', stagingDir: join(dir, 'staging') })
    duckHost = new DuckDBWarehouses({ dir: join(dir, 'duck'), threads: 1, memoryLimit: '256MB' })
    await chHost.createProject()
    await duckHost.createProject('p', ZONE)
    await both(async (w) => {
      await w.addColumns('event_vd', PROPERTIES)
      await w.appendRows('event_vd', TYPES, rows)
    })
  })
  afterAll(async () => {
    await chHost?.close()
    await duckHost?.close()
    await ch?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('creates the database and MergeTree tables by user and time, partitioned by month of ds; again is harmless', async () => {
    await chHost.createProject()
    expect(chHost.exists()).toBe(true)
    const tables = await admin.query("SELECT name, engine FROM system.tables WHERE database = 'uba_w1' ORDER BY name")
    expect(tables.rows).toEqual([
      ['event_vd', 'MergeTree'],
      ['profile_vd', 'MergeTree'],
      ['user_aliases', 'MergeTree'],
      ['user_ids', 'MergeTree'],
    ])
    const ddl = String((await admin.query('SHOW CREATE TABLE uba_w1.event_vd')).rows[0][0])
    expect(ddl).toContain('PARTITION BY intDiv(ds, 100) ORDER BY (xwho, xwhen)')
    const columns = await admin.query("SELECT name, type FROM system.columns WHERE database = 'uba_w1' AND table = 'event_vd'")
    expect(columns.rows).toEqual([
      ['distinct_id', 'Int64'],
      ['xwho', 'String'],
      ['xwhat', 'String'],
      ['xwhen', 'Int64'],
      ['ds', 'Int32'],
      ['price', 'Nullable(Float64)'],
      ['$platform', 'Nullable(String)'],
      ['vip', 'Nullable(UInt8)'],
      ['seen_at', 'Nullable(Int64)'],
      ['tags', 'Array(Nullable(String))'],
    ])
    const partitions = await admin.query("SELECT DISTINCT partition FROM system.parts WHERE database = 'uba_w1' AND table = 'event_vd' AND active ORDER BY partition")
    expect(partitions.rows).toEqual([['202403'], ['202404'], ['202405']])
  })

  it('addColumns adds only what is missing (18.16 has no IF NOT EXISTS), twice is harmless', async () => {
    await chHost.withConnection('p', ZONE, async (w) => {
      await w.addColumns('event_vd', PROPERTIES)
      await w.addColumns('profile_vd', [{ id: 'city', dataType: 'string' }, { id: 'city', dataType: 'string' }])
    })
    const columns = await admin.query("SELECT name, type FROM system.columns WHERE database = 'uba_w1' AND table = 'profile_vd'")
    expect(columns.rows).toEqual([
      ['distinct_id', 'Int64'],
      ['xwho', 'String'],
      ['city', 'Nullable(String)'],
    ])
  })

  it('the stored rows read back as DuckDB gives them: bigint ids, text, doubles, NULL, booleans as 1/0, lists', async () => {
    const sql = 'SELECT distinct_id, xwho, xwhat, ds, price, "$platform", vip, tags FROM event_vd ORDER BY xwho, xwhat, ds'
    const [c, d] = await both((w) => w.query(sql))
    expect(c).toHaveLength(60)
    // 18.16 has no Bool: a boolean is stored and read as 1/0
    expect(c).toEqual(d.map((r) => ({ ...r, vip: r.vip === null ? null : Number(r.vip) })))
    expect(typeof c[0].distinct_id).toBe('bigint')
  })

  it('times: xwhen and datetime properties are epoch milliseconds, exact', async () => {
    const [c, d] = await both((w, e) =>
      w.rows(e === 'clickhouse' ? 'SELECT xwhen, seen_at FROM event_vd ORDER BY xwhen' : 'SELECT epoch_ms(xwhen), epoch_ms(seen_at) FROM event_vd ORDER BY xwhen'),
    )
    expect(c).toEqual(d)
    expect(c[1][0]).toBe(rows.map((r) => (r[3] as bigint) / 1000n).sort((a, b) => Number(a - b))[1])
  })

  it('dates are Dates at UTC midnight, and localDateSql gives the local day of xwhen as the load computes ds', async () => {
    const [c, d] = await both(async (w) => {
      const local = await w.localDateSql(1_000_000)
      const day = local('xwhen')
      return w.rows(`SELECT ${day} AS day, ds FROM event_vd ORDER BY xwhen`)
    })
    expect(c).toEqual(d)
    expect(c[0][0]).toBeInstanceOf(Date)
    for (const [day, ds] of c) expect(Number((day as Date).toISOString().slice(0, 10).replace(/-/g, ''))).toBe(ds)
  })

  it('bound values ($1, $name) give the same answers, under every value policy', async () => {
    for (const policy of ['exact', 'number', 'json', 'display'] as ValuePolicy[]) {
      const [c, d] = await both((w) =>
        w.query(
          `SELECT xwho, count(*) AS n, sum(distinct_id) AS ids, max(price) AS top, min(ds) AS first_day
           FROM event_vd WHERE xwhat = $what AND price > $low AND xwho <> $who GROUP BY xwho ORDER BY xwho`,
          { what: 'pay', low: -1.5, who: "it's\\not" },
          policy,
        ),
      )
      expect(c).toEqual(d)
    }
    const [c, d] = await both((w) => w.rows('SELECT count(*) FROM event_vd WHERE xwhat = $1 AND ds >= $2', ['$startup', 20240401], 'number'))
    expect(c).toEqual(d)
    expect(c[0][0]).toBe(rows.filter((r) => r[2] === '$startup' && (r[4] as number) >= 20240401).length)
  })

  it('NaN, infinities and NULL come back as DuckDB gives them', async () => {
    const [c, d] = await both((w, e) =>
      w.rows(e === 'clickhouse' ? "SELECT nan, inf, -inf, NULL, [1.5, nan], CAST('2024-02-29' AS Date)" : "SELECT 'nan'::DOUBLE, 'inf'::DOUBLE, '-inf'::DOUBLE, NULL, [1.5, 'nan'::DOUBLE], DATE '2024-02-29'"),
    )
    expect(c).toEqual(d)
  })

  it('stream and streamColumn deliver every row in chunks of at most 2,048', async () => {
    const chunks: number[] = []
    let total = 0n
    await chHost.withConnection('p', ZONE, async (w) => {
      for await (const chunk of w.stream('SELECT number AS n FROM system.numbers LIMIT 5000')) {
        chunks.push(chunk.length)
        for (const r of chunk) total += r.n as bigint
      }
      const first: unknown[] = []
      for await (const column of w.streamColumn("SELECT concat('r', toString(number)) FROM system.numbers LIMIT 3000")) first.push(...column)
      expect(first).toEqual(Array.from({ length: 3000 }, (_, i) => `r${i}`))
    })
    expect(chunks.every((n) => n <= 2048)).toBe(true)
    expect(chunks.reduce((a, b) => a + b, 0)).toBe(5000)
    expect(total).toBe(4999n * 2500n)
  })

  it('scan gives numeric column chunks and values equal to DuckDB’s', async () => {
    const sql = 'SELECT CAST(ds AS INTEGER) AS d, CAST(coalesce(price, -1) AS DOUBLE) AS p, xwho, tags FROM event_vd ORDER BY xwhen'
    const [c, d] = await both(async (w) => {
      const chunks = await w.scan(sql)
      return chunks.flatMap((chunk) =>
        Array.from({ length: chunk.rowCount }, (_, r) => [chunk.ints(0)[r], chunk.doubles(1)[r], chunk.value(2, r), chunk.value(3, r)]),
      )
    })
    expect(c).toEqual(d)
    expect(c).toHaveLength(60)
  })

  it('scan reads a million rows of Int32 and Float64 exactly', async () => {
    const chunks = await chHost.withConnection('p', ZONE, (w) =>
      w.scan('SELECT toInt32(number % 100000) AS u, toFloat64(number) / 4 AS t, toInt32(-number) AS m FROM system.numbers LIMIT $1', [1_000_000]),
    )
    let rows = 0
    let sumU = 0
    let sumT = 0
    let minM = 0
    for (const chunk of chunks) {
      const u = chunk.ints(0)
      const t = chunk.doubles(1)
      const m = chunk.ints(2)
      expect(u).toBeInstanceOf(Int32Array)
      expect(t).toBeInstanceOf(Float64Array)
      expect(u.length).toBe(chunk.rowCount)
      for (let i = 0; i < chunk.rowCount; i++) {
        sumU += u[i]
        sumT += t[i]
        minM = Math.min(minM, m[i])
      }
      rows += chunk.rowCount
    }
    expect(rows).toBe(1_000_000)
    expect(sumU).toBe(10 * (99_999 * 100_000) / 2)
    expect(sumT).toBe((999_999 * 1_000_000) / 2 / 4)
    expect(minM).toBe(-999_999)
  })

  it('scan reads every type the way rows() does: wide integers, NULLs, text, lists, dates; a cut answer is an error', async () => {
    const sql = `SELECT toInt8(-number) AS a, toUInt16(number * 1000) AS b, toUInt32(4000000000 + number) AS c, toInt64(-9000000000000000000) + number AS d,
      toUInt64(18000000000000000000) + number AS e, toFloat32(number) / 2 AS f, if(number % 2 = 0, NULL, toInt32(number)) AS g,
      concat('€', toString(number), '\\t') AS h, [toString(number), NULL] AS i, toDate('2024-02-28') + number AS j,
      toDateTime(1700000000 + number) AS k, [[number], []] AS l FROM system.numbers LIMIT 5`
    await chHost.withConnection('p', ZONE, async (w) => {
      const expected = await w.rows(sql)
      const chunks = await w.scan(sql)
      const got = chunks.flatMap((chunk) => Array.from({ length: chunk.rowCount }, (_, r) => Array.from({ length: 12 }, (_, c) => chunk.value(c, r))))
      expect(got).toEqual(expected)
      expect(typeof got[0][3]).toBe('bigint')
      expect(Array.from(chunks[0].doubles(2))).toEqual([4e9, 4e9 + 1, 4e9 + 2, 4e9 + 3, 4e9 + 4])
    })
    const { scanChunks } = await import('../../src-main/warehouse/clickhouse/rowBinary')
    expect(() => scanChunks(new Uint8Array(7), ['Int32'], 'q')).toThrow(/unreadable RowBinary/)
    expect(() => scanChunks(new Uint8Array([3, 0x61]), ['String'], 'q')).toThrow(/unreadable RowBinary/)
  })

  it('a readonly=1 user (custom SQL) reads, scans, describes and stops its queries; a write is refused and leaves nothing', async () => {
    const reader = new ClickHouseWarehouses({ url: ch.url, database: 'uba_w1', ...READER })
    await reader.ping()
    await reader.withConnection('p', ZONE, async (w) => {
      expect(await w.rows('SELECT count() FROM event_vd WHERE xwhat = $1', ['pay'])).toEqual([[30n]])
      expect((await w.scan('SELECT toInt32(ds) FROM event_vd')).reduce((n, c) => n + c.rowCount, 0)).toBe(60)
      expect((await w.describeQuery('SELECT xwho FROM event_vd')).columns).toEqual([{ name: 'xwho', type: 'String' }])
      const running = w.rows('SELECT count() FROM event_vd ARRAY JOIN range(1000000) AS k WHERE NOT ignore(sipHash64(k, xwho))').catch((e: Error) => e)
      await expect.poll(() => w.busy).toBe(true)
      w.interrupt()
      expect(engineFailure(await running)).toBe('interrupted')
      expect(await failure(w.appendRows('event_vd', TYPES, rows.slice(0, 1)))).toMatchObject({ kind: 'read-only' })
      expect(await failure(w.run("INSERT INTO event_vd SELECT * FROM event_vd"))).toMatchObject({ kind: 'read-only' })
    })
    expect((await admin.query("SELECT count() FROM uba_w1.event_vd")).rows).toEqual([[60n]])
    expect((await admin.query("SELECT count() FROM system.tables WHERE database = 'uba_w1' AND startsWith(name, '_uba_')")).rows).toEqual([[0n]])
    await expect(new ClickHouseWarehouses({ url: ch.url, database: 'uba_w1', user: READER.user, password: 'wrong' }).ping()).rejects.toMatchObject({ kind: 'auth' })
    // the password is nowhere to be seen on the host or its connections
    const shown = inspect(reader, { depth: 5 }) + JSON.stringify(reader) + (await reader.withConnection('p', ZONE, async (w) => inspect(w, { depth: 5 })))
    expect(shown).not.toContain(READER.password)
  })

  it('a server that cannot be reached is the product’s 503, not an engine error', async () => {
    const gone = new ClickHouseWarehouses({ url: 'http://127.0.0.1:9', database: 'uba_w1' })
    await expect(gone.withConnection('p', ZONE, (w) => w.rows('SELECT 1'))).rejects.toMatchObject({ status: 503, code: 503 })
    await expect(gone.ping()).rejects.toMatchObject({ name: 'EngineUnavailableError' })
  })

  it('statementCount and describeQuery read the text without running it', async () => {
    await chHost.withConnection('p', ZONE, async (w) => {
      expect(await w.statementCount("SELECT 1; SELECT ';' -- ;\n; /* ; */")).toBe(2)
      expect(await w.statementCount('SELECT 1;')).toBe(1)
      const described = await w.describeQuery('SELECT xwho, count() AS n, groupArray(price) AS prices FROM event_vd GROUP BY xwho')
      expect(described).toEqual({
        select: true,
        parameters: 0,
        columns: [
          { name: 'xwho', type: 'String' },
          { name: 'n', type: 'UInt64' },
          { name: 'prices', type: 'Array(Float64)' },
        ],
      })
      expect(await w.describeQuery('  (WITH 1 AS x SELECT x)')).toMatchObject({ select: true, columns: [{ name: 'x', type: 'UInt8' }] })
      expect(await w.describeQuery('INSERT INTO event_vd SELECT * FROM event_vd')).toEqual({ select: false, parameters: 0, columns: [] })
      expect(await w.describeQuery('SELECT $1, {x:UInt8}')).toEqual({ select: true, parameters: 2, columns: [] })
      // nothing ran: the table still holds its rows only once
      expect(await w.rows('SELECT count() FROM event_vd')).toEqual([[60n]])
    })
  })
})
