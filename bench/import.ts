// Import throughput next to DuckDB's own readers on the same file, in the same run: the ratio is
// the figure (ours / DuckDB's plain load into a table).
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import { startApp } from '../src-main/app'
import { importFile } from '../src-main/domain/ingest/importer'

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 5_000_000)

async function makeFiles(dir: string): Promise<{ csv: string; jsonl: string }> {
  const db = await DuckDBInstance.create(':memory:')
  const conn = await db.connect()
  const csv = join(dir, 'events.csv')
  const jsonl = join(dir, 'events.jsonl')
  const rows = `SELECT 'u' || (i % 200000) AS user_id, ['view', 'cart', 'pay', 'search'][1 + i % 4] AS event,
      1704067200000 + i * 500 AS time, round((i % 9973) / 7.0, 2) AS price, (i % 5) + 1 AS qty,
      ['books', 'games', 'garden', 'toys'][1 + i % 4] AS category, i % 3 = 0 AS promo
    FROM range(${ROWS}) r(i)`
  await conn.run(`COPY (${rows}) TO '${csv}' (HEADER)`)
  await conn.run(`COPY (SELECT 'bench' AS appid, user_id AS xwho, event AS xwhat, time AS xwhen,
      {'$platform': 'iOS', 'price': price, 'qty': qty, 'category': category, 'promo': promo} AS xcontext FROM (${rows})) TO '${jsonl}' (FORMAT json)`)
  conn.closeSync()
  db.closeSync()
  return { csv, jsonl }
}

/** DuckDB's own load of the file into a table, in a fresh database with the same settings. */
async function baseline(dir: string, reader: string): Promise<number> {
  const file = join(dir, `baseline-${Date.now()}.duckdb`)
  const db = await DuckDBInstance.create(file, { threads: '2', memory_limit: '8GB' })
  const conn = await db.connect()
  const t = performance.now()
  await conn.run(`CREATE TABLE t AS SELECT * FROM ${reader}`)
  const seconds = (performance.now() - t) / 1000
  conn.closeSync()
  db.closeSync()
  rmSync(file, { force: true })
  return seconds
}

export async function benchImport(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'uba-bench-import-'))
  try {
    const files = await makeFiles(dir)
    const app = await startApp({ dataDir: join(dir, 'data'), port: 0, threads: 2, memoryLimit: '8GB' })
    await app.ctx.background.idle()
    const scope = { appKey: app.credentials().projects[0].appKey, timeZone: 'UTC' }
    const ours = async (file: string, format: 'csv' | 'json', mapping = {}) => {
      const t = performance.now()
      const result = await app.ctx.warehouse.withConnection(scope.appKey, scope.timeZone, (conn) =>
        importFile(app.ctx, scope, conn, { file, format, kind: 'events', mapping, onError: 'abort', dedupe: false }, () => {}),
      )
      if (result.eventsWritten !== ROWS) throw new Error(`wrote ${result.eventsWritten} of ${ROWS}`)
      return (performance.now() - t) / 1000
    }
    const report = (label: string, file: string, oursS: number, baseS: number) => {
      const mb = statSync(file).size / 1024 / 1024
      console.log(
        `${label.padEnd(24)} ${(ROWS / 1e6).toFixed(1)}M rows ${mb.toFixed(0).padStart(5)} MB   ours ${oursS.toFixed(2)} s (${(ROWS / oursS / 1e6).toFixed(2)} M rows/s)   DuckDB ${baseS.toFixed(2)} s (${(ROWS / baseS / 1e6).toFixed(2)} M rows/s)   ratio ${(baseS / oursS).toFixed(2)}`,
      )
    }
    const csvBase = await baseline(dir, `read_csv('${files.csv}')`)
    const csvOurs = await ours(files.csv, 'csv', { xwho: 'user_id', xwhat: 'event', xwhen: 'time' })
    report('import CSV', files.csv, csvOurs, csvBase)
    const jsonBase = await baseline(dir, `read_json('${files.jsonl}')`)
    const jsonOurs = await ours(files.jsonl, 'json')
    report('import JSON lines', files.jsonl, jsonOurs, jsonBase)
    await app.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
