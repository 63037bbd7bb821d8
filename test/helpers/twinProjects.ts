import pino from 'pino'
import { afterAll, beforeAll, expect } from 'vitest'
import type { AppendType } from '../../src-main/warehouse'
import { startClickHouse, type TestClickHouse } from './clickhouse'
import { clickhouseProject } from './engines'
import { fixture, importAndWait, newProject, warehouseRows } from './ingest'
import { startTestServer, type TestServer } from './server'

/**
 * Two projects holding the same rows, one on DuckDB and one on ClickHouse, for tests that ask both
 * the same question and expect the same hand-computed answer.
 *
 * The records are imported into the DuckDB project through the API (the importer makes the plan,
 * the user ids, the local days, the profiles); then the plan rows are copied to the ClickHouse
 * project's metadata and the very rows of DuckDB's tables are written into ClickHouse's through
 * its warehouse (`addColumns`, `appendRows`). Until loading into a ClickHouse project is built
 * (issue 22), that is the honest way to give both engines the same rows.
 */

// a type, not an interface: it must pass as headers (Record<string, string>)
export type Twin = {
  appKey: string
  token: string
}

export interface Twins {
  duck: Twin
  house: Twin
  /** Rows copied into the ClickHouse project, per table. */
  copied?: Record<string, number>
}

const PLAN_TABLES = ['plan_events', 'plan_event_properties', 'plan_event_property_links', 'plan_user_properties']
const TABLES = ['event_vd', 'profile_vd', 'user_ids', 'user_aliases']
/** Columns ClickHouse's base tables already have (warehouse/clickhouse/index.ts BASE_TABLES). */
const BASE = ['distinct_id', 'xwho', 'xwhat', 'xwhen', 'ds', 'original_id', 'login_id']

/** The warehouse types of DuckDB's columns, as appendRows takes them (times are read as epoch ms). */
const APPEND_TYPES: Record<string, AppendType> = {
  BIGINT: 'bigint',
  INTEGER: 'integer',
  VARCHAR: 'string',
  DOUBLE: 'number',
  BOOLEAN: 'boolean',
  TIMESTAMP: 'datetime',
  'VARCHAR[]': 'array<string>',
}
const TIMES = ['TIMESTAMP WITH TIME ZONE', 'TIMESTAMPTZ']

/** Copies one table's rows of the DuckDB project into the ClickHouse project's table of that name; resolves to the rows copied. */
async function copyTable(s: TestServer, twins: Twins, zone: string, table: string): Promise<number> {
  const columns = await warehouseRows(s, twins.duck.appKey, `SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_name = '${table}' ORDER BY ordinal_position`)
  if (columns.length === 0) return 0
  const isTime = (c: Record<string, unknown>) => TIMES.includes(String(c.type))
  const props = columns.filter((c) => !BASE.includes(String(c.name)) && !isTime(c))
  // a datetime property (TIMESTAMP) goes as appendRows takes it: microseconds
  const select = columns.map((c) => (isTime(c) ? `epoch_ms("${c.name}") AS "${c.name}"` : c.type === 'TIMESTAMP' ? `epoch_us("${c.name}") AS "${c.name}"` : `"${c.name}"`)).join(', ')
  const rows = (await warehouseRows(s, twins.duck.appKey, `SELECT ${select} FROM ${table}`)).map((r) => columns.map((c) => r[String(c.name)]))
  const types = columns.map((c) => (isTime(c) ? 'bigint' : APPEND_TYPES[String(c.type)]))
  if (types.some((t) => t === undefined)) throw new Error(`a column type this copy does not know: ${JSON.stringify(columns)}`)
  await s.app.ctx.warehouse.withConnection(twins.house.appKey, zone, async (w) => {
    await w.addColumns(table, props.map((c) => ({ id: String(c.name), dataType: APPEND_TYPES[String(c.type)] as 'string' })))
    await w.appendRows(table, types, rows)
  })
  return rows.length
}

/** An empty DuckDB project `<name>duck` and an empty ClickHouse project `<name>house` (database `uba_<name>house`) in `zone`. */
export async function projectPair(s: TestServer, ch: TestClickHouse, name: string, zone: string): Promise<Twins> {
  return { duck: await newProject(s, `${name}duck`, zone), house: await clickhouseProject(s, ch, `${name}house`, zone) }
}

/**
 * Makes `<name>duck` (DuckDB) and `<name>house` (ClickHouse database `uba_<name>house`) in `zone`,
 * imports `lines` (JSON lines, as an SDK or a file holds them) into the first and copies its rows
 * and plan to the second. Resolves to both projects' keys and tokens (headers for `s.call`).
 */
export async function twinProjects(s: TestServer, ch: TestClickHouse, name: string, zone: string, lines: string[]): Promise<Twins> {
  const { duck, house } = await projectPair(s, ch, name, zone)

  // no lines: two empty projects
  if (lines.length > 0) {
    const job = await importAndWait(s, duck, { path: fixture(`${name}.jsonl`, lines.join('\n')) })
    if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
  }

  const meta = s.app.ctx.meta
  for (const table of PLAN_TABLES) {
    const names = (meta.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[]).filter((n) => n !== 'app_key')
    meta.prepare(`INSERT OR REPLACE INTO ${table} (app_key, ${names.join(', ')}) SELECT ?, ${names.join(', ')} FROM ${table} WHERE app_key = ?`).run(house.appKey, duck.appKey)
  }
  const twins: Twins = { duck, house, copied: {} }
  for (const table of TABLES) twins.copied![table] = await copyTable(s, twins, zone, table)
  return twins
}

/** Asks both projects the same request; each must answer 200. Resolves to [DuckDB's body, ClickHouse's body]. */
export async function askBoth(s: TestServer, twins: Twins, method: 'GET' | 'POST', path: string, body?: unknown): Promise<[any, any]> {
  const answers: any[] = []
  for (const p of [twins.duck, twins.house]) {
    const res = await s.call(method, path, { headers: { ...p }, body })
    expect(res.status, `${p.appKey}: ${JSON.stringify(res.body)}`).toBe(200)
    answers.push(res.body)
  }
  return answers as [any, any]
}

/** The twins of a describe block, with the server and the clickhouse-server they live on. */
export interface TwinsHost extends Twins {
  readonly server: TestServer
  readonly clickhouse: TestClickHouse
}

/**
 * Starts, for the enclosing describe block, a clickhouse-server and a test server,
 * and makes the twins `<name>duck` and `<name>house` in `zone`: with `lines`, holding those records
 * (`twinProjects`); without, empty (`projectPair`), to load through the API. All stop after the
 * block. Call it at the top of the block, before its own beforeAll (hooks run in the order they are
 * declared). UBA_TEST_LOG=<file>: the server's warnings and errors (a 503's ClickHouse message) written there.
 */
export function useTwins(name: string, zone: string, lines?: string[]): TwinsHost {
  let server: TestServer | undefined
  let clickhouse: TestClickHouse | undefined
  let twins: Twins | undefined
  beforeAll(async () => {
    clickhouse = await startClickHouse()
    const log = process.env.UBA_TEST_LOG
    server = await startTestServer(log ? { logger: pino({ level: 'warn' }, pino.destination({ dest: log, sync: true })) } : {})
    twins = lines ? await twinProjects(server, clickhouse, name, zone, lines) : await projectPair(server, clickhouse, name, zone)
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    await clickhouse?.stop()
  })
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useTwins: the servers and twins are made in beforeAll; read them inside a hook or a test')
    return value
  }
  return {
    get server() {
      return ready(server)
    },
    get clickhouse() {
      return ready(clickhouse)
    },
    get duck() {
      return ready(twins).duck
    },
    get house() {
      return ready(twins).house
    },
    get copied() {
      return ready(twins).copied
    },
  }
}
