import { hostname } from 'node:os'
import { AppError } from '../../errors'
import { quoteName } from './bound'
import { lockedBy, withDatabaseLock } from './commitLock'
import { ClickHouseError } from './errors'
import { quoteString } from './literal'
import type { Exec } from './staging'

/**
 * Which data folder a table of the project's own naming (`cohort_<code>`, `tag_<code>`) belongs
 * to, on a database several UBA Desks may share: codes come from each app's own numbering, so
 * two apps' cohort c1 would be one table. The first app that writes such a table claims it (a row
 * of `uba_owners`; 18.16 has no table comments); another folder's computation is then refused,
 * naming the table and its owner, and another folder's delete leaves it alone. A table from
 * before (no claim) goes to the first app that writes it. Claims and releases are made under the
 * database's commit lock, numbered in that order (`seq`, not the clocks of several machines).
 */

export const OWNERS = 'uba_owners'

const DDL = `CREATE TABLE IF NOT EXISTS ${OWNERS} (name String, folder String, project String, host String, at Int64, seq UInt64) ENGINE = MergeTree ORDER BY name`

interface Owner {
  folder: string
  project: string
  host: string
  at: number
}

/** The latest claim of `table` ('' folder: released), or null when it was never claimed. */
async function ownerOf(exec: Exec, table: string): Promise<Owner | null> {
  const [[n, folder, project, host, at]] = await exec.rows(`SELECT count(), argMax(folder, seq), argMax(project, seq), argMax(host, seq), argMax(at, seq) FROM ${OWNERS} WHERE name = ${quoteString(table)}`)
  if (Number(n) === 0 || folder === '') return null
  return { folder: String(folder), project: String(project), host: String(host), at: Number(at) }
}

async function record(exec: Exec, table: string, folder: string, project: string): Promise<void> {
  const host = hostname().replace(/[^A-Za-z0-9._-]/g, '_')
  await exec.command(`INSERT INTO ${OWNERS} SELECT ${quoteString(table)}, ${quoteString(folder)}, ${quoteString(project)}, ${quoteString(host)}, ${Date.now()}, (SELECT count() FROM ${OWNERS}) + 1`)
}

/** Runs `work` holding the commit lock, with the owners table in place. */
function locked<T>(exec: Exec, database: string, folder: string, work: () => Promise<T>): Promise<T> {
  return withDatabaseLock(
    exec,
    database,
    folder,
    async () => {
      await exec.command(DDL)
      return work()
    },
    (holder) => new AppError(503, 503, lockedBy(holder, database, 'nothing was written')),
  )
}

/** Marks `table` this folder's (project `project`), or throws a 503 naming the folder that has it. */
export async function claimTable(exec: Exec, database: string, folder: string, project: string, table: string): Promise<void> {
  // already this folder's (only its owner releases a claim): no lock needed; no owners table yet (60): claimed below
  const mine = await ownerOf(exec, table).then(
    (owner) => owner?.folder === folder,
    (e: unknown) => {
      if (e instanceof ClickHouseError && e.code === 60) return false
      throw e
    },
  )
  if (mine) return
  return locked(exec, database, folder, async () => {
    const owner = await ownerOf(exec, table)
    if (owner?.folder === folder) return
    if (owner) {
      throw new AppError(
        503,
        503,
        `the ClickHouse table ${database}.${table} belongs to another UBA Desk (data folder ${owner.folder}, project ${owner.project} on ${owner.host}, since ${new Date(owner.at).toISOString()}) sharing this database: ` +
          `this one would overwrite its rows, so nothing was written. Projects of two apps need databases of their own for cohorts and tags (docs/clickhouse.md, "Two apps, one database")`,
      )
    }
    await record(exec, table, folder, project)
  })
}

/** Drops `table` and its claim unless another folder has it (then it stays, theirs). */
export function dropOwnTable(exec: Exec, database: string, folder: string, table: string): Promise<void> {
  return locked(exec, database, folder, async () => {
    const owner = await ownerOf(exec, table)
    if (owner && owner.folder !== folder) return
    await exec.command(`DROP TABLE IF EXISTS ${quoteName(table)}`)
    if (owner) await record(exec, table, '', '')
  })
}
