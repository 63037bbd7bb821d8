import type { Answer } from '../../../src-shared/contract'
import type { MetaDb } from '../../store/meta'
import type { DomainContext, Operator } from '../context'
import { alreadyExists, badParam } from '../errors'
import { checkOwner, creatorName } from '../platform/owners'
import { currentTime } from '../time/clock'
import { localStamp } from '../time/stamp'
import { recordOperation } from '../project/operations'
import type { ProjectScope } from '../project/scope'

/**
 * Saved reports (a UBA Desk addition; migration 11): a named analysis request of one project, kept
 * with the chart's own options. The request is stored exactly as sent and checked only when it
 * runs, so a report whose events or cohorts were removed since still opens; running it then gives
 * the analysis's own 400. A report's analysis never changes: a chart of another kind is a new report.
 */

export const REPORT_KINDS = ['events', 'funnels', 'retentions', 'distributions', 'userAttributes'] as const
export type ReportKind = (typeof REPORT_KINDS)[number]

export const REPORT_NAME_MAX = 100
/** The largest request or options, as JSON text: a chart definition is a few kilobytes. */
export const REPORT_JSON_MAX = 256 * 1024

interface ReportRow {
  id: number
  app_key: string
  name: string
  kind: ReportKind
  request: string
  options: string
  created_by: number | null
  created_user: string
  updated_by: number | null
  updated_user: string
  create_time: number
  update_time: number
}

/** A report as the API answers it (its route schema is the source). */
export type ReportView = Answer<'/uba/api/reports/{id}'>

export interface ReportInput {
  name?: unknown
  kind?: unknown
  request?: unknown
  options?: unknown
}

function view(row: ReportRow, scope: ProjectScope): ReportView {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    request: JSON.parse(row.request) as Record<string, unknown>,
    options: JSON.parse(row.options) as Record<string, unknown>,
    createdUser: row.created_user,
    createdTime: localStamp(row.create_time, scope.timeZone),
    updatedUser: row.updated_user,
    updatedTime: localStamp(row.update_time, scope.timeZone),
  }
}

export function checkName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw badParam('name', 'name is required')
  const name = value.trim()
  if (name.length > REPORT_NAME_MAX) throw badParam('name', `name: at most ${REPORT_NAME_MAX} characters`)
  return name
}

function checkKind(value: unknown): ReportKind {
  if (!REPORT_KINDS.includes(value as ReportKind)) throw badParam('kind', `kind must be one of ${REPORT_KINDS.join(', ')}`)
  return value as ReportKind
}

/** A JSON object, kept as text; `param` names it in the error. */
function checkObject(value: unknown, param: string): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badParam(param, `${param} must be a JSON object`)
  const text = JSON.stringify(value)
  if (text.length > REPORT_JSON_MAX) throw badParam(param, `${param}: at most ${REPORT_JSON_MAX / 1024} KB of JSON`)
  return text
}

export function rowById(meta: MetaDb, appKey: string, id: number): ReportRow | undefined {
  return meta.prepare('SELECT * FROM reports WHERE app_key = ? AND id = ?').get(appKey, id) as ReportRow | undefined
}

function existing(meta: MetaDb, appKey: string, id: number): ReportRow {
  const row = rowById(meta, appKey, id)
  if (!row) throw badParam('id', `no report of this project has the id ${id}`)
  return row
}

function checkFree(meta: MetaDb, appKey: string, name: string, except = 0): void {
  const taken = meta.prepare('SELECT 1 FROM reports WHERE app_key = ? AND name = ? AND id <> ?').get(appKey, name, except)
  if (taken) throw alreadyExists(`a report named ${name} already exists`)
}

/** Reports of the project, the latest changed first; `q` keeps those whose name contains it (any case). */
export function listReports(ctx: DomainContext, scope: ProjectScope, filter: { q?: string; kind?: string }): ReportView[] {
  const rows = ctx.meta.prepare('SELECT * FROM reports WHERE app_key = ? ORDER BY update_time DESC, id DESC').all(scope.appKey) as ReportRow[]
  const q = filter.q?.trim().toLowerCase() ?? ''
  return rows.filter((r) => (!q || r.name.toLowerCase().includes(q)) && (!filter.kind || r.kind === filter.kind)).map((r) => view(r, scope))
}

export function getReport(ctx: DomainContext, scope: ProjectScope, id: number): ReportView {
  return view(existing(ctx.meta, scope.appKey, id), scope)
}

export function createReport(ctx: DomainContext, scope: ProjectScope, input: ReportInput, operator: Operator | null): ReportView {
  const name = checkName(input.name)
  const kind = checkKind(input.kind)
  const request = checkObject(input.request, 'request')
  const options = input.options === undefined ? '{}' : checkObject(input.options, 'options')
  const who = creatorName(ctx.meta, operator)
  const now = currentTime()
  const row = ctx.meta.transaction(() => {
    checkFree(ctx.meta, scope.appKey, name)
    const { lastInsertRowid } = ctx.meta
      .prepare(
        `INSERT INTO reports (app_key, name, kind, request, options, created_by, created_user, updated_by, updated_user, create_time, update_time)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(scope.appKey, name, kind, request, options, operator?.id ?? null, who, operator?.id ?? null, who, now, now)
    return rowById(ctx.meta, scope.appKey, Number(lastInsertRowid))!
  })()
  recordOperation(ctx.meta, operator, 'report.create', scope.appKey, String(row.id))
  return view(row, scope)
}

/**
 * Changes the fields sent. Only the creator changes or deletes a report (as for cohorts); `kind`,
 * when sent, must be the report's own: a chart of another analysis is saved as a new report.
 */
export function updateReport(ctx: DomainContext, scope: ProjectScope, id: number, input: ReportInput, operator: Operator | null): ReportView {
  const name = input.name === undefined ? undefined : checkName(input.name)
  const kind = input.kind === undefined ? undefined : checkKind(input.kind)
  const request = input.request === undefined ? undefined : checkObject(input.request, 'request')
  const options = input.options === undefined ? undefined : checkObject(input.options, 'options')
  const who = creatorName(ctx.meta, operator)
  const row = ctx.meta.transaction(() => {
    const before = existing(ctx.meta, scope.appKey, id)
    checkOwner(before, operator, 'report', 'change')
    if (kind !== undefined && kind !== before.kind) {
      throw badParam('kind', `the report ${before.name} is a ${before.kind} report; a ${kind} chart is saved as a new report`)
    }
    if (name !== undefined) checkFree(ctx.meta, scope.appKey, name, id)
    ctx.meta
      .prepare('UPDATE reports SET name = ?, request = ?, options = ?, updated_by = ?, updated_user = ?, update_time = ? WHERE id = ?')
      .run(name ?? before.name, request ?? before.request, options ?? before.options, operator?.id ?? null, who, currentTime(), id)
    return rowById(ctx.meta, scope.appKey, id)!
  })()
  recordOperation(ctx.meta, operator, 'report.update', scope.appKey, String(id))
  return view(row, scope)
}

export function deleteReport(ctx: DomainContext, scope: ProjectScope, id: number, operator: Operator | null): void {
  ctx.meta.transaction(() => {
    const row = existing(ctx.meta, scope.appKey, id)
    checkOwner(row, operator, 'report')
    ctx.meta.prepare('DELETE FROM reports WHERE id = ?').run(id)
  })()
  recordOperation(ctx.meta, operator, 'report.delete', scope.appKey, String(id))
}
