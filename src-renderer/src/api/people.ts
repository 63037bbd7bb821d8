import { request, requestStream, type ProjectAuth, type RequestOptions } from './http'

/** Single users (spec 2.9, 4.6): one user's profile and behaviour sequence. */

/** Who: the user id (`xwho`) or the platform's numeric `distinctId`. */
export type UserRef = { xwho: string } | { distinctId: number }

/** A user's detail: user property id to value (null when empty); masked values come as a marker text. */
export type UserDetail = Record<string, unknown>

/** One event of a behaviour sequence. */
export interface SequenceRow {
  eventId: string
  /** yyyy/MM/dd HH:mm:ss in the project's time zone. */
  eventTime: string
  properties: Record<string, unknown>
}

export interface Sequence {
  /** Newest first. */
  rows: SequenceRow[]
  /** yyyy-MM-dd HH:mm:ss */
  reportUpdateTime: string
}

export interface SequenceQuery {
  /** yyyy-MM-dd, both days included. */
  fromDate: string
  toDate: string
  /** Event ids; omitted: every event. */
  events?: string[]
  /** At most this many rows (the newest). */
  limit?: number
}

/** POST /uba/api/users/personal; an unknown user is a 400 naming xwho or distinctId. */
export function getUser(auth: ProjectAuth, user: UserRef, properties?: string[], options?: RequestOptions): Promise<UserDetail> {
  return request<UserDetail>(auth, 'POST', '/uba/api/users/personal', { ...user, ...(properties ? { properties } : {}) }, options)
}

/** POST /uba/api/users/sequence: the newest `limit` events of the range. */
export function getSequence(auth: ProjectAuth, user: UserRef, query: SequenceQuery, options?: RequestOptions): Promise<Sequence> {
  return request<Sequence>(auth, 'POST', '/uba/api/users/sequence', { ...user, ...query }, options)
}

/** JSON lines (the default), or CSV for spreadsheets: a header line, with a byte-order mark. */
export type ExportFormat = 'json' | 'csv'

/** POST /uba/api/users/sequence/export: every event of the range, streamed. */
export function exportSequence(auth: ProjectAuth, user: UserRef, query: Omit<SequenceQuery, 'limit'>, format: ExportFormat, options?: RequestOptions): Promise<Response> {
  const path = format === 'csv' ? '/uba/api/users/sequence/export?csvUtfEncoding=0' : '/uba/api/users/sequence/export'
  return requestStream(auth, 'POST', path, { ...user, ...query, format }, options)
}
