import type { DomainContext } from '../context'
import { forgetOutcomes, readOutcomes } from '../outcomes'
import { recordTagVersion, tagRunKey, type SealedTagRun } from './tagCompute'
import { cohortRunKey, type SealedCohortRun } from './cohortCompute'
import { dataChanged } from '../project/dataVersion'

/**
 * At start-up, before interrupted computations resume: a cohort or tag run whose members
 * committed just before the app stopped (its outcome is sealed in the warehouse, see
 * domain/outcomes.ts) is settled from that outcome, a success with the count and time it sealed,
 * instead of being computed again; a run whose data did not commit stays calculating and is
 * resumed (scheduler.ts), its previous members served meanwhile.
 */

interface Pending {
  table: 'cohorts' | 'tags'
  id: number
  run: number
  app_key: string
}

function settle(ctx: DomainContext, pending: Pending, sealed: unknown): void {
  if (pending.table === 'tags') {
    recordTagVersion(ctx.meta, pending.id, pending.run, sealed as SealedTagRun)
    return
  }
  const { userNumber, now } = sealed as SealedCohortRun
  ctx.meta
    .prepare(`UPDATE cohorts SET status = 'success', fail_reason = NULL, user_number = ?, calculated_time = ?, update_time = ? WHERE id = ? AND run = ?`)
    .run(userNumber, now, now, pending.id, pending.run)
  dataChanged(ctx.meta, pending.app_key)
}

const keyOf = (p: Pending) => (p.table === 'tags' ? tagRunKey(p.id, p.run) : cohortRunKey(p.id, p.run))

export async function settleInterruptedRuns(ctx: DomainContext): Promise<void> {
  const pending = [
    ...(ctx.meta.prepare("SELECT 'cohorts' AS \"table\", id, run, app_key FROM cohorts WHERE status = 'calculating'").all() as Pending[]),
    ...(ctx.meta.prepare("SELECT 'tags' AS \"table\", id, run, app_key FROM tags WHERE status = 'calculating'").all() as Pending[]),
  ]
  const project = ctx.meta.prepare('SELECT time_zone FROM projects WHERE app_key = ? AND status = 1').pluck()
  for (const appKey of new Set(pending.map((p) => p.app_key))) {
    const timeZone = project.get(appKey) as string | undefined
    if (!timeZone || !ctx.warehouse.exists(appKey)) continue
    const runs = pending.filter((p) => p.app_key === appKey)
    try {
      await ctx.warehouse.withConnection(appKey, timeZone, async (conn) => {
        const sealed = await readOutcomes(conn, runs.map(keyOf))
        for (const run of runs) if (sealed.has(keyOf(run))) settle(ctx, run, sealed.get(keyOf(run)))
        await forgetOutcomes(conn, [...sealed.keys()])
      })
    } catch (err) {
      // left calculating: resumed like any interrupted computation
      ctx.background.run(`settle the computations of ${appKey} at start-up`, () => Promise.reject(err))
    }
  }
}
