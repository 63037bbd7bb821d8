import type { Answer, RequestBody } from '../../../src-shared/contract'
import { request, requestStream, type ProjectAuth, type RequestOptions } from './http'

/** Single users (spec 2.9, 4.6): one user's profile and behaviour sequence. */

type PersonalBody = RequestBody<'/uba/api/users/personal'>

/** Who: the user id (`xwho`) or the platform's numeric `distinctId`. */
export type UserRef = Required<Pick<PersonalBody, 'xwho'>> | Required<Pick<PersonalBody, 'distinctId'>>

/** A user's detail: user property id to value (null when empty); masked values come as a marker text. */
export type UserDetail = Answer<'/uba/api/users/personal', 'post'>

/** A behaviour sequence: rows newest first, and when it was computed (yyyy-MM-dd HH:mm:ss). */
export type Sequence = Answer<'/uba/api/users/sequence', 'post'>
/** One event of a behaviour sequence; eventTime is yyyy/MM/dd HH:mm:ss in the project's time zone. */
export type SequenceRow = Sequence['rows'][number]

/** The range (yyyy-MM-dd, both days included), the event ids (omitted: every event) and at most how many rows (the newest). */
export type SequenceQuery = Pick<RequestBody<'/uba/api/users/sequence'>, 'fromDate' | 'toDate' | 'events' | 'limit'>

/** POST /uba/api/users/personal; an unknown user is a 400 naming xwho or distinctId. */
export function getUser(auth: ProjectAuth, user: UserRef, properties?: string[], options?: RequestOptions): Promise<UserDetail> {
  return request<UserDetail>(auth, 'POST', '/uba/api/users/personal', { ...user, ...(properties ? { properties } : {}) }, options)
}

/** POST /uba/api/users/sequence: the newest `limit` events of the range. */
export function getSequence(auth: ProjectAuth, user: UserRef, query: SequenceQuery, options?: RequestOptions): Promise<Sequence> {
  return request<Sequence>(auth, 'POST', '/uba/api/users/sequence', { ...user, ...query }, options)
}

/** JSON lines (the default), or CSV for spreadsheets: a header line, with a byte-order mark. */
export type ExportFormat = NonNullable<RequestBody<'/uba/api/users/sequence/export'>['format']>

/** POST /uba/api/users/sequence/export: every event of the range, streamed. */
export function exportSequence(auth: ProjectAuth, user: UserRef, query: Omit<SequenceQuery, 'limit'>, format: ExportFormat, options?: RequestOptions): Promise<Response> {
  const path = format === 'csv' ? '/uba/api/users/sequence/export?csvUtfEncoding=0' : '/uba/api/users/sequence/export'
  return requestStream(auth, 'POST', path, { ...user, ...query, format }, options)
}
