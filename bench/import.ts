// Import throughput next to DuckDB's own readers on the same file, in the same run: the ratio is
// the figure (ours / DuckDB's plain load into a table).
// BENCH_IMPORT_ROWS sets the rows (5M); BENCH_IMPORT_RUNS repeats both loads, alternating which goes
// first, and reports medians: on a machine shared with other work one run says little. The CPU
// time (of this process: DuckDB's threads included) is printed too, as it moves less with that
// other work than the wall time does. For the CSV a further line times the least any import into the
// warehouse layout does (minimalLoad): how far the ratio could go without checking anything.
// Each import prints the peak RSS of this process (the server's), sampled every 100 ms while it
// runs, and the time of its phases (reading, checking, writing); each line ends with the load average.
// BENCH_IMPORT_FORMATS picks formats (parquet,csv,json); BENCH_IMPORT_PLAIN=0 leaves DuckDB's plain
// loads out, so that the RSS is the import's alone (a plain load's memory stays with the process).
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import { startApp } from '../src-main/app'
import { importFile } from '../src-main/domain/ingest/importer'

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 5_000_000)
const RUNS = Math.max(1, Number(process.env.BENCH_IMPORT_RUNS ?? 1))
const FORMATS = (process.env.BENCH_IMPORT_FORMATS ?? 'parquet,csv,json').split(',')
const PLAIN = process.env.BENCH_IMPORT_PLAIN !== '0'
const MB = 1024 * 1024

interface Timing {
  seconds: number
  cpu: number
  /** Peak RSS of the process during the run (bytes). */
  rss: number
  /** Seconds per phase of an import. */
  phases?: Record<string, number>
}

async function makeFiles(dir: string): Promise<{ csv: string; jsonl: string; parquet: string }> {
  const db = await DuckDBInstance.create(':memory:')
  const conn = await db.connect()
  const csv = join(dir, 'events.csv')
  const jsonl = join(dir, 'events.jsonl')
  const parquet = join(dir, 'events.parquet')
  const rows = `SELECT 'u' || (i % 200000) AS user_id, ['view', 'cart', 'pay', 'search'][1 + i % 4] AS event,
      1704067200000 + i * 500 AS time, round((i % 9973) / 7.0, 2) AS price, (i % 5) + 1 AS qty,
      ['books', 'games', 'garden', 'toys'][1 + i % 4] AS category, i % 3 = 0 AS promo
    FROM range(${ROWS}) r(i)`
  if (FORMATS.includes('csv')) await conn.run(`COPY (${rows}) TO '${csv}' (HEADER)`)
  if (FORMATS.includes('parquet')) await conn.run(`COPY (${rows}) TO '${parquet}' (FORMAT parquet)`)
  if (FORMATS.includes('json'))
  await conn.run(`COPY (SELECT 'bench' AS appid, user_id AS xwho, event AS xwhat, time AS xwhen,
      {'$platform': 'iOS', 'price': price, 'qty': qty, 'category': category, 'promo': promo} AS xcontext FROM (${rows})) TO '${jsonl}' (FORMAT json)`)
  conn.closeSync()
  db.closeSync()
  return { csv, jsonl, parquet }
}

async function timed(work: () => Promise<unknown>): Promise<Timing> {
  let rss = process.memoryUsage().rss
  const sampler = setInterval(() => {
    rss = Math.max(rss, process.memoryUsage().rss)
  }, 100)
  const t = performance.now()
  const c = process.cpuUsage()
  try {
    await work()
  } finally {
    clearInterval(sampler)
  }
  const used = process.cpuUsage(c)
  return { seconds: (performance.now() - t) / 1000, cpu: (used.user + used.system) / 1e6, rss: Math.max(rss, process.memoryUsage().rss) }
}

/** DuckDB's own load of the file into a table, in a fresh database with the same settings. */
async function baseline(dir: string, reader: string): Promise<Timing> {
  const file = join(dir, `baseline-${Date.now()}.duckdb`)
  const db = await DuckDBInstance.create(file, { threads: '2', memory_limit: '8GB' })
  const conn = await db.connect()
  const timing = await timed(() => conn.run(`CREATE TABLE t AS SELECT * FROM ${reader}`))
  conn.closeSync()
  db.closeSync()
  rmSync(file, { force: true })
  return timing
}

/**
 * The least any import into the warehouse layout does, hand-written for the bench's CSV: typed
 * values, the event time and its day, new distinct ids, rows stored by user then time; no checks,
 * no reasons, no survey, no plan. Its ratio to DuckDB's plain load is the most an import can reach.
 */
async function minimalLoad(dir: string, csv: string): Promise<Timing> {
  const file = join(dir, `minimal-${Date.now()}.duckdb`)
  const db = await DuckDBInstance.create(file, { threads: '2', memory_limit: '8GB' })
  const conn = await db.connect()
  await conn.run("SET TimeZone = 'UTC'")
  const source = `read_csv('${csv}', columns = {'user_id': 'VARCHAR', 'event': 'VARCHAR', 'time': 'BIGINT', 'price': 'DOUBLE', 'qty': 'DOUBLE', 'category': 'VARCHAR', 'promo': 'BOOLEAN'}, header = true)`
  const timing = await timed(async () => {
    await conn.run(`CREATE TABLE user_ids AS SELECT xwho, row_number() OVER (ORDER BY xwho) AS distinct_id FROM (SELECT DISTINCT user_id AS xwho FROM ${source})`)
    await conn.run(`CREATE TABLE t AS SELECT u.distinct_id, c.user_id AS xwho, c.event AS xwhat, make_timestamptz(c.time * 1000) AS xwhen,
        year(d) * 10000 + month(d) * 100 + day(d) AS ds, c.price, c.qty, c.category, c.promo
      FROM (SELECT *, DATE '1970-01-01' + CAST(time // 86400000 AS INTEGER) AS d FROM ${source}) c JOIN user_ids u ON u.xwho = c.user_id ORDER BY u.distinct_id, xwhen`)
  })
  conn.closeSync()
  db.closeSync()
  rmSync(file, { force: true })
  return timing
}

/** The middle value; for an even count, the mean of the two middle ones (not the larger). */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

export async function benchImport(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'uba-bench-import-'))
  try {
    const files = await makeFiles(dir)
    const app = await startApp({ dataDir: join(dir, 'data'), port: 0, threads: 2, memoryLimit: '8GB' })
    await app.ctx.background.idle()
    const scope = { appKey: app.credentials().projects[0].appKey, timeZone: 'UTC' }
    const ours = async (file: string, format: 'csv' | 'json' | 'parquet', mapping = {}) => {
      // every run writes the same rows to an empty table and gives out the same new ids
      await app.ctx.warehouse.withConnection(scope.appKey, scope.timeZone, async (conn) => {
        await conn.run('DELETE FROM event_vd')
        await conn.run('DROP TABLE IF EXISTS user_ids')
        await conn.run('CHECKPOINT')
      })
      const phases: Record<string, number> = {}
      let phase = ''
      let since = 0
      const onPhase = (next: string) => {
        const now = performance.now()
        if (phase !== '') phases[phase] = (phases[phase] ?? 0) + (now - since) / 1000
        phase = next
        since = now
      }
      const timing = await timed(async () => {
        const result = await app.ctx.warehouse.withConnection(scope.appKey, scope.timeZone, (conn) =>
          importFile(app.ctx, scope, conn, { file, format, kind: 'events', mapping, onError: 'abort', dedupe: false }, onPhase, async () => {}),
        )
        onPhase('')
        if (result.eventsWritten !== ROWS) throw new Error(`wrote ${result.eventsWritten} of ${ROWS}`)
      })
      return { ...timing, phases }
    }
    const compare = async (label: string, file: string, plain: () => Promise<Timing>, product: () => Promise<Timing>) => {
      const runs: { ours: Timing; plain?: Timing }[] = []
      for (let run = 0; run < RUNS; run++) {
        // alternate which goes first, so that neither always meets the other's leftovers
        if (!PLAIN) runs.push({ ours: await product() })
        else if (run % 2 === 0) runs.push({ plain: await plain(), ours: await product() })
        else runs.push({ ours: await product(), plain: await plain() })
      }
      const spread = (values: number[]) => (values.length > 1 ? ` [${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)}]` : '')
      const oursRuns = runs.map((r) => r.ours.seconds)
      const oursS = median(oursRuns)
      const oursCpu = median(runs.map((r) => r.ours.cpu))
      const peak = Math.max(...runs.map((r) => r.ours.rss)) / MB
      const mb = statSync(file).size / MB
      const phases = Object.keys(runs[0].ours.phases ?? {}).map((p) => `${p} ${median(runs.map((r) => r.ours.phases?.[p] ?? 0)).toFixed(2)}`).join(', ')
      let line = `${label.padEnd(24)} ${(ROWS / 1e6).toFixed(1)}M rows ${mb.toFixed(0).padStart(5)} MB   ours ${oursS.toFixed(2)} s${spread(oursRuns)} (${(ROWS / oursS / 1e6).toFixed(2)} M rows/s)`
      if (PLAIN) {
        const plainRuns = runs.map((r) => r.plain!.seconds)
        const baseS = median(plainRuns)
        const baseCpu = median(runs.map((r) => r.plain!.cpu))
        line += `   DuckDB ${baseS.toFixed(2)} s${spread(plainRuns)}   ours/DuckDB ${(oursS / baseS).toFixed(2)}x   CPU ${oursCpu.toFixed(1)} / ${baseCpu.toFixed(1)} s (${(oursCpu / baseCpu).toFixed(2)}x)`
      }
      // the machine's load over the last minute: on a shared machine the wall ratio moves with it
      console.log(`${line}   peak RSS ${peak.toFixed(0)} MB${RUNS > 1 ? `   (median of ${RUNS})` : ''}   load ${loadavg()[0].toFixed(1)}`)
      console.log(`${''.padEnd(24)} phases (s): ${phases}`)
    }
    const columns = { xwho: 'user_id', xwhat: 'event', xwhen: 'time' }
    if (FORMATS.includes('parquet')) await compare('import Parquet', files.parquet, () => baseline(dir, `read_parquet('${files.parquet}')`), () => ours(files.parquet, 'parquet', columns))
    if (FORMATS.includes('csv')) {
      await compare('import CSV', files.csv, () => baseline(dir, `read_csv('${files.csv}')`), () => ours(files.csv, 'csv', columns))
      if (PLAIN) {
        // what the ratio could reach at most: the minimal load against DuckDB's plain one
        const minimal: Timing[] = []
        const plain: Timing[] = []
        for (let run = 0; run < RUNS; run++) {
          minimal.push(await minimalLoad(dir, files.csv))
          plain.push(await baseline(dir, `read_csv('${files.csv}')`))
        }
        const minS = median(minimal.map((t) => t.seconds))
        const plainS = median(plain.map((t) => t.seconds))
        console.log(
          `${'  least any import does'.padEnd(24)} (typed values, day, ids, stored by user; no checks) ${minS.toFixed(2)} s   DuckDB ${plainS.toFixed(2)} s   ${(minS / plainS).toFixed(2)}x: the least an import can reach`,
        )
      }
    }
    if (FORMATS.includes('json')) await compare('import JSON lines', files.jsonl, () => baseline(dir, `read_json('${files.jsonl}')`), () => ours(files.jsonl, 'json'))
    await app.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
