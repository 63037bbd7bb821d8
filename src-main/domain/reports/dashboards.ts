import type { Answer } from '../../../src-shared/contract'
import type { MetaDb } from '../../store/meta'
import { day } from '../time/days'
import { cohortByCode } from '../cohorts/store'
import type { DomainContext, Operator } from '../context'
import { alreadyExists, badParam } from '../errors'
import { checkOwner, creatorName } from '../platform/owners'
import { currentTime } from '../time/clock'
import { localStamp } from '../time/stamp'
import { recordOperation } from '../project/operations'
import type { ProjectScope } from '../project/scope'
import { checkName, rowById, type ReportKind } from './reports'

/**
 * Dashboards (a UBA Desk addition; migration 11): a named grid of saved reports. Tiles sit on a
 * grid 12 columns wide. An optional dashboard-wide date range and cohort replace each report's
 * own when the dashboard runs (the range does not apply to user attributes, which have none).
 * A tile whose report was deleted stays, with `report` null, until the dashboard is changed.
 */

export const GRID_COLUMNS = 12
export const MAX_TILES = 40

/** A tile of the layout, as the API answers it (its route schema is the source). */
export type Tile = Answer<'/uba/api/dashboards'>[number]['tiles'][number]

interface DashboardRow {
  id: number
  app_key: string
  name: string
  tiles: string
  from_date: string | null
  to_date: string | null
  crowd: string | null
  created_by: number | null
  created_user: string
  updated_by: number | null
  updated_user: string
  create_time: number
  update_time: number
}

export interface DashboardInput {
  name?: unknown
  tiles?: unknown
  fromDate?: unknown
  toDate?: unknown
  crowd?: unknown
}

/** A tile as a dashboard answers it: its report and the request it runs (the overrides applied). */
export type TileView = Answer<'/uba/api/dashboards/{id}'>['tiles'][number]

/** A dashboard as the API answers it: with its tiles' reports (GET by id) or without (the listing). */
export type DashboardView = Omit<Answer<'/uba/api/dashboards/{id}'>, 'tiles'> & { tiles: Tile[] | TileView[] }

function integer(value: unknown, param: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw badParam(param, `${param} must be a whole number from ${min} to ${max}`)
  return value
}

function checkTiles(meta: MetaDb, appKey: string, value: unknown): Tile[] {
  if (!Array.isArray(value)) throw badParam('tiles', 'tiles must be a list of {reportId, x, y, w, h}')
  if (value.length > MAX_TILES) throw badParam('tiles', `a dashboard holds at most ${MAX_TILES} tiles`)
  return value.map((t, i) => {
    const at = `tiles[${i}]`
    if (typeof t !== 'object' || t === null || Array.isArray(t)) throw badParam(at, `${at} must be an object {reportId, x, y, w, h}`)
    const tile = t as Record<string, unknown>
    const extra = Object.keys(tile).find((k) => !['reportId', 'x', 'y', 'w', 'h'].includes(k))
    if (extra) throw badParam(`${at}.${extra}`, `${at}.${extra} is not a known parameter`)
    const reportId = integer(tile.reportId, `${at}.reportId`, 1, Number.MAX_SAFE_INTEGER)
    if (!rowById(meta, appKey, reportId)) throw badParam(`${at}.reportId`, `${at}.reportId: no report of this project has the id ${reportId}`)
    const w = integer(tile.w, `${at}.w`, 1, GRID_COLUMNS)
    const x = integer(tile.x, `${at}.x`, 0, GRID_COLUMNS - w)
    return { reportId, x, y: integer(tile.y, `${at}.y`, 0, 1000), w, h: integer(tile.h, `${at}.h`, 1, 12) }
  })
}

/** Both days or neither; null clears the override. */
function checkRange(input: DashboardInput, before: { from: string | null; to: string | null }): { from: string | null; to: string | null } {
  if (input.fromDate === undefined && input.toDate === undefined) return before
  const from = input.fromDate === null ? null : input.fromDate === undefined ? before.from : day(input.fromDate, 'fromDate')
  const to = input.toDate === null ? null : input.toDate === undefined ? before.to : day(input.toDate, 'toDate')
  if ((from === null) !== (to === null)) throw badParam(from === null ? 'fromDate' : 'toDate', 'fromDate and toDate go together: both days, or both null')
  if (from !== null && to !== null && from > to) throw badParam('toDate', 'toDate must not be before fromDate')
  return { from, to }
}

function checkCrowd(meta: MetaDb, appKey: string, value: unknown, before: string | null): string | null {
  if (value === undefined) return before
  if (value === null || value === '$ALL') return value
  if (typeof value !== 'string' || !cohortByCode(meta, appKey, value)) throw badParam('crowd', 'crowd must be $ALL, a cohort code of this project, or null (each report its own)')
  return value
}

function withOverrides(row: DashboardRow, request: Record<string, unknown>, kind: ReportKind): Record<string, unknown> {
  const out = { ...request }
  if (row.from_date && row.to_date && kind !== 'userAttributes') Object.assign(out, { fromDate: row.from_date, toDate: row.to_date })
  if (row.crowd) out.crowds = [row.crowd]
  return out
}

function view(meta: MetaDb, row: DashboardRow, scope: ProjectScope, withReports: boolean): DashboardView {
  const tiles = JSON.parse(row.tiles) as Tile[]
  return {
    id: row.id,
    name: row.name,
    fromDate: row.from_date,
    toDate: row.to_date,
    crowd: row.crowd,
    tiles: withReports
      ? tiles.map((t) => {
          const r = rowById(meta, scope.appKey, t.reportId)
          const report = r ? { name: r.name, kind: r.kind, request: withOverrides(row, JSON.parse(r.request), r.kind), options: JSON.parse(r.options) } : null
          return { ...t, report }
        })
      : tiles,
    createdUser: row.created_user,
    createdTime: localStamp(row.create_time, scope.timeZone),
    updatedUser: row.updated_user,
    updatedTime: localStamp(row.update_time, scope.timeZone),
  }
}

function existing(meta: MetaDb, appKey: string, id: number): DashboardRow {
  const row = meta.prepare('SELECT * FROM dashboards WHERE app_key = ? AND id = ?').get(appKey, id) as DashboardRow | undefined
  if (!row) throw badParam('id', `no dashboard of this project has the id ${id}`)
  return row
}

function checkFree(meta: MetaDb, appKey: string, name: string, except = 0): void {
  if (meta.prepare('SELECT 1 FROM dashboards WHERE app_key = ? AND name = ? AND id <> ?').get(appKey, name, except)) throw alreadyExists(`a dashboard named ${name} already exists`)
}

export function listDashboards(ctx: DomainContext, scope: ProjectScope): DashboardView[] {
  const rows = ctx.meta.prepare('SELECT * FROM dashboards WHERE app_key = ? ORDER BY update_time DESC, id DESC').all(scope.appKey) as DashboardRow[]
  return rows.map((r) => view(ctx.meta, r, scope, false))
}

export function getDashboard(ctx: DomainContext, scope: ProjectScope, id: number): DashboardView {
  return view(ctx.meta, existing(ctx.meta, scope.appKey, id), scope, true)
}

export function createDashboard(ctx: DomainContext, scope: ProjectScope, input: DashboardInput, operator: Operator | null): DashboardView {
  const name = checkName(input.name)
  const who = creatorName(ctx.meta, operator)
  const now = currentTime()
  const row = ctx.meta.transaction(() => {
    const tiles = input.tiles === undefined ? [] : checkTiles(ctx.meta, scope.appKey, input.tiles)
    const range = checkRange(input, { from: null, to: null })
    const crowd = checkCrowd(ctx.meta, scope.appKey, input.crowd, null)
    checkFree(ctx.meta, scope.appKey, name)
    const { lastInsertRowid } = ctx.meta
      .prepare(
        `INSERT INTO dashboards (app_key, name, tiles, from_date, to_date, crowd, created_by, created_user, updated_by, updated_user, create_time, update_time)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(scope.appKey, name, JSON.stringify(tiles), range.from, range.to, crowd, operator?.id ?? null, who, operator?.id ?? null, who, now, now)
    return existing(ctx.meta, scope.appKey, Number(lastInsertRowid))
  })()
  recordOperation(ctx.meta, operator, 'dashboard.create', scope.appKey, String(row.id))
  return view(ctx.meta, row, scope, true)
}

/** Changes the fields sent; only the creator changes or deletes a dashboard. */
export function updateDashboard(ctx: DomainContext, scope: ProjectScope, id: number, input: DashboardInput, operator: Operator | null): DashboardView {
  const name = input.name === undefined ? undefined : checkName(input.name)
  const who = creatorName(ctx.meta, operator)
  const row = ctx.meta.transaction(() => {
    const before = existing(ctx.meta, scope.appKey, id)
    checkOwner(before, operator, 'dashboard', 'change')
    const tiles = input.tiles === undefined ? before.tiles : JSON.stringify(checkTiles(ctx.meta, scope.appKey, input.tiles))
    const range = checkRange(input, { from: before.from_date, to: before.to_date })
    const crowd = checkCrowd(ctx.meta, scope.appKey, input.crowd, before.crowd)
    if (name !== undefined) checkFree(ctx.meta, scope.appKey, name, id)
    ctx.meta
      .prepare('UPDATE dashboards SET name = ?, tiles = ?, from_date = ?, to_date = ?, crowd = ?, updated_by = ?, updated_user = ?, update_time = ? WHERE id = ?')
      .run(name ?? before.name, tiles, range.from, range.to, crowd, operator?.id ?? null, who, currentTime(), id)
    return existing(ctx.meta, scope.appKey, id)
  })()
  recordOperation(ctx.meta, operator, 'dashboard.update', scope.appKey, String(id))
  return view(ctx.meta, row, scope, true)
}

export function deleteDashboard(ctx: DomainContext, scope: ProjectScope, id: number, operator: Operator | null): void {
  ctx.meta.transaction(() => {
    const row = existing(ctx.meta, scope.appKey, id)
    checkOwner(row, operator, 'dashboard')
    ctx.meta.prepare('DELETE FROM dashboards WHERE id = ?').run(id)
  })()
  recordOperation(ctx.meta, operator, 'dashboard.delete', scope.appKey, String(id))
}
