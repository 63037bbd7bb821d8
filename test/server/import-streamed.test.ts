import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { DuckDBInstance } from '@duckdb/node-api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fixture, importAndWait, newProject, warehouseRows } from '../helpers/ingest'
import { startTestServer, type TestServer } from '../helpers/server'

/**
 * Imports that read the file in one pass (CSV, TSV, Parquet: no copy of the cells first) and in
 * bounded memory: rows keep their numbers, types come from the first values wherever they are,
 * a Parquet file's numbers and flags read as their text would, and what spilled is gone after.
 */

let s: TestServer
let p: { appKey: string; token: string }

beforeAll(async () => {
  s = await startTestServer()
  p = await newProject(s, 'streamed', 'UTC')
})
afterAll(() => s.stop())

const NOT_A_TIME = 'is not a time (epoch ms or s, ISO 8601, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd)'

describe('Parquet numbers and flags as stored', () => {
  it('reads them as their text would: times by their digits, NaN no number, a known string property as text', async () => {
    // code is a string property before the Parquet file brings it as numbers; amount a number (else NaN among its first values would make it a string)
    const first = await importAndWait(s, p, { path: fixture('codes.csv', 'user,event,time,code,amount\nc1,buy,2024-05-01 09:00:00,A1,3.5\n'), mapping: { xwho: 'user', xwhat: 'event', xwhen: 'time' } })
    expect(first).toMatchObject({ state: 'succeeded', rowsWritten: 1 })
    const file = fixture('typed.parquet', '')
    const db = await DuckDBInstance.create(':memory:')
    const conn = await db.connect()
    await conn.run(`COPY (SELECT * FROM (VALUES
        (7::BIGINT, 'buy', ${Date.UTC(2024, 4, 1, 10)}::BIGINT, 19.5::DOUBLE, 3::INTEGER, true, 42::BIGINT),
        (8::BIGINT, 'buy', ${Date.UTC(2024, 4, 2, 10) / 1000}::BIGINT, 'nan'::DOUBLE, 4::INTEGER, false, 43::BIGINT),
        (9::BIGINT, 'buy', -5::BIGINT, 1::DOUBLE, 5::INTEGER, NULL, 44::BIGINT),
        (10::BIGINT, 'buy', ${Date.UTC(2024, 4, 3, 10)}::BIGINT, 2.25::DOUBLE, NULL::INTEGER, true, 45::BIGINT))
      t(uid, ev, t, amount, n, flag, code)) TO '${file}' (FORMAT parquet)`)
    conn.closeSync()
    db.closeSync()
    const job = await importAndWait(s, p, { path: file, mapping: { xwho: 'uid', xwhat: 'ev', xwhen: 't' }, onError: 'skip' })
    expect(job).toMatchObject({ state: 'succeeded', rowsRead: 4, rowsRejected: 2, rowsWritten: 2 })
    expect(job.rejected).toEqual([
      { row: 2, property: 'amount', value: 'nan', reason: 'is not a number' },
      { row: 3, property: 'xwhen', value: '-5', reason: NOT_A_TIME },
    ])
    expect(await warehouseRows(s, 'streamed', "SELECT xwho, epoch_ms(xwhen) AS ms, amount, n, flag, code FROM event_vd WHERE xwho <> 'c1' ORDER BY ms")).toEqual([
      { xwho: '7', ms: Date.UTC(2024, 4, 1, 10), amount: 19.5, n: 3, flag: true, code: '42' },
      { xwho: '10', ms: Date.UTC(2024, 4, 3, 10), amount: 2.25, n: null, flag: true, code: '45' },
    ])
    const types = await warehouseRows(s, 'streamed', "SELECT column_name AS c, data_type AS t FROM information_schema.columns WHERE table_name = 'event_vd' AND column_name IN ('amount', 'n', 'flag', 'code') ORDER BY c")
    expect(types).toEqual([{ c: 'amount', t: 'DOUBLE' }, { c: 'code', t: 'VARCHAR' }, { c: 'flag', t: 'BOOLEAN' }, { c: 'n', t: 'DOUBLE' }])
  })

  it('fails a Parquet file whose pages are gone, naming the file, and writes nothing', async () => {
    const whole = fixture('whole.parquet', '')
    const db = await DuckDBInstance.create(':memory:')
    const conn = await db.connect()
    await conn.run(`COPY (SELECT 'u' || i AS customer, 'order' AS action, 1714557600000 + i AS ts FROM range(100000) r(i)) TO '${whole}' (FORMAT parquet)`)
    conn.closeSync()
    db.closeSync()
    const bytes = readFileSync(whole)
    const cut = fixture('cut.parquet', Buffer.concat([bytes.subarray(0, bytes.length >> 1), bytes.subarray(bytes.length - 8)]))
    const before = await warehouseRows(s, 'streamed', 'SELECT count(*) AS n FROM event_vd')
    const job = await importAndWait(s, p, { path: cut, mapping: { xwho: 'customer', xwhat: 'action', xwhen: 'ts' } })
    expect(job).toMatchObject({ state: 'failed', rowsWritten: 0 })
    expect(job.error).toMatch(/^the file could not be read as Parquet: /)
    expect(job.error).not.toContain('staging')
    expect(await warehouseRows(s, 'streamed', 'SELECT count(*) AS n FROM event_vd')).toEqual(before)
  })
})

describe('CSV read in one pass', () => {
  it('numbers rows as lines to the last one, and types a column empty at the top from its first values further down', async () => {
    const lines = ['user,event,time,coupon']
    // coupon is empty in the first 11,000 rows (beyond the 10,000 the types are first looked for in)
    for (let i = 1; i <= 12_001; i++) lines.push(`v${i % 50},visit,2024-06-01 10:00:00,${i > 11_000 ? '5' : ''}`)
    lines[12_001] = 'v1,visit,soon,5'
    const job = await importAndWait(s, p, { path: fixture('sparse.csv', `${lines.join('\n')}\n`), mapping: { xwho: 'user', xwhat: 'event', xwhen: 'time' }, onError: 'skip' })
    expect(job).toMatchObject({ state: 'succeeded', rowsRead: 12_001, rowsRejected: 1, rowsWritten: 12_000 })
    expect(job.rejected).toEqual([{ row: 12_001, property: 'xwhen', value: 'soon', reason: NOT_A_TIME }])
    // 1,000 stored rows carry coupon 5, as a number
    expect(await warehouseRows(s, 'streamed', "SELECT sum(coupon) AS total, count(coupon) AS n FROM event_vd WHERE xwhat = 'visit'")).toEqual([{ total: 5000, n: 1000 }])
  })
})

describe('bounded memory', () => {
  let small: TestServer
  let q: { appKey: string; token: string }
  beforeAll(async () => {
    small = await startTestServer({ memoryLimit: '2GB', importMemoryLimit: '64MB' })
    q = await newProject(small, 'bounded', 'UTC')
  })
  afterAll(() => small.stop())

  it('spills beyond the import bound into the project spill folder, empties it after, and restores the usual limit', async () => {
    const limit = async () => (await warehouseRows(small, 'bounded', "SELECT current_setting('memory_limit') AS m"))[0].m
    const usual = await limit()
    const lines = ['user,event,time,price,note']
    for (let i = 0; i < 600_000; i++) lines.push(`m${i % 40_000},buy,${1714557600000 + i * 1000},${i % 997}.5,note number ${i}`)
    const file = fixture('bounded.csv', `${lines.join('\n')}\n`)
    const spill = small.app.ctx.warehouse.spillDirOf('bounded')
    const started = await small.call('POST', '/uba/api/import/jobs', { headers: q, body: { path: file, mapping: { xwho: 'user', xwhat: 'event', xwhen: 'time' } } })
    expect(started.status).toBe(200)
    let spilled = 0
    let job: any
    do {
      if (existsSync(spill)) spilled = Math.max(spilled, readdirSync(spill).length)
      job = (await small.call('GET', `/uba/api/import/jobs/${started.body.id}`, { headers: q })).body
    } while (job.state === 'queued' || job.state === 'running')
    expect(job).toMatchObject({ state: 'succeeded', rowsWritten: 600_000 })
    expect(spilled).toBeGreaterThan(0)
    expect(existsSync(spill) ? readdirSync(spill) : []).toEqual([])
    expect(await limit()).toBe(usual)
    expect(await warehouseRows(small, 'bounded', 'SELECT count(*) AS n, count(DISTINCT xwho) AS users FROM event_vd')).toEqual([{ n: 600_000, users: 40_000 }])
  })
})
