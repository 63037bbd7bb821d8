import type { DomainContext } from '../context'
import { AppError } from '../errors'
import type { ProjectScope } from '../project/scope'
import { readExcel } from './excel'
import { normalize, stagedHeader, type ImportSpec } from './importer'
import { REJECTED_SAMPLE, type Rejection } from './load'
import { eventCol, userCol, type PropertyPlan } from './norm'
import { stageFile } from './stage'
import { guessMapping, type Mapping } from './tabular'

/** Records a preview reads from the top of the file: enough to infer types and find problems. */
export const PREVIEW_SAMPLE = 1000

export interface PreviewView {
  format: string
  kind: string
  sheets: string[] | null
  /** CSV and TSV: the cell separator read with (the request's, or the one detected). */
  delimiter: string | null
  /** CSV and TSV: the decimal mark numbers are read with. */
  decimal: string | null
  header: string[] | null
  mapping: Mapping | null
  /** Set when the mapping is not usable yet (tabular files): what to fix. */
  mappingProblem: string | null
  properties: { property: string; type: string; known: boolean; target: 'event' | 'user' }[]
  /** `xwhen` is shown as yyyy-MM-dd HH:mm:ss.SSS in the project's time zone. */
  rows: { row: number; xwho: string | null; xwhat: string | null; xwhen: string | null; ds: number | null; properties: Record<string, unknown>; problem: Omit<Rejection, 'row'> | null }[]
  rowsChecked: number
  rowsRejected: number
  problems: Rejection[]
}

/**
 * The first records of a file as they would be stored, with inferred types and problems. Reads
 * only the top of the file and writes nothing (temporary tables on its own connection).
 */
export async function previewFile(ctx: DomainContext, scope: ProjectScope, spec: Omit<ImportSpec, 'onError' | 'dedupe'>, rows = 20): Promise<PreviewView> {
  return ctx.warehouse.withLoading(scope.appKey, scope.timeZone, async (conn) => {
    const staged = await stageFile(conn, ctx.warehouse.stagingDirOf(scope.appKey), spec, PREVIEW_SAMPLE)
    const tabular = staged === 'stage_rows'
    const header = tabular ? await stagedHeader(conn) : null
    const mapping = tabular ? (Object.keys(spec.mapping).length > 0 ? spec.mapping : { ...guessMapping(header!, spec.kind), ...spec.mapping }) : null
    const out: PreviewView = {
      format: spec.format,
      kind: tabular ? spec.kind : 'records',
      sheets: spec.format === 'excel' ? readExcel(spec.file, spec.sheet, 1).sheets : null,
      delimiter: spec.delimiter ?? null,
      decimal: spec.delimiter === undefined ? null : (spec.decimal ?? '.'),
      header,
      mapping,
      mappingProblem: null,
      properties: [],
      rows: [],
      rowsChecked: 0,
      rowsRejected: 0,
      problems: [],
    }
    let plan: { events: PropertyPlan[]; users: PropertyPlan[] }
    try {
      plan = await normalize(ctx, scope, conn, staged, { kind: spec.kind, mapping: mapping ?? {}, decimal: spec.decimal })
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 400) throw err
      out.mappingProblem = err.message
      return out
    }
    out.properties = [
      ...plan.events.map((p) => ({ property: p.id, type: p.type, known: !p.isNew, target: 'event' as const })),
      ...plan.users.map((p) => ({ property: p.id, type: p.type, known: !p.isNew, target: 'user' as const })),
    ]
    const cols = [...plan.events.map((p) => `${eventCol(p.id)}`), ...plan.users.map((p) => `${userCol(p.id)}`)]
    const sample = (await conn.query(`SELECT _row, xwho, xwhat, ${conn.dialect.formatStampMillis('xwhen')} AS xwhen, ds, _problem ${cols.map((c) => `, ${c}`).join('')}
        FROM norm ORDER BY _row LIMIT ${Math.max(1, Math.min(rows, PREVIEW_SAMPLE))}`, undefined, 'display'))
    out.rows = sample.map((r) => {
      const properties: Record<string, unknown> = {}
      for (const p of plan.events) if (r[`e:${p.id}`] !== null) properties[p.id] = r[`e:${p.id}`]
      for (const p of plan.users) if (r[`u:${p.id}`] !== null) properties[p.id] = r[`u:${p.id}`]
      const problem = r._problem as { property: string; value: string | null; reason: string } | null
      return { row: Number(r._row), xwho: r.xwho as string | null, xwhat: r.xwhat as string | null, xwhen: r.xwhen as string | null, ds: r.ds === null ? null : Number(r.ds), properties, problem }
    })
    const counts = (await conn.query('SELECT count(*) AS n, count(_problem) AS bad FROM norm'))[0]
    out.rowsChecked = Number(counts.n)
    out.rowsRejected = Number(counts.bad)
    out.problems = (await conn.query(`SELECT _row, _problem.property AS property, _problem.value AS value, _problem.reason AS reason FROM norm WHERE _problem IS NOT NULL ORDER BY _row LIMIT ${REJECTED_SAMPLE}`))
      .map((r) => ({ row: Number(r._row), property: String(r.property), value: r.value === null ? null : String(r.value), reason: String(r.reason) }))
    return out
  })
}
