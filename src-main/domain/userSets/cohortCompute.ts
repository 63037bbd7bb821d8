import type { Warehouse } from '../../warehouse'
import type { MetaDb } from '../../store/meta'
import type { SqlParams } from '../../warehouse/dialect'
import { currentTime } from '../time/clock'
import { localStamp } from '../time/stamp'
import { dialectOf, type DomainContext } from '../context'
import { dataChanged } from '../project/dataVersion'
import type { ProjectScope } from '../project/scope'
import { propertyColumns } from '../schema/columns'
import { inTransaction } from '../schema/dimensionWarehouse'
import { planLookup } from '../schema/lookup'
import { fileMembersSql, hasUsers, loadValues, matchedValues, noMembers, userPropertySql } from './fileMatch'
import { membersSql } from './ruleSql'
import { validateContent } from './rules'
import { materialiseRun, newRun as newComputedRun, resumeRuns, startRun, type Computation } from './runs'
import { membersTable } from './membership'
import { cohortRow, type CohortRow } from './records'
import { forgetOutcomes, prepareOutcomes, sealOutcome } from '../outcomes'
import { testPause } from '../../testPause'

/**
 * Computing a cohort: its members are written to `cohort_<code>` (distinct_id BIGINT, xwho VARCHAR,
 * in distinct_id order), replaced in one transaction inside the project's write lock, so readers
 * see the old members or the new ones, never a mix. Runs and failures work as in runs.ts.
 */

export interface Outcome {
  userNumber: number
  /** File cohorts: distinct values that matched at least one user. */
  matched?: number
}

/** What a cohort run seals with its members (domain/outcomes.ts). */
export interface SealedCohortRun {
  userNumber: number
  now: number
}

export const cohortRunKey = (id: number, run: number): string => `cohort:${id}:${run}`

/** The property columns the warehouse holds today, for checking stored rule contents. */
export async function columnsOf(conn: Warehouse): Promise<{ event: Set<string>; user: Set<string> }> {
  return { event: new Set((await propertyColumns(conn, 'event_vd')).keys()), user: new Set((await propertyColumns(conn, 'profile_vd')).keys()) }
}

/** The members select of a rule cohort; the stored content is checked again against today's plan. */
async function ruleSelect(ctx: DomainContext, conn: Warehouse, row: CohortRow, scope: ProjectScope, now: number, p: SqlParams): Promise<string> {
  const columns = await columnsOf(conn)
  const env = { meta: ctx.meta, appKey: scope.appKey, lookup: planLookup(ctx.meta, scope.appKey), columns }
  const content = validateContent(JSON.parse(row.content ?? 'null'), 'content', env)
  if (!(await hasUsers(conn, dialectOf(ctx, scope)))) return noMembers(dialectOf(ctx, scope))
  return membersSql(content, { dialect: dialectOf(ctx, scope), columns, nowLocal: dialectOf(ctx, scope).localNow(now), today: localStamp(now, scope.timeZone).slice(0, 10) }, p)
}

/** The members select of a file cohort, after loading its values; also counts the matched values. */
async function fileSelect(ctx: DomainContext, conn: Warehouse, row: CohortRow, scope: ProjectScope): Promise<{ select: string; matched: number }> {
  const values = ctx.meta.prepare('SELECT value FROM cohort_file_values WHERE cohort_id = ?').pluck().all(row.id) as string[]
  await loadValues(conn, dialectOf(ctx, scope), 'file_values', values)
  const property = userPropertySql(dialectOf(ctx, scope), row.file_property ?? 'xwho', await columnsOf(conn))
  const users = await hasUsers(conn, dialectOf(ctx, scope))
  const matched = await matchedValues(conn, property, users)
  return { select: property && users ? fileMembersSql(property) : noMembers(dialectOf(ctx, scope)), matched }
}

const COHORTS: Computation<CohortRow, Outcome> = {
  table: 'cohorts',
  label: 'cohort',
  notesAttempt: true,
  row: cohortRow,
  warehouseTable: membersTable,
  fileSelect,
  ruleSelect,
  async store(ctx, conn, { appKey, row, run, now, table, select, p, matched }) {
    // made before the transaction: on ClickHouse the sealed record is then staged with the rows
    await prepareOutcomes(conn)
    const userNumber = await inTransaction(conn, async () => {
      const d = dialectOf(ctx, { appKey })
      const members = `SELECT ${d.cast('distinct_id', 'bigint')} AS distinct_id, ${d.cast('xwho', 'string')} AS xwho FROM (${select}) ORDER BY distinct_id`
      for (const statement of d.replaceTable(table, members)) await conn.run(statement, p.values)
      const n = Number((await conn.rows(`SELECT count(*) FROM ${table}`))[0][0])
      // the run's outcome commits with its members: a crash before the status below is settled at start-up
      await sealOutcome(conn, cohortRunKey(row.id, run), { userNumber: n, now } satisfies SealedCohortRun)
      await testPause('before-commit', `cohort ${row.id}`)
      return n
    })
    await testPause('after-commit', `cohort ${row.id}`)
    const changed = ctx.meta
      .prepare(`UPDATE cohorts SET status = 'success', fail_reason = NULL, user_number = ?, calculated_time = ?, update_time = ? WHERE id = ? AND run = ?`)
      .run(userNumber, now, now, row.id, run).changes
    dataChanged(ctx.meta, appKey)
    await forgetOutcomes(conn, [cohortRunKey(row.id, run)]).catch(() => undefined)
    return changed > 0 ? { userNumber, matched } : null
  },
}

/**
 * Computes run `run` of cohort `id` as of `now`. Resolves to null when the run was overtaken;
 * a failure is recorded on the cohort (status failed, its reason) and rethrown.
 */
export function materialise(ctx: DomainContext, id: number, run: number, now: number): Promise<Outcome | null> {
  return materialiseRun(ctx, COHORTS, id, run, now)
}

/** Marks a new run of the cohort (status calculating, attempt_time now) and returns its number. */
export function newRun(meta: MetaDb, id: number, now: number): number {
  return newComputedRun(meta, COHORTS, id, now)
}

/** Starts a computation in the background; its outcome shows in the cohort's status. */
export function startComputation(ctx: DomainContext, id: number, now: number): number {
  return startRun(ctx, COHORTS, id, now)
}

/** Computations cut short by a stop (status still calculating) start again. */
export function resumeCohorts(ctx: DomainContext, now: number = currentTime()): number[] {
  return resumeRuns(ctx, COHORTS, now)
}

/** Drops a cohort's members table (inside the caller's write lock). */
export async function dropMembers(ctx: DomainContext, scope: ProjectScope, code: string): Promise<void> {
  await ctx.warehouse.withConnection(scope.appKey, scope.timeZone, async (conn) => {
    // on a shared ClickHouse database, another data folder's table of this name stays
    if (conn.dropOwnTable) await conn.dropOwnTable(membersTable(code))
    else await conn.run(`DROP TABLE IF EXISTS ${membersTable(code)}`)
  })
}
