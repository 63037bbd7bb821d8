import type { Answer, paths, RequestBody } from '../../../src-shared/contract'
import { request, requestStream, type ProjectAuth } from './http'
import type { AnalysisKind, AnalysisRequests } from './analysis'

/** The users behind one cell of an analysis (POST /uba/api/{analysis}/users, /export, /cohort). */

export const CELL_USER_PATHS = {
  events: '/uba/api/events/users',
  funnels: '/uba/api/funnels/users',
  retention: '/uba/api/retentions/users',
  distribution: '/uba/api/distributions/users',
  userAttributes: '/uba/api/userAttributes/users',
} as const satisfies Record<AnalysisKind, keyof paths>

/** The coordinates of a cell, as each analysis names them (see /docs). */
export type CellCoordinatesOf = { [K in AnalysisKind]: RequestBody<(typeof CELL_USER_PATHS)[K]>['cell'] }
export type CellCoordinates = CellCoordinatesOf[AnalysisKind]

// the five analyses answer with one schema; the events routes name it
export type CellUsersPage = Required<Answer<'/uba/api/events/users', 'post'>>

/** A user of the cell: the properties asked for, then distinct_id and xwho. */
export type CellUser = CellUsersPage['users'][number]

export type SavedCellCohort = Required<Pick<Answer<'/uba/api/events/users/cohort', 'post'>, 'id' | 'code' | 'name' | 'userNumber'>>

/** A cell of the answer to `body`. */
export interface CellQuery {
  kind: AnalysisKind
  body: AnalysisRequests[AnalysisKind]
  cell: CellCoordinates
}

export function cellUsers(auth: ProjectAuth, q: CellQuery, page: number, pageSize: number): Promise<CellUsersPage> {
  return request<CellUsersPage>(auth, 'POST', CELL_USER_PATHS[q.kind], { ...q.body, cell: q.cell, page, pageSize, properties: [] })
}

/** Every user of the cell as CSV with a byte-order mark (for spreadsheets), streamed. */
export function exportCellUsers(auth: ProjectAuth, q: CellQuery, signal: AbortSignal): Promise<Response> {
  return requestStream(auth, 'POST', `${CELL_USER_PATHS[q.kind]}/export?csvUtfEncoding=0`, { ...q.body, cell: q.cell, format: 'csv' }, { signal })
}

export function saveCellCohort(auth: ProjectAuth, q: CellQuery, name: string): Promise<SavedCellCohort> {
  return request<SavedCellCohort>(auth, 'POST', `${CELL_USER_PATHS[q.kind]}/cohort`, { ...q.body, cell: q.cell, name })
}
