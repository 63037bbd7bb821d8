// Custom SQL export: 2 million event rows (BENCH_EXPORT_ROWS) through POST /uba/api/sql/export as
// CSV and as JSON lines, read by a client in the same process. Printed: rows/s, MB/s, and the
// process's resident memory before and at its peak during the export (sampled every 20 ms), so
// that constant memory shows as a small rise whatever the row count. Next to it, DuckDB's own
// COPY of the same rows to a CSV file in a plain database: the cost of writing that text at all.
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import { startApp, type RunningApp } from '../src-main/app'
import { addColumns } from '../src-main/domain/schema/columns'

const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 2_000_000)
const EXPORT_SQL = 'SELECT * FROM event_vd'

/** Event rows shaped like an app's: ten columns, timestamps with milliseconds, text with commas. */
const EVENT_ROWS = `
  SELECT CAST(i % 100000 AS BIGINT) + 1 AS uid, ['view', 'cart', 'pay', 'search'][1 + CAST(i % 4 AS BIGINT)] AS event,
         TIMESTAMPTZ '2024-03-01 00:00:00+00' + to_milliseconds(i * 1237) AS ts,
         ['iOS', 'Android', 'Web'][1 + CAST(i % 3 AS BIGINT)] AS os, ['Beijing', 'Shanghai, PRC', 'Chengdu'][1 + CAST(i % 3 AS BIGINT)] AS city,
         round((i % 9973) / 7.0, 2) AS price, i % 5 = 0 AS is_login, 'https://shop.example/p/' || (i % 5000) AS url
  FROM range(${ROWS}) r(i)`

async function load(app: RunningApp, appKey: string): Promise<void> {
  await app.ctx.warehouse.withConnection(appKey, 'UTC', async (conn) => {
    await addColumns(conn, 'event_vd', [
      { id: '$os', dataType: 'string' },
      { id: '$city', dataType: 'string' },
      { id: 'price', dataType: 'number' },
      { id: '$is_login', dataType: 'boolean' },
      { id: '$url', dataType: 'string' },
    ])
    await conn.run(`INSERT INTO event_vd (distinct_id, xwho, xwhat, xwhen, ds, "$os", "$city", price, "$is_login", "$url")
      SELECT uid, 'u' || uid, event, ts, year(ts) * 10000 + month(ts) * 100 + day(ts), os, city, price, is_login, url FROM (${EVENT_ROWS})`)
  })
}

/** Streams one export, discarding the bytes; resolves to bytes, lines and seconds. */
function exportOnce(app: RunningApp, headers: Record<string, string>, format: 'csv' | 'json'): Promise<{ bytes: number; lines: number; seconds: number }> {
  return new Promise((resolve, reject) => {
    const t = performance.now()
    const req = request(`${app.url}/uba/api/sql/export`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`export ${format}: status ${res.statusCode}`))
      let bytes = 0
      let lines = 0
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++
      })
      res.on('end', () => resolve({ bytes, lines, seconds: (performance.now() - t) / 1000 }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(JSON.stringify({ sql: EXPORT_SQL, format }))
  })
}

/** Runs `work` while sampling the resident memory; resolves to its result and the peak. */
async function sampled<T>(work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = process.memoryUsage().rss
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 20)
  try {
    const result = await work()
    return { result, peak: Math.max(peak, process.memoryUsage().rss) }
  } finally {
    clearInterval(timer)
  }
}

/** DuckDB's COPY of the same rows to CSV, in a plain database of its own. */
async function duckdbCopy(dir: string): Promise<number> {
  const db = await DuckDBInstance.create(join(dir, 'plain.duckdb'), { threads: '2' })
  const conn = await db.connect()
  await conn.run(`CREATE TABLE plain AS SELECT * FROM (${EVENT_ROWS})`)
  const t = performance.now()
  await conn.run(`COPY plain TO '${join(dir, 'plain.csv')}' (HEADER)`)
  const seconds = (performance.now() - t) / 1000
  conn.closeSync()
  db.closeSync()
  return seconds
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0)

export async function benchExport(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'uba-bench-export-'))
  try {
    const app = await startApp({ dataDir: join(dir, 'data'), port: 0, threads: 2, memoryLimit: '8GB' })
    await app.ctx.background.idle()
    const creds = app.credentials()
    const project = { appKey: creds.projects[0].appKey, token: creds.projects[0].token }
    await load(app, project.appKey)
    await exportOnce(app, project, 'csv') // warm: the data read once from disk
    for (const format of ['csv', 'json'] as const) {
      ;(globalThis as { gc?: () => void }).gc?.()
      const baseline = process.memoryUsage().rss
      const { result, peak } = await sampled(() => exportOnce(app, project, format))
      const rows = format === 'csv' ? result.lines - 1 : result.lines
      if (rows !== ROWS) throw new Error(`export ${format}: ${rows} rows instead of ${ROWS}`)
      console.log(
        `SQL export ${(ROWS / 1e6).toFixed(1)}M rows ${format.padEnd(4)} ${result.seconds.toFixed(2).padStart(6)} s  ${(rows / result.seconds / 1000).toFixed(0).padStart(5)}k rows/s  ${(result.bytes / 1024 / 1024 / result.seconds).toFixed(0).padStart(4)} MB/s  RSS ${mb(baseline)} MB before, peak ${mb(peak)} MB (+${mb(peak - baseline)} MB)`,
      )
    }
    await app.close()
    const copy = await duckdbCopy(dir)
    console.log(`DuckDB COPY of the same rows to CSV ${copy.toFixed(2)} s (${(ROWS / copy / 1000).toFixed(0)}k rows/s), for reference`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
