import type { Answer, RequestBody } from '../../../src-shared/contract'
import { request, requestStream, type ProjectAuth, type RequestOptions } from './http'

/**
 * Custom SQL (spec 4.7): read-only queries over event_vd, profile_vd and the dimension tables.
 * The query answers at once and is meant for small results; the export streams any size.
 */

/** One result row: column name to value, as JSON has it. */
export type SqlRow = Answer<'/uba/api/sql/query', 'post'>[number]

/** csv: a header line, then rows; json: JSON lines (one object per row) when exported. */
export type SqlFormat = NonNullable<RequestBody<'/uba/api/sql/export'>['format']>

/** POST /uba/api/sql/query with format json: the whole result as an array of rows. */
export function runQuery(auth: ProjectAuth, sql: string, options?: RequestOptions): Promise<SqlRow[]> {
  return request<SqlRow[]>(auth, 'POST', '/uba/api/sql/query', { sql, format: 'json' }, options)
}

/** POST /uba/api/sql/export: the response, streamed, for the caller to read as it arrives. */
export function exportQuery(auth: ProjectAuth, sql: string, format: SqlFormat, options?: RequestOptions): Promise<Response> {
  return requestStream(auth, 'POST', '/uba/api/sql/export', { sql, format }, options)
}
