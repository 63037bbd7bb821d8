import type { Warehouse } from '..'
import { quoteString } from '../clickhouse/literal'
import { partitionIdOf, type ClickHouseWarehouse } from '../clickhouse/warehouse'
import { STORED_MARK } from './fetch'
import { columnTypeOf, localColumns, wireSelect, wireType } from './wire'

/**
 * What a load on the local DuckDB changed, written to the project's ClickHouse database inside the
 * remote connection's transaction (staged, moved into place at once: clickhouse/staging.ts):
 * - new property columns;
 * - new events (the local event_vd's rows not copied in), appended in bulk (TabSeparated);
 * - new user ids and aliases, appended; ids that merges moved replace their rows;
 * - events of users merged away (`$alias` of an id stored before): their partitions are replaced
 *   by the same rows under the login's distinct_id;
 * - profiles: the users whose rows differ from the copy (changed, created, deleted) replace
 *   theirs; profiles of users new to the project are appended.
 */

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`
const chName = (name: string) => `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``
/** Rows per insert into ClickHouse (one HTTP request each, into the same staging table). */
const ROWS_PER_INSERT = 100_000

/** The ClickHouse table's columns in order. */
async function remoteColumns(remote: Warehouse, table: string): Promise<string[]> {
  const { sql, values } = remote.dialect.tableColumns(table)
  return (await remote.rows(sql, values)).map((r) => String(r[0]))
}

/** Adds to ClickHouse the property columns the load added locally. */
async function addColumns(local: Warehouse, remote: Warehouse, table: string): Promise<void> {
  const have = new Set(await remoteColumns(remote, table))
  const missing = (await localColumns(local, table)).filter((c) => !have.has(c.name) && c.name !== STORED_MARK)
  if (missing.length > 0) await remote.addColumns(table, missing.map((c) => ({ id: c.name, dataType: columnTypeOf(c.type) })))
}

/** Appends to the ClickHouse table the local rows of `from` (a FROM clause: relation and condition); resolves to how many. */
async function append(local: Warehouse, remote: Warehouse, table: string, from: string, localTable = table): Promise<number> {
  const names = await remoteColumns(remote, table)
  const mine = new Map((await localColumns(local, localTable)).map((c) => [c.name, c]))
  const columns = names.map((n) => {
    const c = mine.get(n)
    if (!c) throw new Error(`the ClickHouse table ${table} has a column ${n} the load does not know`)
    return c
  })
  const types = columns.map((c) => wireType(c.type))
  let batch: unknown[][] = []
  let written = 0
  const flush = async () => {
    if (batch.length > 0) await remote.appendRows(table, types, batch)
    written += batch.length
    batch = []
  }
  for await (const chunk of local.stream(`SELECT ${columns.map((c, i) => `${wireSelect(c, 'r.')} AS c${i}`).join(', ')} FROM ${from}`)) {
    for (const row of chunk) batch.push(columns.map((_, i) => row[`c${i}`]))
    if (batch.length >= ROWS_PER_INSERT) await flush()
  }
  await flush()
  return written
}

/** A temporary table of the remote session holding `values`. */
async function remoteList(remote: Warehouse, name: string, column: string, type: 'String' | 'Int64', values: unknown[]): Promise<void> {
  await remote.run(`DROP TEMPORARY TABLE IF EXISTS ${name}`)
  await remote.run(`CREATE TEMPORARY TABLE ${name} (${column} ${type}) ENGINE = Memory`)
  await remote.appendRows(name, [type === 'String' ? 'string' : 'bigint'], values.map((v) => [v]), { temp: true })
}

/** Replaces, at the commit, the ClickHouse rows of `table` where `where` holds by `select`'s rows of their partitions. */
async function replaceWhere(remote: ClickHouseWarehouse, table: string, where: string, select: (partitions: string) => string): Promise<void> {
  const ids = await remote.partitionsWhere(table, where)
  if (ids.length === 0) return
  await remote.replacePartitions(table, ids, select(`${partitionIdOf(table)} IN (${ids.map((id: string) => quoteString(id)).join(', ')})`))
}

async function shipUsers(local: Warehouse, remote: ClickHouseWarehouse): Promise<void> {
  await append(local, remote, 'user_ids', 'user_ids r WHERE r.xwho NOT IN (SELECT xwho FROM _uba_stored_ids)')
  const moved = (await local.rows('SELECT u.xwho FROM user_ids u JOIN _uba_stored_ids s USING (xwho) WHERE u.distinct_id <> s.distinct_id')).map((r) => String(r[0]))
  if (moved.length > 0) {
    await remoteList(remote, '_uba_moved', 'xwho', 'String', moved)
    const where = 'xwho IN (SELECT xwho FROM _uba_moved)'
    await replaceWhere(remote, 'user_ids', where, (p) => `SELECT xwho, distinct_id FROM user_ids WHERE ${p} AND NOT (${where})`)
    await append(local, remote, 'user_ids', 'user_ids r WHERE r.xwho IN (SELECT u.xwho FROM user_ids u JOIN _uba_stored_ids s USING (xwho) WHERE u.distinct_id <> s.distinct_id)')
  }
  // users merged away: every id of theirs moved to one login's user, whose id their events take
  const merged = await local.rows(`SELECT s.distinct_id, any_value(u.distinct_id) FROM _uba_stored_ids s JOIN user_ids u USING (xwho)
    WHERE s.distinct_id NOT IN (SELECT distinct_id FROM user_ids) GROUP BY s.distinct_id`)
  if (merged.length > 0) {
    const from = merged.map((r) => String(r[0]))
    const to = merged.map((r) => String(r[1]))
    const names = await remoteColumns(remote, 'event_vd')
    const where = `distinct_id IN (${from.join(', ')})`
    const columns = names.map((n) => (n === 'distinct_id' ? `transform(distinct_id, CAST([${from.join(', ')}] AS Array(Int64)), CAST([${to.join(', ')}] AS Array(Int64)), distinct_id) AS distinct_id` : chName(n)))
    await replaceWhere(remote, 'event_vd', where, (p) => `SELECT ${columns.join(', ')} FROM event_vd WHERE ${p}`)
  }
  await append(local, remote, 'user_aliases', 'user_aliases r WHERE NOT EXISTS (SELECT 1 FROM _uba_stored_aliases s WHERE s.original_id = r.original_id AND s.login_id = r.login_id)')
}

/** The profile columns of the copy as the local table now has them (a column added since reads NULL). */
async function profileDiff(local: Warehouse): Promise<string> {
  const now = await localColumns(local, 'profile_vd')
  const then = new Set((await localColumns(local, '_uba_stored_profiles')).map((c) => c.name))
  const cols = now.map((c) => quote(c.name)).join(', ')
  const old = now.map((c) => (then.has(c.name) ? quote(c.name) : `NULL::${c.type} AS ${quote(c.name)}`)).join(', ')
  return `SELECT DISTINCT distinct_id FROM ((SELECT ${cols} FROM profile_vd EXCEPT ALL SELECT ${old} FROM _uba_stored_profiles)
    UNION ALL (SELECT ${old} FROM _uba_stored_profiles EXCEPT ALL SELECT ${cols} FROM profile_vd)) d`
}

async function shipProfiles(local: Warehouse, remote: ClickHouseWarehouse): Promise<void> {
  await local.run(`CREATE OR REPLACE TEMP TABLE _uba_changed AS ${await profileDiff(local)}`)
  const stored = (await local.rows('SELECT DISTINCT distinct_id FROM temp._uba_changed WHERE distinct_id IN (SELECT distinct_id FROM _uba_stored_profiles)')).map((r) => r[0])
  if (stored.length > 0) {
    // MergeTree has no UPDATE: the partitions holding the changed users' rows are replaced by their other rows
    await remoteList(remote, '_uba_changed', 'distinct_id', 'Int64', stored)
    const where = 'distinct_id IN (SELECT distinct_id FROM _uba_changed)'
    await replaceWhere(remote, 'profile_vd', where, (p) => `SELECT * FROM profile_vd WHERE ${p} AND NOT (${where})`)
  }
  await append(local, remote, 'profile_vd', 'profile_vd r WHERE r.distinct_id IN (SELECT distinct_id FROM temp._uba_changed)')
  await local.run('DROP TABLE temp._uba_changed')
}

/** Writes what the load changed (see above) inside `remote`'s open transaction. */
export async function ship(local: Warehouse, remote: ClickHouseWarehouse): Promise<void> {
  await addColumns(local, remote, 'event_vd')
  await addColumns(local, remote, 'profile_vd')
  await append(local, remote, 'event_vd', `event_vd r WHERE r.${STORED_MARK} IS NULL`)
  await shipUsers(local, remote)
  await shipProfiles(local, remote)
}

