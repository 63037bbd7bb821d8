import type { Answer, RequestBody } from '../../../src-shared/contract'
import { request, type ProjectAuth } from './http'
import { builderKind, type ReportRecord } from './reports'

/** Dashboards of the project (UBA Desk addition): GET/POST /uba/api/dashboards, GET/PUT/DELETE /uba/api/dashboards/{id}. */

type WireDashboard = Answer<'/uba/api/dashboards/{id}'>
type WireTile = WireDashboard['tiles'][number]

/** A dashboard in the listing: its layout without the reports. */
export type DashboardSummary = Answer<'/uba/api/dashboards'>[number]
export type Tile = DashboardSummary['tiles'][number]

/** A tile as a dashboard answers it: its report and the request it runs (the dashboard's range and cohort applied). */
export type TileWithReport = Omit<WireTile, 'report'> & { report: Pick<ReportRecord, 'name' | 'kind' | 'request' | 'options'> | null }

/** A dashboard with its tiles' reports; fromDate and toDate replace every report's own range when both are set, crowd every report's crowd. */
export type Dashboard = Omit<WireDashboard, 'tiles'> & { tiles: TileWithReport[] }

export type DashboardWrite = RequestBody<'/uba/api/dashboards/{id}', 'put'>

const BASE = '/uba/api/dashboards'

function fromWire(wire: WireDashboard): Dashboard {
  return { ...wire, tiles: wire.tiles.map((t) => ({ ...t, report: t.report ? { ...t.report, kind: builderKind(t.report.kind) } : null })) }
}

export function listDashboards(auth: ProjectAuth): Promise<DashboardSummary[]> {
  return request<DashboardSummary[]>(auth, 'GET', BASE)
}

export async function getDashboard(auth: ProjectAuth, id: number): Promise<Dashboard> {
  return fromWire(await request(auth, 'GET', `${BASE}/${id}`))
}

export async function createDashboard(auth: ProjectAuth, write: DashboardWrite & { name: string }): Promise<Dashboard> {
  return fromWire(await request(auth, 'POST', BASE, write))
}

export async function updateDashboard(auth: ProjectAuth, id: number, write: DashboardWrite): Promise<Dashboard> {
  return fromWire(await request(auth, 'PUT', `${BASE}/${id}`, write))
}

export async function deleteDashboard(auth: ProjectAuth, id: number): Promise<void> {
  await request(auth, 'DELETE', `${BASE}/${id}`)
}

/** Where a new tile goes: beside the last one when it leaves the right half free, else below everything; half the width. */
export function nextTile(tiles: Tile[], reportId: number): Tile {
  const last = tiles.at(-1)
  const rightFree = last && last.x + last.w <= 6 && tiles.every((t) => t.x + t.w <= 6 || t.y >= last.y + last.h || t.y + t.h <= last.y)
  if (last && rightFree) return { reportId, x: 6, y: last.y, w: 6, h: last.h }
  const bottom = tiles.reduce((y, t) => Math.max(y, t.y + t.h), 0)
  return { reportId, x: 0, y: bottom, w: 6, h: 5 }
}
