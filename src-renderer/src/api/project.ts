import { request, type ProjectAuth } from './http'
import type { StreamState } from './platform'

/** What the authenticated project holds (GET /uba/api/project). */
export interface ProjectOverview {
  appKey: string
  name: string
  timeZone: string
  stream: StreamState
  events: number
  users: number
  /** yyyy-MM-dd in the project time zone, null while there are no events. */
  firstDay: string | null
  lastDay: string | null
}

export function getOverview(auth: ProjectAuth): Promise<ProjectOverview> {
  return request<ProjectOverview>(auth, 'GET', '/uba/api/project')
}
