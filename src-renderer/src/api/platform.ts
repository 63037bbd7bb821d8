import { request, type PlatformAuth } from './http'

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
