import type { DuckDBConnection } from '@duckdb/node-api'
import type { MetaDb } from '../../store/meta'
import { localStamp } from '../analysis/runner'
import { SqlParams } from '../analysis/sqlParams'
import type { DomainContext } from '../context'
import { AppError } from '../errors'
import { dataChanged } from '../platform/dataVersion'
import type { ProjectScope } from '../platform/projects'
import { propertyColumns } from '../schema/columns'
import { inTransaction } from '../schema/dimensionWarehouse'
import { planLookup } from '../schema/lookup'
import { withWriteLock } from '../writeLock'
import { fileMembersSql, hasUsers, loadValues, matchedValues, NO_MEMBERS, userPropertySql } from './fileMatch'
import { dimensionNameClash } from './membership'
import { membersSql } from './ruleSql'
import { validateContent } from './rules'
import { membersTable, type CohortRow } from './store'

/**
 * Computing a cohort: its members are written to `cohort_<code>` (distinct_id BIGINT, xwho VARCHAR,
 * in distinct_id order), replaced in one transaction inside the project's write lock, so readers
 * see the old members or the new ones, never a mix. Every start bumps the cohort's `run`; a run
 * that a later start (a recalculate) or a delete overtook writes nothing.
 */

export interface Outcome {
  userNumber: number
  /** File cohorts: distinct values that matched at least one user. */
  matched?: number
}

/** A failure reason shown to callers: an AppError's message, never internals. */
export const UNEXPECTED = 'the computation failed unexpectedly; the server log has the details'

export function scopeOf(meta: MetaDb, appKey: string): ProjectScope {
  const timeZone = meta.prepare('SELECT time_zone FROM projects WHERE app_key = ?').pluck().get(appKey) as string
  return { appKey, timeZone }
}

/** SQL for "now" as a local TIMESTAMP of the session's time zone (as the analyses write it). */
export function nowLocalSql(now: number): string {
  return `CAST(to_timestamp(${now / 1000}) AS TIMESTAMP)`
}

function currentRun(meta: MetaDb, id: number, run: number): CohortRow | undefined {
  return meta.prepare('SELECT * FROM cohorts WHERE id = ? AND run = ?').get(id, run) as CohortRow | undefined
}

async function columnsOf(conn: DuckDBConnection) {
  return { event: new Set((await propertyColumns(conn, 'event_vd')).keys()), user: new Set((await propertyColumns(conn, 'profile_vd')).keys()) }
}

/** The members select of a rule cohort; the stored content is checked again against today's plan. */
async function ruleSelect(ctx: DomainContext, conn: DuckDBConnection, row: CohortRow, scope: ProjectScope, now: number, p: SqlParams): Promise<string> {
  const columns = await columnsOf(conn)
  const env = { meta: ctx.meta, appKey: scope.appKey, lookup: planLookup(ctx.meta, scope.appKey), columns }
  const content = validateContent(JSON.parse(row.content ?? 'null'), 'content', env)
  if (!(await hasUsers(conn))) return NO_MEMBERS
  return membersSql(content, { columns, nowLocal: nowLocalSql(now), today: localStamp(now, scope.timeZone).slice(0, 10) }, p)
}

/** The members select of a file cohort, after loading its values; also counts the matched values. */
async function fileSelect(ctx: DomainContext, conn: DuckDBConnection, row: CohortRow): Promise<{ select: string; matched: number }> {
  const values = ctx.meta.prepare('SELECT value FROM cohort_file_values WHERE cohort_id = ?').pluck().all(row.id) as string[]
  await loadValues(conn, 'file_values', values)
  const property = userPropertySql(row.file_property ?? 'xwho', await columnsOf(conn))
  const users = await hasUsers(conn)
  const matched = await matchedValues(conn, property, users)
  return { select: property && users ? fileMembersSql(property) : NO_MEMBERS, matched }
}

/**
 * Computes run `run` of cohort `id` as of `now`. Resolves to null when the run was overtaken;
 * a failure is recorded on the cohort (status failed, its reason) and rethrown.
 */
export async function materialise(ctx: DomainContext, id: number, run: number, now: number): Promise<Outcome | null> {
  const appKey = ctx.meta.prepare('SELECT app_key FROM cohorts WHERE id = ?').pluck().get(id) as string | undefined
  if (!appKey) return null
  const scope = scopeOf(ctx.meta, appKey)
  try {
    return await withWriteLock(ctx, appKey, () =>
      ctx.warehouse.withConnection(appKey, scope.timeZone, async (conn) => {
        const row = currentRun(ctx.meta, id, run)
        if (!row) return null
        const table = membersTable(row.code)
        const clash = dimensionNameClash(ctx.meta, appKey, table)
        if (clash) throw new AppError(400, 400, clash)
        const p = new SqlParams()
        let matched: number | undefined
        let select: string
        if (row.source === 'file') ({ select, matched } = await fileSelect(ctx, conn, row))
        else select = await ruleSelect(ctx, conn, row, scope, now, p)
        const userNumber = await inTransaction(conn, async () => {
          await conn.run(`CREATE OR REPLACE TABLE ${table} AS SELECT CAST(distinct_id AS BIGINT) AS distinct_id, CAST(xwho AS VARCHAR) AS xwho FROM (${select}) ORDER BY distinct_id`, p.values as never)
          return Number((await conn.runAndReadAll(`SELECT count(*) FROM ${table}`)).getRows()[0][0])
        })
        const changed = ctx.meta
          .prepare(`UPDATE cohorts SET status = 'success', fail_reason = NULL, user_number = ?, calculated_time = ?, update_time = ? WHERE id = ? AND run = ?`)
          .run(userNumber, now, now, id, run).changes
        dataChanged(ctx.meta, appKey)
        return changed > 0 ? { userNumber, matched } : null
      }),
    )
  } catch (err) {
    const reason = err instanceof AppError ? err.message : UNEXPECTED
    ctx.meta.prepare(`UPDATE cohorts SET status = 'failed', fail_reason = ? WHERE id = ? AND run = ?`).run(reason, id, run)
    throw err
  }
}

/** Marks a new run of the cohort (status calculating) and returns its number. */
export function newRun(meta: MetaDb, id: number, now: number): number {
  meta.prepare(`UPDATE cohorts SET status = 'calculating', fail_reason = NULL, run = run + 1, attempt_time = ? WHERE id = ?`).run(now, id)
  return meta.prepare('SELECT run FROM cohorts WHERE id = ?').pluck().get(id) as number
}

/** Starts a computation in the background; its outcome shows in the cohort's status. */
export function startComputation(ctx: DomainContext, id: number, now: number): number {
  const run = newRun(ctx.meta, id, now)
  ctx.background.run(`cohort ${id} run ${run}`, async () => {
    try {
      await materialise(ctx, id, run, now)
    } catch (err) {
      // the reason is on the cohort; only the unexpected deserve the log
      if (!(err instanceof AppError)) throw err
    }
  })
  return run
}

/** Drops a cohort's members table (inside the caller's write lock). */
export async function dropMembers(ctx: DomainContext, scope: ProjectScope, code: string): Promise<void> {
  await ctx.warehouse.withConnection(scope.appKey, scope.timeZone, async (conn) => {
    await conn.run(`DROP TABLE IF EXISTS ${membersTable(code)}`)
  })
}
