import { expect } from 'vitest'
import { warehouseRows } from './ingest'
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

/** Each distinct_id of a project as the ids of its user (sorted, joined): the same user on both whatever its number. */
async function usersById(s: TestServer, pair: Pair): Promise<[Map<number, string>, Map<number, string>]> {
  const of = (rows: [unknown, unknown][]) => {
    const ids = new Map<number, string[]>()
    for (const [xwho, id] of rows) ids.set(Number(id), [...(ids.get(Number(id)) ?? []), String(xwho)])
    return new Map([...ids].map(([id, names]) => [id, names.sort().join('+')]))
  }
  const duck = (await warehouseRows(s, pair.duck.appKey, 'SELECT xwho, distinct_id FROM user_ids')).map((r) => [r.xwho, r.distinct_id] as [unknown, unknown])
  const house = (await houseRows(s, pair.house.appKey, 'SELECT xwho, distinct_id FROM user_ids')) as [unknown, unknown][]
  return [of(duck), of(house)]
}

/**
 * Every row of `table` in both projects, as sorted JSON texts (columns by name; DuckDB's columns
 * decide which). `byUser`: distinct_id compared as the user's ids (a burst of uploads numbers new
 * users in the order they happened to arrive).
 */
export async function tableOnBoth(s: TestServer, pair: Pair, table: string, byUser = false): Promise<[string[], string[]]> {
  const users = byUser ? await usersById(s, pair) : null
  const columns = (await warehouseRows(s, pair.duck.appKey, `SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_name = '${table}' ORDER BY column_name`)).map((c) => ({ name: String(c.name), type: String(c.type) }))
  const isTime = (t: string) => t.startsWith('TIMESTAMP')
  const duckSql = `SELECT ${columns.map((c) => (isTime(c.type) ? `epoch_ms("${c.name}")` : `"${c.name}"`)).join(', ')} FROM ${table}`
  const user = (k: 0 | 1, v: unknown, i: number) => (users && columns[i].name === 'distinct_id' ? users[k].get(Number(v)) : v)
  const duck = (await warehouseRows(s, pair.duck.appKey, duckSql)).map((r) => JSON.stringify(Object.values(r).map((v, i) => user(0, same(v, columns[i].type), i))))
  const houseSql = `SELECT ${columns.map((c) => `\`${c.name}\``).join(', ')} FROM ${table}`
  const house = (await houseRows(s, pair.house.appKey, houseSql)).map((r) => JSON.stringify(r.map((v, i) => user(1, same(v, columns[i].type), i))))
  return [duck.sort(), house.sort()]
}

/** Both projects hold the same rows in every table of a project. */
export async function expectSameRows(s: TestServer, pair: Pair, options: { byUser?: boolean } = {}): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const table of ['event_vd', 'profile_vd', 'user_ids', 'user_aliases']) {
    const [duck, house] = await tableOnBoth(s, pair, table, options.byUser)
    expect(house, table).toEqual(duck)
    counts[table] = duck.length
  }
  return counts
}

/**
 * The `_uba_*` tables (staging, copies) in the ClickHouse project's database, once the old tables
 * of the last swap are dropped (that drop runs on after the commit answered).
 */
export async function leftovers(s: TestServer, pair: Pair): Promise<string[]> {
  const names = async () => (await houseRows(s, pair.house.appKey, "SELECT name FROM system.tables WHERE database = currentDatabase() AND startsWith(name, '_uba_')")).map((r) => String(r[0]))
  await eventually(async () => !(await names()).some((n) => n.startsWith('_uba_old_')), 10_000).catch(() => undefined)
  return names()
}
