import type { Warehouse } from '../warehouse'

/**
 * Outcomes sealed with the data they describe. Work that writes a project's warehouse in one
 * transaction (an import, the sample, a cohort or tag run) also writes there a small record of
 * what it wrote, in that same transaction, right before its COMMIT. The metadata (job state, plan,
 * cohort status) is updated after the commit; a crash in between leaves the record, and start-up
 * settles the metadata from it. So the record exists exactly when the data committed, and after a
 * crash at any instant the metadata can be made to say what the data holds.
 * `uba_` names are reserved (no dimension table can take one), and custom SQL cannot read it.
 */

const TABLE = 'uba_outcomes'

/**
 * Creates the outcomes table ahead of a transaction that seals into it: on ClickHouse a table
 * created inside a transaction is written at once, not staged, so its record could show before
 * its data (a load of a ClickHouse project calls this before it begins).
 */
export async function prepareOutcomes(conn: Warehouse): Promise<void> {
  await conn.run(conn.dialect.outcomesTable(TABLE))
}

/** Writes `outcome` under `key`; call inside the transaction that writes the data, before COMMIT. */
export async function sealOutcome(conn: Warehouse, key: string, outcome: unknown): Promise<void> {
  await conn.run(conn.dialect.outcomesTable(TABLE))
  await conn.run(conn.dialect.sealOutcomeSql(TABLE), [key, JSON.stringify(outcome)])
}

async function hasTable(conn: Warehouse): Promise<boolean> {
  const rows = await conn.rows(conn.dialect.outcomesTableCount(TABLE))
  return Number(rows[0][0]) > 0
}

/** The sealed outcomes among `keys`, or all of them (an absent key: that work's data did not commit). */
export async function readOutcomes(conn: Warehouse, keys: string[] | null): Promise<Map<string, unknown>> {
  const found = new Map<string, unknown>()
  if (keys?.length === 0 || !(await hasTable(conn))) return found
  const rows = await conn.rows(conn.dialect.readOutcomesSql(TABLE, keys === null ? null : keys.length), keys ?? [])
  for (const [key, outcome] of rows) found.set(String(key), JSON.parse(String(outcome)))
  return found
}

/** Drops sealed outcomes once the metadata says the same; every one but `keep` when `keys` is null. */
export async function forgetOutcomes(conn: Warehouse, keys: string[] | null, keep: string[] = []): Promise<void> {
  if (!(await hasTable(conn))) return
  if (keys === null) await conn.run(conn.dialect.forgetOutcomesSql(TABLE, keep.length, true), keep)
  else if (keys.length > 0) await conn.run(conn.dialect.forgetOutcomesSql(TABLE, keys.length, false), keys)
}
