import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Warehouse } from '../../warehouse'
import type { DomainContext } from '../context'
import { forgetEarlierOutcomes, forgetOutcomes, readEarlierOutcomes, readOutcomes } from '../outcomes'
import type { ProjectScope } from '../project/scope'
import { recordReported } from '../schema/plan'
import { jobKey, reportedOf, resultOf, UPLOAD_KEY_PREFIX, type JobOutcome, type SealedReported } from './jobOutcome'
import { settleImport, succeededFields, update, type JobRow, type Settle } from './jobs'
import { settleSample } from './sample'

/**
 * What a crash leaves, put right at start-up before the API opens (no job runs yet):
 * - jobs still queued or running in the metadata are settled from their project's warehouse: a
 *   job whose data committed (its sealed outcome is there) succeeded with the counts it sealed,
 *   and its plan side is done again; any other wrote nothing and failed;
 * - a collector batch that committed before the plan knew what it reported is recorded in the
 *   plan from its sealed outcome;
 * - files placed for DuckDB's readers (staging) and uploaded copies, which only a running job or
 *   request uses, are removed; a clean stop removes them too.
 */

const STOPPED_RUNNING = 'the app stopped before the import finished; nothing was imported'
const STOPPED_QUEUED = 'the app stopped before the import started; nothing was imported'
const UNCHECKED = 'the app stopped before the import finished, and the project database could not be opened to check what it holds'

function settleOf(ctx: DomainContext, scope: ProjectScope, kind: string): Settle {
  return kind === 'sample' ? settleSample(ctx, scope, null) : settleImport(ctx, scope.appKey)
}

function failed(ctx: DomainContext, row: JobRow, error: string): void {
  update(ctx, row.id, { state: 'failed', end_time: Date.now(), error: row.state === 'queued' ? STOPPED_QUEUED : error })
}

/** Settles a job whose data committed; a plan step that fails is logged and tried at the next start. */
async function settleJob(ctx: DomainContext, scope: ProjectScope, row: JobRow, outcome: JobOutcome): Promise<boolean> {
  const result = resultOf(outcome)
  let settled = true
  try {
    await settleOf(ctx, scope, row.kind)(result)
  } catch (err) {
    settled = false
    ctx.background.run(`settle job ${row.id} at start-up`, () => Promise.reject(err))
  }
  if (row.state !== 'succeeded') update(ctx, row.id, succeededFields(row.options, result))
  return settled
}

/**
 * This folder's job records in the table every folder of a shared database wrote before each had
 * its own (domain/outcomes.ts): a key `job:<id>` of one of this project's jobs is this folder's
 * (job ids are random UUIDs). Other records there (collector batches, cohort and tag runs, keyed
 * by random or per-app ids) cannot be told apart and are left alone (docs/clickhouse.md).
 */
async function earlierJobOutcomes(ctx: DomainContext, appKey: string, conn: Warehouse): Promise<Map<string, unknown>> {
  const known = ctx.meta.prepare('SELECT 1 FROM import_jobs WHERE id = ? AND app_key = ?').pluck()
  const earlier = await readEarlierOutcomes(conn)
  return new Map([...earlier].filter(([key]) => key.startsWith('job:') && known.get(key.slice(4), appKey) !== undefined))
}

async function settleProject(ctx: DomainContext, scope: ProjectScope, rows: JobRow[], conn: Warehouse): Promise<void> {
  const sealed = await readOutcomes(conn, null)
  const earlier = await earlierJobOutcomes(ctx, scope.appKey, conn)
  for (const [key, outcome] of earlier) if (!sealed.has(key)) sealed.set(key, outcome)
  const keep: string[] = []
  for (const row of rows) {
    const outcome = sealed.get(jobKey(row.id)) as JobOutcome | undefined
    sealed.delete(jobKey(row.id))
    if (!outcome) failed(ctx, row, STOPPED_RUNNING)
    else if (!(await settleJob(ctx, scope, row, outcome))) keep.push(jobKey(row.id))
  }
  // the outcomes left are of jobs that succeeded but whose plan step failed: done again now
  const succeeded = ctx.meta.prepare("SELECT * FROM import_jobs WHERE id = ? AND app_key = ? AND state = 'succeeded'")
  for (const [key, outcome] of sealed) {
    const row = key.startsWith('job:') ? (succeeded.get(key.slice(4), scope.appKey) as JobRow | undefined) : undefined
    // other work's outcomes (cohort runs) are settled by their own recovery
    if (!key.startsWith('job:') || (row && !(await settleJob(ctx, scope, row, outcome as JobOutcome)))) keep.push(key)
  }
  await forgetOutcomes(conn, null, keep)
  await forgetEarlierOutcomes(conn, [...earlier.keys()].filter((key) => !keep.includes(key)))
}

/**
 * What a load of a ClickHouse project left there when the app stopped mid-way: its staging
 * tables and copies (`_uba_*`, warehouse/clickhouse/staging.ts), never its rows in the live tables
 * (moved there in one step, with the sealed outcome). They are dropped before the jobs are settled
 * (openProject drops them; it never creates a database dropped on the server). A server that does not answer
 * keeps them until the next start; its jobs are settled as unchecked below.
 */
async function dropRemoteLeftovers(ctx: DomainContext): Promise<void> {
  const projects = ctx.meta.prepare("SELECT p.app_key, p.time_zone FROM projects p JOIN project_warehouses w ON w.app_key = p.app_key WHERE p.status = 1 AND w.engine = 'clickhouse'").all() as { app_key: string; time_zone: string }[]
  for (const { app_key: appKey, time_zone: timeZone } of projects) {
    try {
      await ctx.warehouse.openProject(appKey, timeZone)
    } catch (err) {
      ctx.background.run(`drop what a load left on the ClickHouse project ${appKey}`, () => Promise.reject(err))
    }
  }
}

/** Settles the jobs that were queued or running when the app stopped (see above). */
export async function settleInterruptedJobs(ctx: DomainContext): Promise<void> {
  await dropRemoteLeftovers(ctx)
  const rows = ctx.meta.prepare("SELECT * FROM import_jobs WHERE state IN ('queued', 'running') ORDER BY create_time").all() as JobRow[]
  const byProject = new Map<string, JobRow[]>()
  for (const row of rows) byProject.set(row.app_key, [...(byProject.get(row.app_key) ?? []), row])
  const project = ctx.meta.prepare('SELECT time_zone FROM projects WHERE app_key = ? AND status = 1').pluck()
  for (const [appKey, jobs] of byProject) {
    const timeZone = project.get(appKey) as string | undefined
    // no warehouse, no data: nothing can have committed
    if (!timeZone || !ctx.warehouse.exists(appKey)) {
      for (const row of jobs) failed(ctx, row, STOPPED_RUNNING)
      continue
    }
    const scope = { appKey, timeZone }
    try {
      await ctx.warehouse.withConnection(appKey, timeZone, (conn) => settleProject(ctx, scope, jobs, conn))
    } catch (err) {
      for (const row of jobs) if (['queued', 'running'].includes(stateOf(ctx, row.id))) failed(ctx, row, UNCHECKED)
      ctx.background.run(`settle the jobs of ${appKey} at start-up`, () => Promise.reject(err))
    }
  }
}

/**
 * Records in the plan what committed collector batches reported (see collector.ts). Every
 * project's warehouse is looked at: its stream may have been stopped since the batch.
 */
export async function settleInterruptedUploads(ctx: DomainContext): Promise<void> {
  const projects = ctx.meta.prepare('SELECT app_key, time_zone FROM projects WHERE status = 1').all() as { app_key: string; time_zone: string }[]
  for (const { app_key: appKey, time_zone: timeZone } of projects) {
    if (!ctx.warehouse.exists(appKey)) continue
    try {
      await ctx.warehouse.withConnection(appKey, timeZone, async (conn) => {
        const uploads = [...(await readOutcomes(conn, null))].filter(([key]) => key.startsWith(UPLOAD_KEY_PREFIX))
        for (const [, outcome] of uploads) recordReported(ctx.meta, appKey, reportedOf((outcome as { reported: SealedReported }).reported))
        await forgetOutcomes(conn, uploads.map(([key]) => key))
      })
    } catch (err) {
      // the outcomes stay: the next start settles them
      ctx.background.run(`settle the uploads of ${appKey} at start-up`, () => Promise.reject(err))
    }
  }
}

function stateOf(ctx: DomainContext, id: string): string {
  return ctx.meta.prepare('SELECT state FROM import_jobs WHERE id = ?').pluck().get(id) as string
}

/** Removes every file in `dir` (a missing folder has none); one in use elsewhere is left. */
function emptyFolder(dir: string): void {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return
  }
  for (const name of names) {
    try {
      rmSync(join(dir, name), { force: true, recursive: true })
    } catch {
      // still open elsewhere (Windows): the next start or stop takes it
    }
  }
}

/**
 * Removes the staging files and uploaded copies that only running work uses. Call only while no
 * job or request runs: at start-up before the API opens, and at a clean stop once it is closed.
 */
export function clearLitter(ctx: DomainContext): void {
  emptyFolder(join(ctx.dataDir, 'uploads'))
  const projects = ctx.meta.prepare('SELECT app_key FROM projects').pluck().all() as string[]
  for (const appKey of projects) emptyFolder(ctx.warehouse.stagingDirOf(appKey))
}
