import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { quoteName } from './bound'
import { ClickHouseError } from './errors'
import { quoteString } from './literal'
import type { Exec } from './staging'

/**
 * The database's commit lock, shared by every UBA Desk writing one ClickHouse database (each
 * app's own write lock covers only its own writes): a table `_uba_commit_lock` made by CREATE
 * TABLE, which one creator at a time wins (error 57 for the others). Its holder is written into
 * the table's definition (its one column's DEFAULT), so it exists exactly when the table does,
 * and survives a restart of the server (a Memory table keeps its definition, not its rows).
 *
 * A lock whose holder is gone (kill -9 while holding it) is removed only when this app can tell
 * for sure: it is this data folder's, on this host, of another process run, and that process is
 * not alive. A lock of another folder is never taken over, however old: a holder renews nothing,
 * so its age proves nothing, and taking the lock of a holder still moving its rows into place
 * could lose them (docs/clickhouse.md, "Two apps, one database"). Waiting for it ends in an error
 * naming the holder and how to clear it.
 */

export const DATABASE_LOCK = '_uba_commit_lock'

/** Who holds the lock. */
export interface LockHolder {
  /** The holder's data folder id (settings `platform.folderId`). */
  folder: string
  pid: number
  host: string
  /** Random per process: a later process given the same pid is still another run. */
  run: string
  /** Random per taking: tells this process's lock from one it failed to take (its answer lost). */
  take: string
  /** Epoch ms the lock was taken. */
  since: number
}

/** This process's run id. */
const RUN = randomBytes(4).toString('hex')
/** The takings (`take`) of the locks this process holds now, or is taking. */
const held = new Set<string>()

/** This process as a holder of the lock for `folder`, taken now. */
export function holderNow(folder: string): LockHolder {
  return { folder, pid: process.pid, host: hostname().replace(/[^A-Za-z0-9._-]/g, '_'), run: RUN, take: randomBytes(4).toString('hex'), since: Date.now() }
}

/** The holder as the column's DEFAULT keeps it: `key=value;…`, no quote or backslash to escape. */
function encode(h: LockHolder): string {
  return `folder=${h.folder.replace(/[^A-Za-z0-9]/g, '')};pid=${h.pid};host=${h.host};run=${h.run};take=${h.take};since=${h.since}`
}

/** The holder from the column's default_expression (`'folder=…;…'`); null when it is not one (another version's lock). */
export function decodeHolder(expression: string): LockHolder | null {
  const fields = new Map(expression.replace(/^\\?'|\\?'$/g, '').split(';').map((kv) => kv.split('=') as [string, string]))
  const pid = Number(fields.get('pid'))
  const since = Number(fields.get('since'))
  const [folder, host, run] = ['folder', 'host', 'run'].map((k) => fields.get(k))
  if (!folder || !host || !run || !Number.isInteger(pid) || !Number.isFinite(since)) return null
  return { folder, pid, host, run, take: fields.get('take') ?? '', since }
}

/** The lock's holder now: undefined when there is no lock, null when it names none (made by an earlier version). */
export async function lockHolder(exec: Exec, database: string): Promise<LockHolder | null | undefined> {
  // every version's lock has the one column `holder` (earlier ones without a DEFAULT)
  const rows = await exec.rows(`SELECT default_expression FROM system.columns WHERE database = ${quoteString(database)} AND table = ${quoteString(DATABASE_LOCK)} AND name = 'holder'`)
  if (rows.length === 0) return undefined
  return decodeHolder(String(rows[0][0] ?? ''))
}

/** Whether a process of this id runs on this machine (EPERM: it does, as another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Whether `holder` is certainly gone: this folder's, on this host, and either an earlier run whose
 * process is not alive (a pid taken again by this process counts as gone), or this process's own
 * taking that it does not hold (the CREATE's answer was lost, e.g. the connection was cut).
 */
export function ownCrashLeftover(holder: LockHolder | null | undefined, folder: string): boolean {
  if (!holder) return false
  const me = holderNow(folder)
  if (holder.folder !== folder || holder.host !== me.host) return false
  if (holder.run === RUN) return !held.has(holder.take)
  return holder.pid === process.pid || !alive(holder.pid)
}

/** One look-and-drop at a time in this process: only this folder's process drops its own stale lock, so nothing can replace it between the look and the DROP. */
let dropping: Promise<unknown> = Promise.resolve()

/** Drops the lock when it is this folder's crash leftover (see `ownCrashLeftover`); true when it did. */
export function dropOwnStaleLock(exec: Exec, database: string, folder: string): Promise<boolean> {
  const done = dropping.then(async () => {
    if (!ownCrashLeftover(await lockHolder(exec, database), folder)) return false
    await exec.command(`DROP TABLE IF EXISTS ${quoteName(DATABASE_LOCK)}`)
    return true
  })
  dropping = done.catch(() => undefined)
  return done
}

/** What the error of a wait that timed out says about the lock (`outcome`: what the work did not do). */
export function lockedBy(holder: LockHolder | null, database: string, outcome = 'nothing was imported'): string {
  const who = holder ? `the UBA Desk of data folder ${holder.folder} (process ${holder.pid} on ${holder.host}) since ${new Date(holder.since).toISOString()}` : 'an earlier version of UBA Desk'
  return `the ClickHouse database ${database} is locked by ${who} (a UBA Desk that stopped while loading?); ${outcome}. If that app is not loading now, drop the lock on the server (DROP TABLE ${database}.${DATABASE_LOCK}) and try again`
}

/**
 * Runs `work` holding the lock as `folder`. A holder is waited for up to `waitMs`, then `busy(holder)`
 * is thrown (the holder then, null when it names none); this folder's own crash leftover is dropped at once.
 */
export async function withDatabaseLock<T>(exec: Exec, database: string, folder: string, work: () => Promise<T>, busy: (holder: LockHolder | null) => Error, waitMs = 10_000): Promise<T> {
  const lock = quoteName(DATABASE_LOCK)
  const until = Date.now() + waitMs
  let checked = false
  const me = holderNow(folder)
  for (;;) {
    held.add(me.take)
    try {
      await exec.command(`CREATE TABLE ${lock} (holder String DEFAULT ${quoteString(encode({ ...me, since: Date.now() }))}) ENGINE = Memory`)
      break
    } catch (e) {
      // not held: if the table was made after all (its answer lost), the next taking drops it
      held.delete(me.take)
      if (!(e instanceof ClickHouseError && e.code === 57)) throw e
      // looked at once per wait: this folder's own crash leftover goes at once
      if (!checked && (await dropOwnStaleLock(exec, database, folder))) continue
      checked = true
      if (Date.now() > until) {
        const holder = await lockHolder(exec, database)
        // released just now: one more try
        if (holder === undefined) continue
        throw busy(holder)
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  try {
    return await work()
  } finally {
    await exec.command(`DROP TABLE IF EXISTS ${lock}`).catch(() => undefined)
    // a DROP that failed leaves this taking's table: no longer held, so the next taking drops it
    held.delete(me.take)
  }
}
