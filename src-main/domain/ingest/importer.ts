import type { Warehouse } from '../../warehouse'
import type { DomainContext } from '../context'
import type { ProjectScope } from '../project/scope'
import { eventPropertyTypes, userPropertyTypes, type Reported } from '../schema/plan'
import type { Decimal } from './infer'
import { loadNorm, type LoadOptions, type LoadResult } from './load'
import { normalizeRecords } from './records'
import { stageFile, type Format } from './stage'
import { normalizeRows, type Kind, type Mapping } from './tabular'

export interface ImportSpec extends LoadOptions {
  file: string
  format: Format
  /** Tabular files: events or profiles. SDK records route themselves by event id. */
  kind: Kind
  mapping: Mapping
  sheet?: string
  /** CSV and TSV: the cell separator (detected from the header line when the request has none). */
  delimiter?: string
  /** CSV and TSV: the decimal mark of numbers (a point unless the request says comma). */
  decimal?: Decimal
}

export type Phase = 'reading' | 'checking' | 'writing'

/** A job's progress report: the phase it enters and, once the file is read, the rows read. */
export type OnPhase = (phase: Phase, rowsRead?: number) => void | Promise<void>

/** Column names of the staged rows, in file order. */
export async function stagedHeader(conn: Warehouse): Promise<string[]> {
  const rows = await conn.rows(
    "SELECT column_name FROM information_schema.columns WHERE table_catalog = 'temp' AND table_name = 'stage_rows' ORDER BY ordinal_position",
  )
  return rows.map((r) => String(r[0]))
}

/**
 * Turns the staged records into `norm`; resolves to what the load will write. Shared by imports,
 * the collector and the preview, so that all three judge records the same way; the collector reads
 * them leniently (`lenient`: a value that does not fit is left out, not its record).
 */
export async function normalize(ctx: DomainContext, scope: ProjectScope, conn: Warehouse, staged: 'stage_records' | 'stage_rows', spec: Pick<ImportSpec, 'kind' | 'mapping' | 'decimal'> & { lenient?: boolean; pending?: Reported[] }) {
  const known = { event: eventPropertyTypes(ctx.meta, scope.appKey), user: userPropertyTypes(ctx.meta, scope.appKey) }
  // properties that earlier loads of the same transaction brought (not in the plan until it commits) keep their first type
  for (const r of spec.pending ?? []) {
    for (const [id, type] of r.eventProperties) if (!known.event.has(id)) known.event.set(id, type)
    for (const [id, type] of r.userProperties) if (!known.user.has(id)) known.user.set(id, type)
  }
  if (staged === 'stage_records') {
    const plans = await normalizeRecords(conn, known, spec.lenient)
    return { events: plans.event, users: plans.user, unsetIds: plans.unset }
  }
  const header = await stagedHeader(conn)
  const plans = await normalizeRows(conn, header, spec.mapping, spec.kind, spec.kind === 'events' ? known.event : known.user, spec.decimal)
  return spec.kind === 'events' ? { events: plans, users: [], unsetIds: [] } : { events: [], users: plans, unsetIds: [] }
}

/**
 * One import, on one connection of the project's warehouse: read the file through DuckDB,
 * check every record against the plan, write the valid ones in one transaction, sealed with
 * `seal` (the job's outcome) right before its commit. The caller marks in the plan what reported.
 * `onPhase` lets a job show where it is.
 */
export async function importFile(ctx: DomainContext, scope: ProjectScope, conn: Warehouse, spec: ImportSpec, onPhase: OnPhase, seal: (result: LoadResult) => Promise<void>): Promise<LoadResult> {
  await onPhase('reading')
  const staged = await stageFile(conn, ctx.warehouse.stagingDirOf(scope.appKey), spec)
  // the staged count is free (table metadata); for JSON it includes blank lines until the check
  const stagedRows = Number((await conn.rows(`SELECT count(*) FROM ${staged}`))[0][0])
  await onPhase('checking', stagedRows)
  const plan = await normalize(ctx, scope, conn, staged, spec)
  await onPhase('writing')
  return loadNorm(conn, plan.events, plan.users, plan.unsetIds, {
    ...spec,
    beforeCommit: async (result) => {
      await onPhase('writing')
      await seal(result)
    },
  })
}
