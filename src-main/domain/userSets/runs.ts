import type { Warehouse } from '../../warehouse'
import type { MetaDb } from '../../store/meta'
import type { Stored } from '../../store/meta/flags'
import type { SqlParams } from '../../warehouse/dialect'
import { dialectOf, type DomainContext } from '../context'
import { AppError } from '../errors'
import type { ProjectScope } from '../project/scope'
import { withWriteLock } from '../writeLock'
import { warehouseRefusal } from '../../warehouse/errors'
import { dimensionNameClash } from './membership'

/**
 * The background-computation skeleton shared by cohorts and tags. Every start bumps the record's
 * `run`; the computation runs inside the project's write lock and writes nothing once a later
 * start (a recalculate) or a delete has overtaken it. A failure is recorded on the record (status
 * failed, its reason) and rethrown. What differs (where the rows come from, how they are stored)
 * is a `Computation`.
 */

/** A failure reason shown to callers: an AppError's message, never internals. */
export const UNEXPECTED = 'the computation failed unexpectedly; the server log has the details'

/** The columns every computed record has. */
export interface ComputedRow {
  id: number
  code: string
  source: 'rule' | 'file'
}

/** A run's select, ready to be stored: the rows of `select` with the bound values of `p`. */
export interface Selected<Row> {
  appKey: string
  row: Row
  run: number
  now: number
  /** The warehouse table the run writes (already checked against dimension names). */
  table: string
  select: string
  p: SqlParams
  /** File sources: how many of the file's values matched users. */
  matched?: number
}

export interface Computation<Row extends ComputedRow, Out> {
  /** The metadata table of the records: a fixed identifier, never user input. */
  table: 'cohorts' | 'tags'
  /** What background jobs are called after ("cohort 3 run 2"). */
  label: string
  /** Whether a start notes its time in `attempt_time` (the daily cohort recompute reads it). */
  notesAttempt: boolean
  /** The table's row mapper (records.ts): its flags read as booleans. */
  row(stored: Stored<Row>): Row
  warehouseTable(code: string): string
  fileSelect(ctx: DomainContext, conn: Warehouse, row: Row, scope: ProjectScope): Promise<{ select: string; matched: number }>
  ruleSelect(ctx: DomainContext, conn: Warehouse, row: Row, scope: ProjectScope, now: number, p: SqlParams): Promise<string>
  /** Writes the rows and records the success; null when the run turns out overtaken. */
  store(ctx: DomainContext, conn: Warehouse, selected: Selected<Row>): Promise<Out | null>
}

export function scopeOf(meta: MetaDb, appKey: string): ProjectScope {
  const timeZone = meta.prepare('SELECT time_zone FROM projects WHERE app_key = ?').pluck().get(appKey) as string
  return { appKey, timeZone }
}

/** Computes run `run` of record `id` as of `now`; null when the run was overtaken. */
export async function materialiseRun<Row extends ComputedRow, Out>(ctx: DomainContext, kind: Computation<Row, Out>, id: number, run: number, now: number): Promise<Out | null> {
  const appKey = ctx.meta.prepare(`SELECT app_key FROM ${kind.table} WHERE id = ?`).pluck().get(id) as string | undefined
  if (!appKey) return null
  const scope = scopeOf(ctx.meta, appKey)
  try {
    return await withWriteLock(ctx, appKey, () =>
      ctx.warehouse.withConnection(appKey, scope.timeZone, async (conn) => {
        const stored = ctx.meta.prepare(`SELECT * FROM ${kind.table} WHERE id = ? AND run = ?`).get(id, run) as Stored<Row> | undefined
        if (!stored) return null
        const row = kind.row(stored)
        const table = kind.warehouseTable(row.code)
        const clash = dimensionNameClash(ctx.meta, appKey, table)
        if (clash) throw new AppError(400, 400, clash)
        // a database other apps share (ClickHouse): the table must not be another data folder's
        await conn.claimTable?.(table)
        const p = dialectOf(ctx, scope).params()
        let matched: number | undefined
        let select: string
        if (row.source === 'file') ({ select, matched } = await kind.fileSelect(ctx, conn, row, scope))
        else select = await kind.ruleSelect(ctx, conn, row, scope, now, p)
        return kind.store(ctx, conn, { appKey, row, run, now, table, select, p, matched })
      }),
    )
  } catch (err) {
    // ClickHouse's refusal in the request's words; anything else unforeseen only in the log
    const reason = err instanceof AppError ? err.message : (warehouseRefusal(err)?.message ?? UNEXPECTED)
    ctx.meta.prepare(`UPDATE ${kind.table} SET status = 'failed', fail_reason = ? WHERE id = ? AND run = ?`).run(reason, id, run)
    throw err
  }
}

/** Marks a new run of the record (status calculating) and returns its number. */
export function newRun(meta: MetaDb, kind: Pick<Computation<ComputedRow, unknown>, 'table' | 'notesAttempt'>, id: number, now: number): number {
  if (kind.notesAttempt) meta.prepare(`UPDATE ${kind.table} SET status = 'calculating', fail_reason = NULL, run = run + 1, attempt_time = ? WHERE id = ?`).run(now, id)
  else meta.prepare(`UPDATE ${kind.table} SET status = 'calculating', fail_reason = NULL, run = run + 1 WHERE id = ?`).run(id)
  return meta.prepare(`SELECT run FROM ${kind.table} WHERE id = ?`).pluck().get(id) as number
}

/** Starts a computation in the background; its outcome shows in the record's status. */
export function startRun<Row extends ComputedRow, Out>(ctx: DomainContext, kind: Computation<Row, Out>, id: number, now: number): number {
  const run = newRun(ctx.meta, kind, id, now)
  ctx.background.run(`${kind.label} ${id} run ${run}`, async () => {
    try {
      await materialiseRun(ctx, kind, id, run, now)
    } catch (err) {
      // the reason is on the record; only the unexpected (a refusal's details too) deserve the log
      if (!(err instanceof AppError)) throw err
    }
  })
  return run
}

/** Computations cut short by a stop (status still calculating) start again; returns their ids. */
export function resumeRuns<Row extends ComputedRow, Out>(ctx: DomainContext, kind: Computation<Row, Out>, now: number): number[] {
  const ids = ctx.meta.prepare(`SELECT id FROM ${kind.table} WHERE status = 'calculating' ORDER BY id`).pluck().all() as number[]
  for (const id of ids) startRun(ctx, kind, id, now)
  return ids
}
