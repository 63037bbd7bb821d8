import type { Answer, RequestBody } from '../../../src-shared/contract'
import { request, type PlatformAuth } from './http'

/** Where a project's events live, as the answers show it: the engine and, for ClickHouse, the server (never the password). */
export type ProjectWarehouse = NonNullable<Answer<'/uba/manage/enterprise/projects/{appKey}'>['warehouse']>
/** A project's warehouse as a create request gives it (the password included). */
export type WarehouseInput = NonNullable<RequestBody<'/uba/manage/enterprise/projects'>['warehouse']>
/** What Test connection learned: the server's version, and whether the database exists. */
export type ServerFound = Answer<'/uba/manage/enterprise/warehouse/test', 'post'>

/** Data stream: 0 not started, 1 starting, 2 started, 3 interrupted, 5 closing. */
export type StreamState = 0 | 1 | 2 | 3 | 5

/** A project as the platform lists it (spec 4.1). */
export interface Project {
  appKey: string
  /** The project API token. */
  normalToken: string
  cname: string
  version: string
  createTime: number
  /** 1 normal, 2 deleted, 3 abnormal and unavailable. */
  status: number
  partitionNum: number
  stream: StreamState
  /** IANA time zone in which the project's days and weeks are computed. */
  timeZone: string
  warehouse?: ProjectWarehouse
}

export interface ProjectDetail extends Omit<Project, 'normalToken'> {
  /** Asynchronous creation has completed. */
  finish: boolean
}

export interface NewProject {
  /** Letters and digits only. */
  name: string
  appKey?: string
  timeZone?: string
  /** Default: the embedded DuckDB. */
  warehouse?: WarehouseInput
}

const PROJECTS = '/uba/manage/enterprise/projects'

export function listProjects(auth: PlatformAuth): Promise<Project[]> {
  return request<Project[]>(auth, 'GET', PROJECTS)
}

export function getProject(auth: PlatformAuth, appKey: string): Promise<ProjectDetail> {
  return request<ProjectDetail>(auth, 'GET', `${PROJECTS}/${encodeURIComponent(appKey)}`)
}

/** Starts creation; it finishes in the background (poll getProject until `finish`). */
export function createProject(auth: PlatformAuth, project: NewProject): Promise<{ appKey: string; success: number }> {
  return request(auth, 'POST', PROJECTS, project)
}

/** Asks the stream to start or stop; the state moves on in the background. */
export function switchStream(auth: PlatformAuth, appKey: string, on: boolean): Promise<{ success: number }> {
  return request(auth, 'POST', `${PROJECTS}/${encodeURIComponent(appKey)}/stream`, { streamSwitch: on })
}

/** Tries a ClickHouse server as a project would use it; a server that cannot be used is an ApiError with the reason. */
export function testWarehouse(auth: PlatformAuth, warehouse: WarehouseInput): Promise<ServerFound> {
  return request(auth, 'POST', '/uba/manage/enterprise/warehouse/test', { warehouse })
}
