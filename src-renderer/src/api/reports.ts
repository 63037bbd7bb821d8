import type { Answer, RequestBody } from '../../../src-shared/contract'
import type { AnalysisKind } from './analysis'
import { request, type ProjectAuth } from './http'

/** Saved reports of the project (UBA Desk addition): GET/POST /uba/api/reports, GET/PUT/DELETE /uba/api/reports/{id}. */

/** The API names an analysis by its path (/uba/api/<kind>/analyze); the builder by its own name. */
const API_KINDS: Record<AnalysisKind, string> = {
  events: 'events',
  funnels: 'funnels',
  retention: 'retentions',
  distribution: 'distributions',
  userAttributes: 'userAttributes',
}

export function builderKind(apiKind: string): AnalysisKind | null {
  const found = (Object.keys(API_KINDS) as AnalysisKind[]).find((k) => API_KINDS[k] === apiKind)
  return found ?? null
}

/** A report as the API answers it. */
type Wire = Answer<'/uba/api/reports/{id}'>

/** A report as the API answers it, its kind in the builder's words (null: an analysis this version does not know). */
export type ReportRecord = Omit<Wire, 'kind'> & { kind: AnalysisKind | null }

/** A report's fields as PUT takes them (POST needs name, kind and request), its kind in the builder's words. */
export type ReportWrite = Omit<RequestBody<'/uba/api/reports/{id}', 'put'>, 'kind'> & { kind?: AnalysisKind }

const BASE = '/uba/api/reports'

function fromWire(wire: Wire): ReportRecord {
  return { ...wire, kind: builderKind(wire.kind) }
}

function toWire(write: ReportWrite): Record<string, unknown> {
  return { ...write, kind: write.kind ? API_KINDS[write.kind] : undefined }
}

export async function listReports(auth: ProjectAuth): Promise<ReportRecord[]> {
  return (await request<Wire[]>(auth, 'GET', BASE)).map(fromWire)
}

export async function getReport(auth: ProjectAuth, id: number): Promise<ReportRecord> {
  return fromWire(await request<Wire>(auth, 'GET', `${BASE}/${id}`))
}

export async function createReport(auth: ProjectAuth, write: Required<Pick<ReportWrite, 'name' | 'kind' | 'request'>> & ReportWrite): Promise<ReportRecord> {
  return fromWire(await request<Wire>(auth, 'POST', BASE, toWire(write)))
}

export async function updateReport(auth: ProjectAuth, id: number, write: ReportWrite): Promise<ReportRecord> {
  return fromWire(await request<Wire>(auth, 'PUT', `${BASE}/${id}`, toWire(write)))
}

export async function deleteReport(auth: ProjectAuth, id: number): Promise<void> {
  await request(auth, 'DELETE', `${BASE}/${id}`)
}
