import type { Warehouse } from '../warehouse'

/**
 * Outcomes sealed with the data they describe. Work that writes a project's warehouse in one
 * transaction (an import, the sample, a cohort or tag run) also writes there a small record of
 * what it wrote, in that same transaction, right before its COMMIT. The metadata (job state, plan,
 * cohort status) is updated after the commit; a crash in between leaves the record, and start-up
 * settles the metadata from it. So the record exists exactly when the data committed, and after a
 * crash at any instant the metadata can be made to say what the data holds.
 * `uba_` names are reserved (no dimension table can take one), and custom SQL cannot read it.
 *
 * The table is the data folder's own: `uba_outcomes` in its DuckDB database, and
 * `uba_outcomes_<folder id>` in a ClickHouse database, which other UBA Desks (other data folders)
 * may share. There start-up reads every record and forgets all but those it keeps, so one table for
 * all would let one app settle or forget another's (docs/clickhouse.md, "Two apps, one database").
 * A table per folder, rather than a folder column: records of two folders never share a key (a
 * ReplacingMergeTree keeps one record per key), no shared table is ever altered, and one folder's
 * deletes (mutations) never rewrite another's parts.
 */

const TABLE = 'uba_outcomes'

/** The table of this data folder's records on `conn`'s database. */
const tableOf = (conn: Warehouse): string => (conn.folder ? `${TABLE}_${conn.folder}` : TABLE)

/**
 * Creates the outcomes table ahead of a transaction that seals into it: on ClickHouse a table
 * created inside a transaction is written at once, not staged, so its record could show before
 * its data (a load of a ClickHouse project calls this before it begins).
 */
export async function prepareOutcomes(conn: Warehouse): Promise<void> {
  await conn.run(conn.dialect.outcomesTable(tableOf(conn)))
}

/** Writes `outcome` under `key`; call inside the transaction that writes the data, before COMMIT. */
export async function sealOutcome(conn: Warehouse, key: string, outcome: unknown): Promise<void> {
  await conn.run(conn.dialect.outcomesTable(tableOf(conn)))
  await conn.run(conn.dialect.sealOutcomeSql(tableOf(conn)), [key, JSON.stringify(outcome)])
}

async function hasTable(conn: Warehouse, table: string): Promise<boolean> {
  const rows = await conn.rows(conn.dialect.outcomesTableCount(table))
  return Number(rows[0][0]) > 0
}

async function read(conn: Warehouse, table: string, keys: string[] | null): Promise<Map<string, unknown>> {
  const found = new Map<string, unknown>()
  if (keys?.length === 0 || !(await hasTable(conn, table))) return found
  const rows = await conn.rows(conn.dialect.readOutcomesSql(table, keys === null ? null : keys.length), keys ?? [])
  for (const [key, outcome] of rows) found.set(String(key), JSON.parse(String(outcome)))
  return found
}

/** The sealed outcomes among `keys`, or all of them (an absent key: that work's data did not commit). */
export function readOutcomes(conn: Warehouse, keys: string[] | null): Promise<Map<string, unknown>> {
  return read(conn, tableOf(conn), keys)
}

/** Drops sealed outcomes once the metadata says the same; every one but `keep` when `keys` is null. */
export async function forgetOutcomes(conn: Warehouse, keys: string[] | null, keep: string[] = []): Promise<void> {
  const table = tableOf(conn)
  if (!(await hasTable(conn, table))) return
  if (keys === null) await conn.run(conn.dialect.forgetOutcomesSql(table, keep.length, true), keep)
  else if (keys.length > 0) await conn.run(conn.dialect.forgetOutcomesSql(table, keys.length, false), keys)
}

/**
 * On a shared (ClickHouse) database: the records of the one table every folder wrote before each
 * had its own (`uba_outcomes`, left by earlier versions), or none elsewhere. They are read, never
 * forgotten wholesale: which of them are this folder's the caller tells by their keys.
 */
export function readEarlierOutcomes(conn: Warehouse): Promise<Map<string, unknown>> {
  return conn.folder ? read(conn, TABLE, null) : Promise.resolve(new Map())
}

/** Drops records of `keys` (this folder's, settled) from that earlier shared table. */
export async function forgetEarlierOutcomes(conn: Warehouse, keys: string[]): Promise<void> {
  if (!conn.folder || keys.length === 0 || !(await hasTable(conn, TABLE))) return
  await conn.run(conn.dialect.forgetOutcomesSql(TABLE, keys.length, false), keys)
}
