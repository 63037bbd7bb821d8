// ClickHouse next to DuckDB (issue 22): the bench's rows copied into a ClickHouse project of the same
// app, then each analysis asked of both projects through HTTP (useCache false), alternating, with
// the medians, their ratio and whether the answers are equal. The server is Debian's clickhouse-server
// (18.16), started by the tests' launcher; its data is kept beside the DuckDB project of the size
// (bench/.cache for 10M and up), so a second run does not copy again. BENCH_CLICKHOUSE=0 leaves it out.
import { createReadStream, existsSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { isDeepStrictEqual } from 'node:util'
import type { RunningApp } from '../src-main/app'
import { CLICKHOUSE_SERVER, startClickHouse, type TestClickHouse } from '../test/helpers/clickhouse'
import { FROM, openAnalysisData, recordPlan, TO, type AnalysisData } from './analysisData'

const HOUSE = 'benchhouse'
const TABLES = ['event_vd', 'profile_vd', 'user_ids']
/** Product types of the bench's property columns, by DuckDB type (addColumns on ClickHouse). */
const PROPERTY_TYPES: Record<string, 'string' | 'number'> = { VARCHAR: 'string', DOUBLE: 'number' }
/** Columns every ClickHouse project has (warehouse/clickhouse/index.ts BASE_TABLES). */
const BASE = ['distinct_id', 'xwho', 'xwhat', 'xwhen', 'ds']

const steps = ['view', 'cart', 'checkout', 'pay'].map((e) => ({ expression: `event.${e}` }))
const retention = { firstEvent: { expression: 'event.view' }, secondEvent: { expression: 'event.pay' }, byFieldIndex: -1, duration: 30, unit: 'DAY' }
const CASES: { label: string; path: string; body: object; dated?: false }[] = [
  { label: 'event analysis, by $platform', path: 'events/analyze', body: { measures: [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }, { expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' }], byFields: [{ expression: 'event.view.$platform' }] } },
  { label: 'distribution of view counts', path: 'distributions/analyze', body: { measure: { expression: 'event.view', aggregator: 'TOTAL_COUNT' }, unit: '' } },
  { label: 'funnel, 4 steps, 7-day window', path: 'funnels/analyze', body: { steps, convertTime: 7, convertTimeUnit: 'DAY' } },
  { label: 'funnel users dropped after step 2', path: 'funnels/users', body: { steps, convertTime: 7, convertTimeUnit: 'DAY', cell: { step: 1, outcome: 'dropped' }, pageSize: 50 } },
  { label: 'retention, 30 days', path: 'retentions/analyze', body: retention },
  { label: 'retention by $platform', path: 'retentions/analyze', body: { ...retention, byField: { expression: 'event.view.$platform' }, byFieldIndex: 1 } },
  { label: 'retention, sum of pay price', path: 'retentions/analyze', body: { ...retention, measures: [{ expression: 'event.pay.price', aggregator: 'SUM' }] } },
  { label: 'retention, distinct pay prices', path: 'retentions/analyze', body: { ...retention, measures: [{ expression: 'event.pay.price', aggregator: 'REMOVE_DUMPLICATE' }] } },
  { label: 'user attributes, user count', path: 'userAttributes/analyze', body: { measure: { aggregator: 'USER_COUNT' }, byFields: [] }, dated: false },
]

type Project = { appKey: string; token: string }

/** One analysis request: its status and body (without the time it was computed, which always differs). */
async function ask(app: RunningApp, project: Project, c: (typeof CASES)[number]): Promise<{ status: number; body: Record<string, unknown> }> {
  const range = c.dated === false ? {} : { fromDate: FROM, toDate: TO }
  const res = await fetch(`${app.url}/uba/api/${c.path}`, { method: 'POST', headers: { ...project, 'content-type': 'application/json' }, body: JSON.stringify({ crowds: ['$ALL'], ...range, useCache: false, ...c.body }) })
  const { reportUpdateTime: _time, ...body } = (await res.json()) as Record<string, unknown>
  return { status: res.status, body }
}

/** The ClickHouse project of the app on this server: made the first time (the server keeps its port after). */
async function houseProject(app: RunningApp, server: TestClickHouse): Promise<Project> {
  const known = app.credentials().projects.find((p) => p.appKey === HOUSE)
  if (known) return { appKey: HOUSE, token: known.token }
  const headers = { xtoken: app.credentials().xtoken, 'content-type': 'application/json' }
  const body = { appKey: HOUSE, name: HOUSE, timeZone: 'UTC', warehouse: { engine: 'clickhouse', url: server.url, database: `uba_${HOUSE}` } }
  const res = await fetch(`${app.url}/uba/manage/enterprise/projects`, { method: 'POST', headers, body: JSON.stringify(body) })
  if (res.status !== 200) throw new Error(`creating the ClickHouse project: ${res.status} ${await res.text()}`)
  // the project's tables are made in the background: wait for `finish`
  for (;;) {
    const detail = await fetch(`${app.url}/uba/manage/enterprise/projects/${HOUSE}`, { headers })
    if (((await detail.json()) as { finish?: boolean }).finish) break
    await new Promise((r) => setTimeout(r, 50))
  }
  return { appKey: HOUSE, token: app.credentials().projects.find((p) => p.appKey === HOUSE)!.token }
}

/**
 * Copies the DuckDB project's tables into the ClickHouse project's: DuckDB writes each table as CSV
 * into its staging folder (times as epoch ms, NULL as \N), ClickHouse reads the file over HTTP with
 * INSERT ... FORMAT CSV. Resolves to the rows copied.
 */
async function copyRows(data: AnalysisData, server: TestClickHouse): Promise<number> {
  const { app } = data
  const database = `uba_${HOUSE}`
  const file = join(app.ctx.warehouse.stagingDirOf(data.project.appKey), 'bench-copy.csv')
  let rows = 0
  for (const table of TABLES) {
    const columns = await app.ctx.warehouse.withConnection(data.project.appKey, 'UTC', async (conn) => {
      const columns = (await conn.query(`SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_name = '${table}' ORDER BY ordinal_position`)) as { name: string; type: string }[]
      const select = columns.map((c) => (c.type.startsWith('TIMESTAMP') ? `epoch_ms("${c.name}")` : `"${c.name}"`)).join(', ')
      await conn.run(`COPY (SELECT ${select} FROM ${table}) TO '${file}' (FORMAT CSV, HEADER false, NULLSTR '\\N')`)
      return columns
    })
    const properties = columns.filter((c) => !BASE.includes(c.name)).map((c) => ({ id: c.name, dataType: PROPERTY_TYPES[c.type] }))
    await app.ctx.warehouse.withConnection(HOUSE, 'UTC', (w) => w.addColumns(table, properties))
    const insert = `INSERT INTO ${table} (${columns.map((c) => `\`${c.name}\``).join(', ')}) FORMAT CSV`
    const res = await fetch(`${server.url}/?database=${database}&query=${encodeURIComponent(insert)}`, { method: 'POST', body: Readable.toWeb(createReadStream(file)) as ReadableStream, duplex: 'half' } as RequestInit)
    if (res.status !== 200) throw new Error(`copying ${table}: ${await res.text()}`)
    const count = await fetch(`${server.url}/?database=${database}&query=${encodeURIComponent(`SELECT count() FROM ${table}`)}`)
    rows += Number(await count.text())
  }
  rmSync(file, { force: true })
  return rows
}

function median(times: number[]): number {
  return [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]
}

/** The analyses on both engines, 3 rounds alternating DuckDB and ClickHouse after one warm run each. */
export async function benchClickHouse(data: AnalysisData, only?: string): Promise<void> {
  if (process.env.BENCH_CLICKHOUSE === '0') return
  if (!existsSync(CLICKHOUSE_SERVER)) {
    console.log(`ClickHouse: left out, ${CLICKHOUSE_SERVER} is absent (apt-get install clickhouse-server, or set UBA_CLICKHOUSE_SERVER)`)
    return
  }
  const dir = join(data.dir, 'clickhouse')
  const ready = join(dir, 'copied')
  // a kept project's server listens where it did: the app made the project's route to that address as it started
  const known = data.app.ctx.meta.prepare('SELECT url FROM project_warehouses WHERE app_key = ?').pluck().get(HOUSE) as string | undefined
  const httpPort = known ? Number(new URL(known).port) : undefined
  const server = await startClickHouse(30_000, { dir, memoryBytes: 3_500_000_000, httpPort })
  try {
    const version = await (await fetch(`${server.url}/?query=SELECT%20version()`)).text()
    const house = await houseProject(data.app, server)
    recordPlan(data.app, HOUSE)
    if (existsSync(ready)) console.log(`ClickHouse ${version.trim()}: rows read from ${dir} (copied before)`)
    else {
      const t = performance.now()
      for (const table of TABLES) await data.app.ctx.warehouse.withConnection(HOUSE, 'UTC', (w) => w.run(`TRUNCATE TABLE ${table}`))
      const rows = await copyRows(data, server)
      writeFileSync(ready, new Date().toISOString())
      console.log(`ClickHouse ${version.trim()}: copied ${rows.toLocaleString('en')} rows (events, profiles, user ids) in ${((performance.now() - t) / 1000).toFixed(1)} s`)
    }
    console.log(`${'case'.padEnd(34)} ${'DuckDB ms'.padStart(16)} ${'ClickHouse ms'.padStart(18)}  ratio CH/DuckDB  answers equal`)
    for (const c of CASES.filter((x) => !only || x.label.includes(only))) {
      const duck: number[] = []
      const ch: number[] = []
      const first = [await ask(data.app, data.project, c), await ask(data.app, house, c)]
      if (first[0].status !== 200) throw new Error(`${c.label} on DuckDB: ${first[0].status} ${JSON.stringify(first[0].body)}`)
      if (first[1].status !== 200) {
        console.log(`${c.label.padEnd(34)} not yet (${first[1].status} ${String(first[1].body.msg).slice(0, 100)})`)
        continue
      }
      for (let round = 0; round < 3; round++) {
        for (const [project, times] of [[data.project, duck], [house, ch]] as const) {
          const t = performance.now()
          await ask(data.app, project, c)
          times.push(performance.now() - t)
        }
      }
      const spread = (times: number[]) => `${median(times).toFixed(0)} (${Math.min(...times).toFixed(0)}-${Math.max(...times).toFixed(0)})`
      const equal = isDeepStrictEqual(first[0].body, first[1].body) ? 'yes' : 'NO'
      console.log(`${c.label.padEnd(34)} ${spread(duck).padStart(16)} ${spread(ch).padStart(18)}  ${(median(ch) / median(duck)).toFixed(2).padStart(15)}  ${equal}`)
    }
  } finally {
    await server.stop()
  }
}

/** BENCH_ONLY=clickhouse: the comparison alone, on the analysis bench's project of BENCH_EVENTS events (BENCH_CASES filters). */
export async function benchClickHouseAlone(): Promise<void> {
  const data = await openAnalysisData(Number(process.env.BENCH_EVENTS ?? 10_000_000))
  try {
    console.log(`analysis data: ${(data.events / 1e6).toFixed(1)}M events, ${data.users / 1000}k users, 60 days, ${data.origin}`)
    await benchClickHouse(data, process.env.BENCH_CASES)
  } finally {
    await data.close()
  }
}
