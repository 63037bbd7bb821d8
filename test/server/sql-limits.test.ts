import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setSetting } from '../../src-main/domain/platform/settings'
import { runningSqlQueries } from '../../src-main/domain/sql/limits'
import { newProject } from '../helpers/ingest'
import { eventually, startTestServer, type TestServer } from '../helpers/server'

// Time limits, the concurrency ceiling and client disconnects: a query that should not go on must
// stop in DuckDB (the connection is interrupted and closed), not only in the HTTP layer.

let s: TestServer
let app: { appKey: string; token: string }

/** A query that computes for minutes before its one row (10^11 pairs). */
const SLOW = 'SELECT count(*) AS n FROM range(1000000) a, range(100000) b WHERE a.range + b.range >= 0'
/** An export that could stream for hours. */
const ENDLESS = "SELECT i, repeat('x', 100) AS pad FROM range(100000000000) t(i)"

const query = (sql: string) => s.call('POST', '/uba/api/sql/query', { headers: app, body: { sql } })

interface Stream {
  status: number
  /** Resolves to the first bytes of the body; reading then pauses (the server meets back-pressure). */
  first: Promise<Buffer>
  /** Reads on; resolves to how the body ended: 'end' when complete, 'cut' when the server broke it off. */
  readToEnd(): Promise<'end' | 'cut'>
  hangUp(): void
}

/**
 * A POST read as a stream with node:http: hanging up closes its one socket. (fetch is not used
 * here: after an abort its pool opens a spare connection that the server's close then waits on.)
 */
function post(path: string, sql: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = request(s.url + path, { method: 'POST', headers: { ...app, 'content-type': 'application/json' } }, (res) => {
      const first = new Promise<Buffer>((got) =>
        res.once('data', (bytes: Buffer) => {
          res.pause()
          got(bytes)
        }),
      )
      const ending = new Promise<'end' | 'cut'>((done) => {
        res.on('end', () => done('end'))
        res.on('aborted', () => done('cut'))
        res.on('error', () => done('cut'))
      })
      const readToEnd = () => {
        res.on('data', () => {})
        res.resume()
        return ending
      }
      resolve({ status: res.statusCode ?? 0, first, readToEnd, hangUp: () => req.destroy() })
    })
    req.on('error', reject)
    req.end(JSON.stringify({ sql }))
  })
}

/** Starts an endless export and reads its first bytes. */
async function openExport(): Promise<Stream> {
  const stream = await post('/uba/api/sql/export', ENDLESS)
  expect(stream.status).toBe(200)
  expect((await stream.first).length).toBeGreaterThan(0)
  return stream
}

/** The SQL slots are free and no connection of the project is left open. */
async function allStopped(): Promise<void> {
  await eventually(async () => runningSqlQueries(s.app.ctx) === 0, 5000)
  expect(s.app.ctx.warehouse.interrupt(app.appKey)).toBe(0)
}

beforeAll(async () => {
  s = await startTestServer()
  app = await newProject(s, 'lim', 'UTC')
}, 60_000)
afterAll(() => s.stop())

describe('custom SQL limits', () => {
  it('stops a query at its time limit and answers 501/50103 saying so', async () => {
    setSetting(s.app.ctx.meta, 'sql.query.timeLimitMs', '300')
    try {
      const started = Date.now()
      const res = await query(SLOW)
      expect(Date.now() - started).toBeLessThan(5000)
      expect(res.status).toBe(501)
      expect(res.body.code).toBe(50103)
      expect(res.body.msg).toMatch(/time limit of 0\.3 s \(setting sql\.query\.timeLimitMs\)/)
      await allStopped()
    } finally {
      setSetting(s.app.ctx.meta, 'sql.query.timeLimitMs', '60000')
    }
    expect((await query('SELECT 1 AS x')).status).toBe(200)
  })

  it('cuts an export that is still streaming at its time limit', async () => {
    setSetting(s.app.ctx.meta, 'sql.export.timeLimitMs', '800')
    try {
      const started = Date.now()
      const stream = await openExport()
      expect(await stream.readToEnd()).toBe('cut')
      expect(Date.now() - started).toBeLessThan(10_000)
      await allStopped()
    } finally {
      setSetting(s.app.ctx.meta, 'sql.export.timeLimitMs', '600000')
    }
  })

  it('runs at most 4 queries at once by default; the next gets 501/50104', async () => {
    const open = [await openExport(), await openExport(), await openExport(), await openExport()]
    expect(runningSqlQueries(s.app.ctx)).toBe(4)
    const refused = await query('SELECT 1 AS x')
    expect(refused.status).toBe(501)
    expect(refused.body).toMatchObject({ code: 50104, data: null })
    expect(refused.body.msg).toMatch(/sql\.concurrency/)
    expect((await s.call('POST', '/uba/api/sql/export', { headers: app, body: { sql: 'SELECT 1' } })).body.code).toBe(50104)
    open[0].hangUp()
    await eventually(async () => runningSqlQueries(s.app.ctx) === 3, 5000)
    expect((await query('SELECT 1 AS x')).status).toBe(200)
    for (const o of open.slice(1)) o.hangUp()
    await allStopped()
  })

  it('follows the concurrency setting', async () => {
    setSetting(s.app.ctx.meta, 'sql.concurrency', '1')
    try {
      const one = await openExport()
      expect((await query('SELECT 1 AS x')).body.code).toBe(50104)
      one.hangUp()
      await allStopped()
      expect((await query('SELECT 1 AS x')).status).toBe(200)
    } finally {
      setSetting(s.app.ctx.meta, 'sql.concurrency', '4')
    }
  })

  it('interrupts the query when the client disconnects mid-export', async () => {
    const { hangUp } = await openExport()
    expect(runningSqlQueries(s.app.ctx)).toBe(1)
    hangUp()
    await allStopped()
    const started = Date.now()
    const next = await query('SELECT 42 AS x')
    expect(next).toMatchObject({ status: 200, body: 'x\r\n42\r\n' })
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('interrupts a query still computing (nothing sent yet) when the client disconnects', async () => {
    const req = request(s.url + '/uba/api/sql/export', { method: 'POST', headers: { ...app, 'content-type': 'application/json' } })
    const failed = new Promise<Error>((done) => req.on('error', done))
    req.end(JSON.stringify({ sql: SLOW }))
    await eventually(async () => runningSqlQueries(s.app.ctx) === 1, 5000)
    await new Promise((r) => setTimeout(r, 300))
    const hungUp = Date.now()
    req.destroy()
    expect(await failed).toBeInstanceOf(Error)
    // the time limit is 10 minutes: only the interrupt ends this query in seconds
    await allStopped()
    expect(Date.now() - hungUp).toBeLessThan(5000)
  })
})
