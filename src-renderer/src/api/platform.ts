import type { Answer, RequestBody } from '../../../src-shared/contract'
import { request, type PlatformAuth } from './http'

/** Where a project's events live, as the answers show it: the engine and, for ClickHouse, the server (never the password). */
export type ProjectWarehouse = NonNullable<Answer<'/uba/manage/enterprise/projects/{appKey}'>['warehouse']>
/** A project's warehouse as a create request gives it (the password included). */
export type WarehouseInput = NonNullable<RequestBody<'/uba/manage/enterprise/projects'>['warehouse']>
/** What Test connection learned: the server's version, and whether the database exists. */
export type ServerFound = Answer<'/uba/manage/enterprise/warehouse/test', 'post'>

/** A project as the platform lists it (spec 4.1), with its API token (`normalToken`). */
export type Project = Answer<'/uba/manage/enterprise/projects'>[number]

/** Data stream: 0 not started, 1 starting, 2 started, 3 interrupted, 5 closing. */
export type StreamState = Project['stream']

/** A project's detail: `finish` once asynchronous creation has completed. */
export type ProjectDetail = Answer<'/uba/manage/enterprise/projects/{appKey}'>

/** The create request: a name of letters and digits; on the embedded DuckDB unless `warehouse` says otherwise. */
export type NewProject = RequestBody<'/uba/manage/enterprise/projects'>

const PROJECTS = '/uba/manage/enterprise/projects'

export function listProjects(auth: PlatformAuth): Promise<Project[]> {
  return request<Project[]>(auth, 'GET', PROJECTS)
}

export function getProject(auth: PlatformAuth, appKey: string): Promise<ProjectDetail> {
  return request<ProjectDetail>(auth, 'GET', `${PROJECTS}/${encodeURIComponent(appKey)}`)
}

/** Starts creation; it finishes in the background (poll getProject until `finish`). */
export function createProject(auth: PlatformAuth, project: NewProject): Promise<Answer<'/uba/manage/enterprise/projects', 'post'>> {
  return request(auth, 'POST', PROJECTS, project)
}

/** Asks the stream to start or stop; the state moves on in the background. */
export function switchStream(auth: PlatformAuth, appKey: string, on: boolean): Promise<Answer<'/uba/manage/enterprise/projects/{appKey}/stream', 'post'>> {
  return request(auth, 'POST', `${PROJECTS}/${encodeURIComponent(appKey)}/stream`, { streamSwitch: on })
}

/** Tries a ClickHouse server as a project would use it; a server that cannot be used is an ApiError with the reason. */
export function testWarehouse(auth: PlatformAuth, warehouse: WarehouseInput): Promise<ServerFound> {
  return request(auth, 'POST', '/uba/manage/enterprise/warehouse/test', { warehouse })
}
