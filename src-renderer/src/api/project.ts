import type { Answer } from '../../../src-shared/contract'
import { request, type ProjectAuth } from './http'

/** What the authenticated project holds (GET /uba/api/project); firstDay and lastDay are yyyy-MM-dd in its time zone, null while there are no events. */
export type ProjectOverview = Answer<'/uba/api/project'>

export function getOverview(auth: ProjectAuth): Promise<ProjectOverview> {
  return request<ProjectOverview>(auth, 'GET', '/uba/api/project')
}
