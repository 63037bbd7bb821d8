import type { ColumnType, Warehouse } from '..'
import { AppError } from '../../errors'
import { COLUMN_TYPES } from '../clickhouse/writes'
import { USER_ALIASES_DDL } from '../duckdb'
import { landRows, localColumns, type LocalColumn } from './wire'

/**
 * The stored rows a load on the local DuckDB reads, copied in from the project's ClickHouse
 * database (see ./index.ts). Kept beside them, untouched: what was copied (`_uba_stored_*`), so
 * that the shipment (./ship.ts) writes back only what the load changed.
 */

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`
const BASE = new Set(['distinct_id', 'xwho', 'xwhat', 'xwhen', 'ds'])
/** Marks the copied events in the local event_vd: the load's own have NULL there. */
export const STORED_MARK = '_uba_stored'

/** The property type of a ClickHouse property column (the executor's COLUMN_TYPES read back: a datetime is epoch ms in Int64). */
function propertyType(type: string): ColumnType {
  const found = (Object.entries(COLUMN_TYPES) as [ColumnType, string][]).find(([, t]) => t === type)
  if (!found) throw new Error(`a ClickHouse property column of type ${type} cannot be loaded into`)
  return found[0]
}

/** The local tables made like the project's: its property columns, and the bookkeeping of what was copied in. */
export async function prepareLocal(local: Warehouse, remote: Warehouse): Promise<void> {
  for (const table of ['event_vd', 'profile_vd']) {
    const { sql, values } = remote.dialect.tableColumns(table)
    const props = (await remote.rows(sql, values)).filter(([name]) => !BASE.has(String(name))).map(([name, type]) => ({ id: String(name), dataType: propertyType(String(type)) }))
    await local.addColumns(table, props)
  }
  await local.run(`ALTER TABLE event_vd ADD COLUMN ${STORED_MARK} BOOLEAN`)
  await local.run('CREATE TABLE IF NOT EXISTS user_ids (xwho VARCHAR NOT NULL, distinct_id BIGINT NOT NULL)')
  await local.run(USER_ALIASES_DDL)
  await local.run('CREATE TABLE _uba_looked_up (xwho VARCHAR)')
  await local.run('CREATE TABLE _uba_fetched_users (distinct_id BIGINT)')
  await local.run('CREATE TABLE _uba_stored_ids AS SELECT * FROM user_ids LIMIT 0')
  await local.run('CREATE TABLE _uba_stored_aliases AS SELECT * FROM user_aliases LIMIT 0')
  await local.run('CREATE TABLE _uba_stored_profiles AS SELECT * FROM profile_vd LIMIT 0')
}

/** A temporary table of the remote connection's session holding `values` (one column). */
async function remoteList(remote: Warehouse, name: string, column: string, type: 'String' | 'Int64', values: unknown[]): Promise<void> {
  await remote.run(`DROP TEMPORARY TABLE IF EXISTS ${name}`)
  await remote.run(`CREATE TEMPORARY TABLE ${name} (${column} ${type}) ENGINE = Memory`)
  await remote.appendRows(name, [type === 'String' ? 'string' : 'bigint'], values.map((v) => [v]), { temp: true })
}

const ALIAS_COLUMNS: LocalColumn[] = [
  { name: 'original_id', type: 'VARCHAR' },
  { name: 'login_id', type: 'VARCHAR' },
  { name: 'xwhen', type: 'TIMESTAMP WITH TIME ZONE' },
]
const ID_COLUMNS: LocalColumn[] = [
  { name: 'xwho', type: 'VARCHAR' },
  { name: 'distinct_id', type: 'BIGINT' },
]

/** The highest distinct_id stored in the project's ClickHouse database (0 when none): a load numbers its new users after it. */
export async function highestStoredId(remote: Warehouse): Promise<bigint> {
  const [[max]] = await remote.rows('SELECT max(distinct_id) FROM user_ids')
  return BigInt(max as bigint)
}

/**
 * Another UBA Desk (another data folder) loaded into the same database while this load ran: its
 * new users may have taken the numbers this load gave its own. Each app's write lock serialises
 * only its own loads, so the load stops cleanly instead (docs/clickhouse.md, "Two apps, one
 * database"); a 503, as it is worth trying again (a collector's SDK retries).
 */
export function anotherAppLoaded(database: string): AppError {
  return new AppError(503, 503, `another app loaded into the ClickHouse database ${database} meanwhile: nothing was imported; try again`)
}

/** See Warehouse.storedRowsFor; `highest` is the highest distinct_id the load started from (it must not have moved). */
export async function copyStoredRows(local: Warehouse, remote: Warehouse, users: string, days: string | null, highest: bigint, database: string): Promise<void> {
  const want = (await local.rows(`SELECT DISTINCT xwho FROM (${users}) u WHERE xwho IS NOT NULL AND xwho NOT IN (SELECT xwho FROM _uba_looked_up)`)).map((r) => String(r[0]))
  const ids: unknown[] = []
  if (want.length > 0) {
    await local.appendRows('_uba_looked_up', ['string'], want.map((x) => [x]))
    await remoteList(remote, '_uba_want', 'xwho', 'String', want)
    for (const [id] of await remote.rows('SELECT DISTINCT distinct_id FROM user_ids WHERE xwho IN (SELECT xwho FROM _uba_want)')) ids.push(id)
  }
  // the highest id, so that new users are numbered after every stored one
  const max = await highestStoredId(remote)
  if (max !== highest) throw anotherAppLoaded(database)
  if (max > 0n) ids.push(max)
  const fetched = new Set((await local.rows('SELECT distinct_id FROM _uba_fetched_users')).map((r) => String(r[0])))
  const fresh = [...new Set(ids.map(String))].filter((id) => !fetched.has(id))
  if (fresh.length > 0) await copyUsers(local, remote, fresh)
  if (days !== null && want.length > 0) await copyEvents(local, remote, days)
}

/** Every id, alias and profile row of the users `ids` (distinct ids). */
async function copyUsers(local: Warehouse, remote: Warehouse, ids: string[]): Promise<void> {
  await remoteList(remote, '_uba_users', 'distinct_id', 'Int64', ids.map((id) => BigInt(id)))
  await local.appendRows('_uba_fetched_users', ['bigint'], ids.map((id) => [BigInt(id)]))
  const idRows = await remote.rows('SELECT xwho, distinct_id FROM user_ids WHERE distinct_id IN (SELECT distinct_id FROM _uba_users)')
  await landRows(local, 'user_ids', ID_COLUMNS, idRows)
  await landRows(local, '_uba_stored_ids', ID_COLUMNS, idRows)
  const theirs = '(SELECT xwho FROM user_ids WHERE distinct_id IN (SELECT distinct_id FROM _uba_users))'
  const aliases = await remote.rows(`SELECT original_id, login_id, xwhen FROM user_aliases WHERE original_id IN ${theirs} OR login_id IN ${theirs}`)
  await landRows(local, 'user_aliases', ALIAS_COLUMNS, aliases)
  await landRows(local, '_uba_stored_aliases', ALIAS_COLUMNS, aliases)
  const columns = await localColumns(local, 'profile_vd')
  const profiles = await remote.rows(`SELECT ${columns.map((c) => quote(c.name)).join(', ')} FROM profile_vd WHERE distinct_id IN (SELECT distinct_id FROM _uba_users)`)
  await landRows(local, 'profile_vd', columns, profiles)
  // the copy as it was (the stored copy has the columns of the start; later ones were empty then)
  const kept = (await localColumns(local, '_uba_stored_profiles')).map((c) => quote(c.name)).join(', ')
  await local.run('CREATE OR REPLACE TEMP TABLE _uba_fresh (distinct_id BIGINT)')
  await local.appendRows('_uba_fresh', ['bigint'], ids.map((id) => [BigInt(id)]), { temp: true })
  await local.run(`INSERT INTO _uba_stored_profiles (${kept}) SELECT ${kept} FROM profile_vd WHERE distinct_id IN (SELECT distinct_id FROM temp._uba_fresh)`)
  await local.run('DROP TABLE temp._uba_fresh')
}

/** The stored events of the looked-up users on `days` (a relation with `ds`), marked as copied. */
async function copyEvents(local: Warehouse, remote: Warehouse, days: string): Promise<void> {
  const ds = (await local.rows(`SELECT DISTINCT ds FROM (${days}) d WHERE ds IS NOT NULL`)).map((r) => Number(r[0]))
  if (ds.length === 0) return
  const columns = (await localColumns(local, 'event_vd')).filter((c) => c.name !== STORED_MARK)
  const rows = await remote.rows(`SELECT ${columns.map((c) => quote(c.name)).join(', ')} FROM event_vd WHERE xwho IN (SELECT xwho FROM _uba_want) AND ds IN (${ds.join(', ')})`)
  await landRows(local, 'event_vd', columns, rows, [{ name: STORED_MARK, sql: 'true' }])
}
