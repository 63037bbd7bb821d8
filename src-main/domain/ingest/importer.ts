import { statSync } from 'node:fs'
import type { Warehouse } from '../../warehouse'
import type { DomainContext } from '../context'
import type { ProjectScope } from '../project/scope'
import { eventPropertyTypes, userPropertyTypes, type Reported } from '../schema/plan'
import type { Decimal } from './infer'
import { loadNorm, type LoadOptions, type LoadResult } from './load'
import { normalizeRecords } from './records'
import type { Format } from './stage'
import { stagedColumns, withStagedFile } from './streamed'
import { normalizeRows, type Kind, type Mapping, type StreamedRows } from './tabular'

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
  const rows = await conn.rows(conn.dialect.tempColumns('stage_rows'))
  return rows.map((r) => String(r[0]))
}

/**
 * Turns the staged records into `norm`; resolves to what the load will write. Shared by imports,
 * the collector and the preview, so that all three judge records the same way; the collector reads
 * them leniently (`lenient`: a value that does not fit is left out, not its record).
 */
export async function normalize(
  ctx: DomainContext,
  scope: ProjectScope,
  conn: Warehouse,
  staged: 'stage_records' | 'stage_rows',
  spec: Pick<ImportSpec, 'kind' | 'mapping' | 'decimal'> & { lenient?: boolean; pending?: Reported[]; stream?: StreamedRows },
) {
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
  const plans = await normalizeRows(conn, header, spec.mapping, spec.kind, spec.kind === 'events' ? known.event : known.user, spec.decimal, spec.stream)
  return spec.kind === 'events' ? { events: plans, users: [], unsetIds: [] } : { events: [], users: plans, unsetIds: [] }
}

/** Bytes a row of a file takes at least, for `StreamedRows.rowsAbout`: a Parquet row of six columns took 11. */
const ROW_BYTES_AT_LEAST = 8

/**
 * One import, on one connection of the project's warehouse: read the file through DuckDB,
 * check every record against the plan, write the valid ones in one transaction, sealed with
 * `seal` (the job's outcome) right before its commit. The caller marks in the plan what reported.
 * `onPhase` lets a job show where it is. A CSV, TSV or Parquet file is read and checked in one pass
 * (`StagedFile.streamed`): its rows are counted once checked.
 */
export async function importFile(ctx: DomainContext, scope: ProjectScope, conn: Warehouse, spec: ImportSpec, onPhase: OnPhase, seal: (result: LoadResult) => Promise<void>): Promise<LoadResult> {
  // a file of any size in bounded memory: the engine spills beyond the import bound
  return conn.boundedMemory(async () => {
    try {
      return await importStaged(ctx, scope, conn, spec, onPhase, seal)
    } finally {
      // what the import staged is given back now (memory, spill files), not when the connection closes
      await conn.dropTemporary().catch(() => undefined)
    }
  })
}

/** The import itself (see importFile), on the staged file. */
async function importStaged(ctx: DomainContext, scope: ProjectScope, conn: Warehouse, spec: ImportSpec, onPhase: OnPhase, seal: (result: LoadResult) => Promise<void>): Promise<LoadResult> {
  await onPhase('reading')
  return withStagedFile(conn, ctx.warehouse.stagingDirOf(scope.appKey), spec, async (staged) => {
    let plan: Awaited<ReturnType<typeof normalize>>
    if (staged.streamed) {
      const cells = new Map((await stagedColumns(conn)).map((c) => [c.name, c.cells]))
      const stream = { rowsAbout: Math.ceil(statSync(spec.file).size / ROW_BYTES_AT_LEAST), cells }
      plan = await staged.reading(() => normalize(ctx, scope, conn, staged.table, { ...spec, stream }))
      await onPhase('checking', Number((await conn.rows('SELECT count(*) FROM norm_cells'))[0][0]))
    } else {
      // the staged count is free (table metadata); for JSON it includes blank lines until the check
      await onPhase('checking', Number((await conn.rows(`SELECT count(*) FROM ${staged.table}`))[0][0]))
      plan = await normalize(ctx, scope, conn, staged.table, spec)
    }
    await onPhase('writing')
    return loadNorm(conn, plan.events, plan.users, plan.unsetIds, {
      ...spec,
      beforeCommit: async (result) => {
        await onPhase('writing')
        await seal(result)
      },
    })
  })
}
