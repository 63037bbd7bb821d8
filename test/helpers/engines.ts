import { afterAll, beforeAll } from 'vitest'
import type { AppOptions } from '../../src-main/app'
import { clickhouseAvailable, startClickHouse, type TestClickHouse } from './clickhouse'
import { newProject } from './ingest'
import { eventually, startTestServer, type TestServer } from './server'

/**
 * The shared suites (analyses, cohorts, tags, people) run once per engine with the same requests and
 * the same hand-computed answers:
 *
 *   describe.each(ENGINES)('funnels on %s', (engine) => {
 *     const host = useEngine(engine)
 *     let p: Project
 *     beforeAll(async () => {
 *       p = await host.project('fn', 'Asia/Shanghai')
 *       await importAndWait(host.server, p, { ... })
 *     })
 *     it('...', async () => { const res = await host.server.call('POST', '/uba/api/funnel', { headers: p, body }) })
 *   })
 *
 * A project made by `host.project` lives on the block's engine: the embedded DuckDB, or a real
 * clickhouse-server started for the block (database `uba_<appKey>`), loaded through the same API.
 */

export type Engine = 'duckdb' | 'clickhouse'

/** DuckDB always; ClickHouse when its server is installed (CI installs it and requires it: UBA_REQUIRE_CLICKHOUSE=1). */
export const ENGINES: Engine[] = clickhouseAvailable() ? ['duckdb', 'clickhouse'] : ['duckdb']

// a type, not an interface: it must pass as headers (Record<string, string>)
export type Project = { appKey: string; token: string }

export interface EngineHost {
  readonly engine: Engine
  /** The test server (after the block's first beforeAll). */
  readonly server: TestServer
  /** The ClickHouse server of a ClickHouse block; null on DuckDB. */
  readonly clickhouse: TestClickHouse | null
  /** A new empty project on the block's engine, finished; resolves to its key and token (headers for `server.call`). */
  project(appKey: string, timeZone: string): Promise<Project>
  /**
   * The rows of a query on a project's warehouse as objects, BIGINTs as numbers; the SQL is the
   * engine's own (DuckDB's or ClickHouse's), for the few checks that read the stored rows.
   */
  rows(p: Project, sql: string): Promise<Record<string, unknown>[]>
}

/** Makes a project whose events live in the ClickHouse database `uba_<appKey>`. */
export async function clickhouseProject(s: TestServer, ch: TestClickHouse, appKey: string, timeZone: string): Promise<Project> {
  const x = { xtoken: s.creds.xtoken }
  const warehouse = { engine: 'clickhouse', url: ch.url, database: `uba_${appKey}` }
  const res = await s.call('POST', '/uba/manage/enterprise/projects', { headers: x, body: { appKey, name: appKey, timeZone, warehouse } })
  if (res.status !== 200) throw new Error(`project ${appKey}: ${JSON.stringify(res.body)}`)
  await eventually(async () => (await s.call('GET', `/uba/manage/enterprise/projects/${appKey}`, { headers: x })).body.finish === true)
  const list = await s.call('GET', '/uba/manage/enterprise/projects', { headers: x })
  return { appKey, token: list.body.find((p: { appKey: string }) => p.appKey === appKey).normalToken }
}

/**
 * Starts, for the enclosing describe block, a test server (with `options`) and on ClickHouse a
 * clickhouse-server; both stop after the block. Call it at the top of the block, before its own
 * beforeAll (hooks run in the order they are declared).
 */
export function useEngine(engine: Engine, options: Partial<AppOptions> = {}): EngineHost {
  let server: TestServer | undefined
  let clickhouse: TestClickHouse | null = null
  beforeAll(async () => {
    if (engine === 'clickhouse') clickhouse = await startClickHouse()
    server = await startTestServer(options)
  }, 60_000)
  afterAll(async () => {
    await server?.stop()
    await clickhouse?.stop()
  })
  const started = (): TestServer => {
    if (!server) throw new Error('useEngine: the server starts in beforeAll; read it inside a hook or a test')
    return server
  }
  return {
    engine,
    get server() {
      return started()
    },
    get clickhouse() {
      return clickhouse
    },
    project(appKey, timeZone) {
      const s = started()
      return clickhouse ? clickhouseProject(s, clickhouse, appKey, timeZone) : newProject(s, appKey, timeZone)
    },
    async rows(p, sql) {
      const s = started()
      const zone = s.app.ctx.meta.prepare('SELECT time_zone FROM projects WHERE app_key = ?').pluck().get(p.appKey) as string
      const rows = await s.app.ctx.warehouse.withConnection(p.appKey, zone, (w) => w.query(sql))
      return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])))
    },
  }
}
