import type { Warehouse } from '../../../warehouse'
import type { DomainContext, Operator } from '../../context'
import { AppError, badParam } from '../../errors'
import { numericSetting } from '../../platform/settings'
import type { ProjectScope } from '../../project/scope'
import { tableRow } from '../../schema/dimensionMeta'
import { createDimensionTable, type NewDimensionTable } from '../../schema/dimensions'
import { eventPropertyTypes, recordReported, userPropertyTypes } from '../../schema/plan'
import type { DataType } from '../../schema/types'
import { listJobs, startJob, type JobView, type JobWork, type Settle } from '../jobs'
import type { LoadResult } from '../load'
import { loadSample, type SampleLoad } from './load'
import { sampleOptions, sampleWindow, type SampleOptions, type SampleRequest } from './options'
import { EVENT_COLUMNS, nameSamplePlan, sampleReported, USER_COLUMNS } from './plan'
import { PRODUCTS } from './products'

export { SAMPLE_LIMITS, sampleOptions, type SampleOptions, type SampleRequest } from './options'

/**
 * Sample data: a made-up e-commerce app (see generate.ts), loaded as a job like an import. It
 * goes only into an empty project, so that nothing a user loaded is mixed with made-up data and
 * every chart on it shows the sample alone.
 */

async function contents(conn: Warehouse): Promise<{ events: number; profiles: number }> {
  const row = (await conn.query('SELECT (SELECT count(*) FROM event_vd) AS events, (SELECT count(*) FROM profile_vd) AS profiles'))[0]
  return { events: Number(row.events), profiles: Number(row.profiles) }
}

function notEmpty(events: number, profiles: number): AppError {
  return badParam('project', `sample data goes only into an empty project, and this one holds ${events} events and ${profiles} user profiles: create a new project for the sample`)
}

/** The plan must not give a sample property another type than the sample writes. */
function checkPlanTypes(ctx: DomainContext, appKey: string): void {
  const clash = (columns: typeof EVENT_COLUMNS, types: Map<string, string>, what: string) => {
    const c = columns.find((p) => types.has(p.id) && types.get(p.id) !== p.dataType)
    if (c) throw badParam('project', `the plan declares the ${what} property ${c.id} as ${types.get(c.id)}, but the sample writes it as ${c.dataType}: create a new project for the sample`)
  }
  clash(EVENT_COLUMNS, eventPropertyTypes(ctx.meta, appKey), 'event')
  clash(USER_COLUMNS, userPropertyTypes(ctx.meta, appKey), 'user')
}

/** The `products` dimension table, joined to the events by product_id; kept as it is if it exists. */
async function createProducts(ctx: DomainContext, scope: ProjectScope, operator: Operator | null): Promise<void> {
  const input: NewDimensionTable = {
    table: 'products',
    showName: 'Products',
    remark: 'The assortment of the sample shop',
    relations: ['product_id'],
    columns: { product_id: 'string', name: 'string', category: 'string', brand: 'string', price: 'number', launched_at: 'datetime', tags: 'array<string>' },
    rows: PRODUCTS.map((p) => ({ product_id: p.id, name: p.name, category: p.category, brand: p.brand, price: p.price, launched_at: p.launchedAt, tags: p.tags })),
  }
  // a dimension table of that name is the project's own: it stays as it is
  if (tableRow(ctx.meta, scope.appKey, input.table)) return
  await createDimensionTable(ctx, scope, input, operator)
}

/** What the job reports for a load of the sample. */
function resultOf(load: SampleLoad, types: { event: Map<string, DataType>; user: Map<string, DataType> }): LoadResult {
  const reported = sampleReported(load.occurred, types)
  return { rowsRead: load.events, rowsRejected: 0, eventsWritten: load.events, profilesChanged: load.profiles, debugSkipped: 0, duplicatesSkipped: 0, rejected: [], reported, aliasesMerged: 0, aliasesIgnored: 0, aliasProblems: [] }
}

/** The job's work: check under the write lock, then load in one transaction, sealed with its outcome. */
function sampleWork(ctx: DomainContext, scope: ProjectScope, options: SampleOptions): JobWork {
  return async (conn, onPhase, seal): Promise<LoadResult> => {
    await onPhase('reading')
    // an import queued before this job may have filled the project meanwhile
    const before = await contents(conn.stored ?? conn)
    if (before.events + before.profiles > 0) throw notEmpty(before.events, before.profiles)
    checkPlanTypes(ctx, scope.appKey)
    const types = { event: eventPropertyTypes(ctx.meta, scope.appKey), user: userPropertyTypes(ctx.meta, scope.appKey) }
    const perWrite = Math.max(1, Math.floor(numericSetting(ctx.meta, 'ingest.sample.usersPerWrite')))
    const load = await loadSample(conn, conn.dialect, sampleWindow(options), types, onPhase, (sealed) => seal(resultOf(sealed, types)), perWrite)
    return resultOf(load, types)
  }
}

/**
 * Once the sample committed: the plan (what reported, with the sample's names) and the products
 * table. Safe to repeat: start-up runs it again for a sample whose data committed just before the
 * app stopped.
 */
export function settleSample(ctx: DomainContext, scope: ProjectScope, operator: Operator | null): Settle {
  return async (result) => {
    recordReported(ctx.meta, scope.appKey, result.reported)
    nameSamplePlan(ctx.meta, scope.appKey)
    await createProducts(ctx, scope, operator)
  }
}

/**
 * Checks the request and the project, then queues the sample's job and returns at once. A
 * project with events or user profiles, or with a sample job queued or running, is refused (400
 * naming `project`).
 */
export async function startSampleJob(ctx: DomainContext, scope: ProjectScope, request: SampleRequest, operator: Operator | null, now?: Date): Promise<JobView> {
  const options = sampleOptions(request, scope.timeZone, now)
  const pending = listJobs(ctx, scope.appKey).find((j) => j.kind === 'sample' && (j.state === 'queued' || j.state === 'running'))
  if (pending) throw badParam('project', `sample data is already being loaded into this project (job ${pending.id})`)
  checkPlanTypes(ctx, scope.appKey)
  const found = await ctx.warehouse.withConnection(scope.appKey, scope.timeZone, contents)
  if (found.events + found.profiles > 0) throw notEmpty(found.events, found.profiles)
  const label = { kind: 'sample', format: 'generated', source: 'sample e-commerce data', options: { ...options } }
  return startJob(ctx, scope, label, sampleWork(ctx, scope, options), settleSample(ctx, scope, operator), operator)
}
