import { asFlag, type Stored } from '../../store/meta/flags'
import { currentTime } from '../time/clock'
import { localStamp } from '../time/stamp'
import type { DomainContext, Operator } from '../context'
import { badParam } from '../errors'
import { checkOwner } from '../platform/owners'
import { dataChanged } from '../project/dataVersion'
import { recordOperation } from '../project/operations'
import type { ProjectScope } from '../project/scope'
import { planLookup } from '../schema/lookup'
import { withWriteLock } from '../writeLock'
import { dropMembers, startComputation } from '../userSets/cohortCompute'
import { checkName, cohortRow, type CohortRow, type CohortStatus } from '../userSets/records'
import { validateContent } from '../userSets/rules'
import { cohortView, existingCohort, insertCohort, type CohortView } from './store'

/**
 * Rule cohorts (spec 4.5, 3.3): create, read, list, recalculate, delete. Creation answers at once;
 * the members are computed in the background (status calculating, then success or failed with
 * failReason). A dynamic cohort is recomputed every day (scheduler.ts), a static one only at
 * creation and on recalculate.
 */

export interface NewCohort {
  name: unknown
  dynamic: unknown
  content: unknown
}

export interface CreatedCohort {
  id: number
  code: string
  name: string
  /** 1 dynamic, 0 static (spec 2.6). */
  dynamic: 0 | 1
  createTime: string
  content: unknown
}

/** Property SQL is not needed to check content, only the plan: no warehouse columns. */
const NO_COLUMNS = { event: new Set<string>(), user: new Set<string>() }

export function createCohort(ctx: DomainContext, scope: ProjectScope, input: NewCohort, operator: Operator | null): CreatedCohort {
  const name = checkName(input.name)
  if (input.dynamic !== 0 && input.dynamic !== 1) throw badParam('dynamic', 'dynamic must be 1 (recomputed daily) or 0 (static)')
  if (input.content === undefined || input.content === null) throw badParam('content', 'content is required: {ruleGroup, relations}')
  const env = { meta: ctx.meta, appKey: scope.appKey, lookup: planLookup(ctx.meta, scope.appKey), columns: NO_COLUMNS }
  const content = validateContent(input.content, 'content', env)
  const now = currentTime()
  const row = insertCohort(ctx.meta, scope.appKey, {
    name,
    dynamic: input.dynamic === 1,
    source: 'rule',
    content: JSON.stringify(content.plain),
    fileProperty: null,
    operator,
    now,
  })
  recordOperation(ctx.meta, operator, 'cohort.create', scope.appKey, row.code)
  startComputation(ctx, row.id, now)
  return { id: row.id, code: row.code, name: row.name, dynamic: asFlag(row.dynamic), createTime: localStamp(now, scope.timeZone), content: content.plain }
}

export function getCohort(ctx: DomainContext, scope: ProjectScope, id: number, needMore: boolean): CohortView {
  return cohortView(existingCohort(ctx.meta, scope.appKey, id), scope, needMore)
}

/** The project's cohorts, oldest first; `status` keeps only those in that state. */
export function listCohorts(ctx: DomainContext, scope: ProjectScope, needMore: boolean, status?: CohortStatus): CohortView[] {
  const rows = (
    status
      ? ctx.meta.prepare('SELECT * FROM cohorts WHERE app_key = ? AND status = ? ORDER BY id').all(scope.appKey, status)
      : ctx.meta.prepare('SELECT * FROM cohorts WHERE app_key = ? ORDER BY id').all(scope.appKey)
  ) as Stored<CohortRow>[]
  return rows.map((r) => cohortView(cohortRow(r), scope, needMore))
}

/** Starts a new computation of any cohort (rule or file, static or dynamic). */
export function recalculateCohort(ctx: DomainContext, scope: ProjectScope, id: number, operator: Operator | null): { id: number; status: 'calculating' } {
  const row = existingCohort(ctx.meta, scope.appKey, id)
  recordOperation(ctx.meta, operator, 'cohort.recalculate', scope.appKey, row.code)
  startComputation(ctx, row.id, currentTime())
  return { id: row.id, status: 'calculating' }
}

/** Removes a cohort and its members table; only its creator may (spec 4.5). */
export async function deleteCohort(ctx: DomainContext, scope: ProjectScope, id: number, operator: Operator | null): Promise<void> {
  const row = existingCohort(ctx.meta, scope.appKey, id)
  checkOwner(row, operator)
  // under the lock a running computation has either written (and is dropped now) or will find the row gone
  await withWriteLock(ctx, scope.appKey, async () => {
    ctx.meta.transaction(() => {
      ctx.meta.prepare('DELETE FROM cohorts WHERE id = ?').run(row.id)
      recordOperation(ctx.meta, operator, 'cohort.delete', scope.appKey, row.code)
    })()
    await dropMembers(ctx, scope, row.code)
    dataChanged(ctx.meta, scope.appKey)
  })
}
