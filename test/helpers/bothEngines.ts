import { expect } from 'vitest'
import type { TestClickHouse } from './clickhouse'
import { newProject, warehouseRows } from './ingest'
import { eventually, type TestServer } from './server'

/**
 * Loading into a ClickHouse project gives the rows loading into a DuckDB project gives: a pair of
 * empty projects (`<name>duck`, `<name>house`) to load the same records into, and a table by table
 * comparison of what both hold (every column, values as both engines can tell them apart).
 */

export interface Pair {
  duck: { appKey: string; token: string }
  house: { appKey: string; token: string }
}

/** An empty DuckDB project and an empty ClickHouse project (database `uba_<name>house`) in `zone`. */
export async function projectPair(s: TestServer, ch: TestClickHouse, name: string, zone: string): Promise<Pair> {
  const duck = await newProject(s, `${name}duck`, zone)
  const x = { xtoken: s.creds.xtoken }
  const appKey = `${name}house`
  const made = await s.call('POST', '/uba/manage/enterprise/projects', { headers: x, body: { appKey, name: appKey, timeZone: zone, warehouse: { engine: 'clickhouse', url: ch.url, database: `uba_${appKey}` } } })
  if (made.status !== 200) throw new Error(JSON.stringify(made.body))
  await eventually(async () => (await s.call('GET', `/uba/manage/enterprise/projects/${appKey}`, { headers: x })).body.finish === true)
  const list = await s.call('GET', '/uba/manage/enterprise/projects', { headers: x })
  return { duck, house: { appKey, token: list.body.find((p: { appKey: string }) => p.appKey === appKey).normalToken } }
}

const zoneOf = (s: TestServer, appKey: string) => s.app.ctx.meta.prepare('SELECT time_zone FROM projects WHERE app_key = ?').pluck().get(appKey) as string

/** Rows of a query on a ClickHouse project, Int64 as numbers. */
export async function houseRows(s: TestServer, appKey: string, sql: string): Promise<unknown[][]> {
  const rows = await s.app.ctx.warehouse.withConnection(appKey, zoneOf(s, appKey), (w) => w.rows(sql))
  return rows.map((r) => r.map((v) => (typeof v === 'bigint' ? Number(v) : v)))
}

/** One value as both engines can hold it: times as epoch ms, booleans as 1/0, a missing list as []. */
function same(value: unknown, type: string): unknown {
  if (type.endsWith('[]') && value === null) return []
  if (type === 'BOOLEAN' && value !== null) return value ? 1 : 0
  return value
}

/** Every row of `table` in both projects, as sorted JSON texts (columns by name; DuckDB's columns decide which). */
export async function tableOnBoth(s: TestServer, pair: Pair, table: string): Promise<[string[], string[]]> {
  const columns = (await warehouseRows(s, pair.duck.appKey, `SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_name = '${table}' ORDER BY column_name`)).map((c) => ({ name: String(c.name), type: String(c.type) }))
  const isTime = (t: string) => t.startsWith('TIMESTAMP')
  const duckSql = `SELECT ${columns.map((c) => (isTime(c.type) ? `epoch_ms("${c.name}")` : `"${c.name}"`)).join(', ')} FROM ${table}`
  const duck = (await warehouseRows(s, pair.duck.appKey, duckSql.replace(/^SELECT /, 'SELECT ').replace(/ FROM /, ` FROM `))).map((r) => JSON.stringify(Object.values(r).map((v, i) => same(v, columns[i].type))))
  const houseSql = `SELECT ${columns.map((c) => `\`${c.name}\``).join(', ')} FROM ${table}`
  const house = (await houseRows(s, pair.house.appKey, houseSql)).map((r) => JSON.stringify(r.map((v, i) => same(v, columns[i].type))))
  return [duck.sort(), house.sort()]
}

/** Both projects hold the same rows in every table of a project. */
export async function expectSameRows(s: TestServer, pair: Pair, tables = ['event_vd', 'profile_vd', 'user_ids', 'user_aliases']): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const table of tables) {
    const [duck, house] = await tableOnBoth(s, pair, table)
    expect(house, table).toEqual(duck)
    counts[table] = duck.length
  }
  return counts
}

/** The `_uba_*` tables (staging, copies) in the ClickHouse project's database. */
export async function leftovers(s: TestServer, pair: Pair): Promise<string[]> {
  return (await houseRows(s, pair.house.appKey, "SELECT name FROM system.tables WHERE database = currentDatabase() AND startsWith(name, '_uba_')")).map((r) => String(r[0]))
}
