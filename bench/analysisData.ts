// The analysis bench's project at one size: synthetic events loaded into the product and, for the
// hand-written queries, the same events stored plainly as (varchar user, varchar event, bigint time,
// day) in a database of their own. Sizes of 10M events and more are built once and kept in
// bench/.cache (gitignored): a 40M project takes minutes to build. BENCH_CACHE=<folder> keeps every
// size there instead.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import { startApp, type RunningApp } from '../src-main/app'
import { EVENT_ORDER } from '../src-main/domain/ingest/sql'
import { addColumns } from '../src-main/domain/schema/columns'
import { emptyReported, recordReported } from '../src-main/domain/schema/plan'

export const DAYS = 60
export const FROM = '2024-03-01'
export const TO = '2024-04-29'
/** DuckDB's memory limit for the product and for the hand-written queries' database (BENCH_MEMORY). */
const MEMORY = process.env.BENCH_MEMORY ?? '8GB'
/** Sizes from which the project is kept between runs. */
const CACHED_FROM = 10_000_000

/** Users for a size: 200k up to 10M events (the figures of earlier notes), then 50 events a user (40M: 800k). */
export function usersFor(events: number): number {
  return Number(process.env.BENCH_USERS ?? Math.max(200_000, Math.round(events / 50)))
}

/** The same synthetic events for the product and the hand-written baseline. */
function eventRows(events: number, users: number): string {
  return `
  SELECT CAST(hash(i) % ${users} AS BIGINT) + 1 AS uid,
         ['view', 'view', 'view', 'cart', 'cart', 'checkout', 'pay', 'search', 'search', 'view'][1 + CAST(hash(i * 7) % 10 AS BIGINT)] AS event,
         TIMESTAMPTZ '${FROM} 00:00:00+00' + to_seconds(CAST(hash(i * 13) % (${DAYS} * 86400) AS BIGINT)) AS ts,
         ['iOS', 'Android', 'Web'][1 + CAST(hash(i * 3) % 3 AS BIGINT)] AS platform,
         CAST(hash(i * 17) % 500 AS DOUBLE) AS price
  FROM range(${events}) r(i)`
}

async function load(app: RunningApp, appKey: string, events: number, users: number): Promise<void> {
  await app.ctx.warehouse.withConnection(appKey, 'UTC', async (conn) => {
    await conn.run('CREATE TABLE IF NOT EXISTS user_ids (xwho VARCHAR PRIMARY KEY, distinct_id BIGINT NOT NULL)')
    await addColumns(conn, 'event_vd', [{ id: '$platform', dataType: 'string' }, { id: 'price', dataType: 'number' }])
    await conn.run(`INSERT INTO user_ids SELECT 'u' || i, i FROM range(1, ${users + 1}) r(i)`)
    // stored in the order every load writes (by user, then time: ingest/sql.ts EVENT_ORDER)
    await conn.run(`INSERT INTO event_vd (distinct_id, xwho, xwhat, xwhen, ds, "$platform", price)
      SELECT uid AS distinct_id, 'u' || uid, event, ts AS xwhen, year(ts) * 10000 + month(ts) * 100 + day(ts), platform, price
      FROM (${eventRows(events, users)}) ORDER BY ${EVENT_ORDER}`)
    await conn.run(`INSERT INTO profile_vd (distinct_id, xwho) SELECT i, 'u' || i FROM range(1, ${users + 1}) r(i)`)
  })
  recordPlan(app, appKey)
}

/** The plan of the bench's events (five events carrying $platform and price), recorded for a project. */
export function recordPlan(app: RunningApp, appKey: string): void {
  const reported = emptyReported()
  for (const e of ['view', 'cart', 'checkout', 'pay', 'search']) reported.events.set(e, { properties: new Set(['$platform', 'price']), platforms: new Set() })
  reported.eventProperties.set('$platform', 'string')
  reported.eventProperties.set('price', 'number')
  recordReported(app.ctx.meta, appKey, reported)
}

export type Hand = Record<'events' | 'funnels' | 'retention' | 'distribution', () => Promise<void>>

/** The hand-written queries, on the plain table (created when `build`). */
async function baseline(dir: string, events: number, users: number, build: boolean): Promise<{ hand: Hand; close: () => void }> {
  const db = await DuckDBInstance.create(join(dir, 'plain.duckdb'), { threads: '2', memory_limit: MEMORY })
  const conn = await db.connect()
  if (build) await conn.run(`CREATE TABLE plain AS SELECT 'u' || uid AS user_id, event, epoch_ms(ts) AS t, CAST(strftime(ts, '%Y%m%d') AS INTEGER) AS day, platform FROM (${eventRows(events, users)})`)
  const run = (sql: string) => async () => void (await conn.runAndReadAll(sql))
  const hand: Hand = {
    events: run(`SELECT day, platform, count(*) AS n, count(DISTINCT user_id) AS u FROM plain WHERE event = 'view' GROUP BY ALL`),
    funnels: run(`WITH v AS (SELECT user_id, t FROM plain WHERE event = 'view'), c AS (SELECT user_id, t FROM plain WHERE event = 'cart'),
                        k AS (SELECT user_id, t FROM plain WHERE event = 'checkout'), p AS (SELECT user_id, t FROM plain WHERE event = 'pay'),
                        s1 AS (SELECT v.user_id, v.t AS t0, c.t AS t1 FROM v ASOF LEFT JOIN c ON v.user_id = c.user_id AND c.t >= v.t),
                        s2 AS (SELECT s1.*, k.t AS t2 FROM s1 ASOF LEFT JOIN k ON s1.user_id = k.user_id AND k.t >= s1.t1 WHERE s1.t1 IS NOT NULL OR true),
                        s3 AS (SELECT s2.*, p.t AS t3 FROM s2 ASOF LEFT JOIN p ON s2.user_id = p.user_id AND p.t >= s2.t2)
                   SELECT count(DISTINCT user_id), count(DISTINCT user_id) FILTER (WHERE t1 <= t0 + 604800000),
                          count(DISTINCT user_id) FILTER (WHERE t2 <= t0 + 604800000), count(DISTINCT user_id) FILTER (WHERE t3 <= t0 + 604800000) FROM s3`),
    retention: run(`WITH f AS (SELECT DISTINCT user_id, day FROM plain WHERE event = 'view'), r AS (SELECT DISTINCT user_id, day FROM plain WHERE event = 'pay')
                    SELECT f.day, datediff('day', strptime(CAST(f.day AS VARCHAR), '%Y%m%d'), strptime(CAST(r.day AS VARCHAR), '%Y%m%d')) AS k, count(DISTINCT f.user_id)
                    FROM f JOIN r ON f.user_id = r.user_id AND r.day >= f.day AND r.day <= f.day + 100 GROUP BY ALL`),
    // users by their number of view events over the range
    distribution: run(`SELECT n, count(*) AS users FROM (SELECT user_id, count(*) AS n FROM plain WHERE event = 'view' GROUP BY user_id) GROUP BY n`),
  }
  return { hand, close: () => conn.closeSync() }
}

export interface AnalysisData {
  app: RunningApp
  project: { appKey: string; token: string }
  events: number
  users: number
  hand: Hand
  /** How the data came: built now (seconds) or read from the cache. */
  origin: string
  /** The size's folder: kept in the cache, or temporary (removed by close). */
  dir: string
  close(): Promise<void>
}

/** The bench's project of `events` events: built, or opened from the cache. */
export async function openAnalysisData(events: number): Promise<AnalysisData> {
  const users = usersFor(events)
  // the cache entry names what its rows are made of: a change to the events or the load builds anew
  const recipe = createHash('sha256').update(eventRows(events, users) + load.toString()).digest('hex').slice(0, 12)
  const cached = events >= CACHED_FROM || process.env.BENCH_CACHE !== undefined
  const cacheDir = join(process.env.BENCH_CACHE ?? join(import.meta.dirname, '.cache'), `analysis-${events}-${users}-${recipe}`)
  const dir = cached ? cacheDir : mkdtempSync(join(tmpdir(), 'uba-bench-analysis-'))
  const ready = join(dir, 'ready')
  const build = !existsSync(ready)
  if (build && cached) {
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
  }
  const app = await startApp({ dataDir: join(dir, 'data'), port: 0, threads: 2, memoryLimit: MEMORY })
  await app.ctx.background.idle()
  const creds = app.credentials()
  const project = { appKey: creds.projects[0].appKey, token: creds.projects[0].token }
  const t = performance.now()
  if (build) {
    app.ctx.meta.prepare("UPDATE projects SET time_zone = 'UTC' WHERE app_key = ?").run(project.appKey)
    await load(app, project.appKey, events, users)
  }
  const { hand, close } = await baseline(dir, events, users, build)
  if (build && cached) writeFileSync(ready, new Date().toISOString())
  const origin = build ? `built in ${((performance.now() - t) / 1000).toFixed(1)} s${cached ? ` (kept in ${dir})` : ''}` : `read from ${dir}`
  return {
    app, project, events, users, hand, origin, dir,
    async close() {
      close()
      await app.close()
      if (!cached) rmSync(dir, { recursive: true, force: true })
    },
  }
}
