import type { DomainContext } from '../context'
import { AppError, badParam } from '../errors'
import { getSetting, type SettingKey } from '../platform/settings'

/**
 * The limits of custom SQL, read from the settings table at each request (defaults in
 * platform/settings.ts):
 * - `svcweb.open_api.sqlquery.limit` (10000): most rows the query endpoint returns; -1 unlimited.
 *   Exports have no row limit (spec part 8).
 * - `sql.query.timeLimitMs` (60000) and `sql.export.timeLimitMs` (600000, the spec's 10 minutes).
 * - `sql.concurrency` (4): queries and exports running at once on this server.
 */

export type SqlEndpoint = 'query' | 'export'

export interface SqlLimits {
  /** Most rows returned, or null for no limit. */
  rows: number | null
  timeLimitMs: number
  /** The setting that holds the time limit, named in the error. */
  timeSetting: SettingKey
}

function numeric(ctx: DomainContext, key: SettingKey, fallback: number): number {
  const n = Number(getSetting(ctx.meta, key))
  return Number.isFinite(n) ? n : fallback
}

export function sqlLimits(ctx: DomainContext, endpoint: SqlEndpoint): SqlLimits {
  const timeSetting: SettingKey = endpoint === 'query' ? 'sql.query.timeLimitMs' : 'sql.export.timeLimitMs'
  const rows = endpoint === 'query' ? Math.floor(numeric(ctx, 'svcweb.open_api.sqlquery.limit', 10000)) : -1
  return { rows: rows < 0 ? null : rows, timeLimitMs: Math.max(1, numeric(ctx, timeSetting, 60000)), timeSetting }
}

export function timeLimitReached(limits: SqlLimits, endpoint: SqlEndpoint): AppError {
  const seconds = limits.timeLimitMs / 1000
  const more = endpoint === 'query' ? '; large results belong to /uba/api/sql/export' : ''
  return new AppError(
    501,
    50103,
    `the query was stopped at its time limit of ${seconds} s (setting ${limits.timeSetting}): narrow it, for example with a WHERE on ds, or add LIMIT${more}`,
  )
}

/**
 * V8 holds no string over 2^29 - 24 characters (about 512 MB): a value, a row or a query answer
 * past that cannot be read or sent as text. The caller's to fix, so a 400 naming sql; null for
 * any other error.
 */
export function tooLargeToSend(err: unknown): AppError | null {
  const stringTooLong = (err as { code?: unknown } | null)?.code === 'ERR_STRING_TOO_LONG'
  const invalidLength = err instanceof RangeError && /invalid string length/i.test(err.message)
  if (!stringTooLong && !invalidLength) return null
  return badParam(
    'sql',
    'a value or row of the result is too large to send (more than about 512 MB as text): select a part of it, for example with left(value, n), or fewer rows at a time',
  )
}

/** Custom SQL queries running now, per server (context). */
const running = new WeakMap<DomainContext, number>()

export function runningSqlQueries(ctx: DomainContext): number {
  return running.get(ctx) ?? 0
}

/** Takes one of the server's SQL slots (501/50104 when none is free); call the result to give it back once. */
export function takeSlot(ctx: DomainContext): () => void {
  const ceiling = Math.max(1, Math.floor(numeric(ctx, 'sql.concurrency', 4)))
  const now = runningSqlQueries(ctx)
  if (now >= ceiling) {
    throw new AppError(501, 50104, `${now} custom SQL queries are running, the most this server runs at once (setting sql.concurrency): try again when one has finished`)
  }
  running.set(ctx, now + 1)
  let held = true
  return () => {
    if (!held) return
    held = false
    running.set(ctx, runningSqlQueries(ctx) - 1)
  }
}
