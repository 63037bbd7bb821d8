import type { Answer, RequestBody } from '../../../src-shared/contract'
import { request, type ProjectAuth } from './http'
import type { DataType } from './schema'

/** Dimension tables (spec 4.8): lookup tables joined to properties by their relation fields. */

export type DimensionTable = Answer<'/uba/api/project/dimensions'>[number]

/** A field record (spec 2.5). */
export type DimensionField = Answer<'/uba/api/project/dimensions/properties'>[number]

/** The request; the server checks each row's values against the columns. */
export type NewDimensionTable = RequestBody<'/uba/api/project/dimensions'>

/** A row: column name to value (null leaves it empty). */
export type DimensionRow = NewDimensionTable['rows'][number]
export type DimensionValue = DimensionRow[string]

/** Rows the server takes per request (and its 10 MB body limit). */
export const ROWS_PER_REQUEST = 100_000

type Ok = Answer<'/uba/api/project/dimensions', 'post'>
const q = encodeURIComponent

export const listDimensionTables = (auth: ProjectAuth) => request<DimensionTable[]>(auth, 'GET', '/uba/api/project/dimensions')
export const dimensionFields = (auth: ProjectAuth, table: string) =>
  request<DimensionField[]>(auth, 'GET', `/uba/api/project/dimensions/properties?table=${q(table)}`)
export const createDimensionTable = (auth: ProjectAuth, table: NewDimensionTable) => request<Ok>(auth, 'POST', '/uba/api/project/dimensions', table)
/** Adds columns and upserts rows by the relation fields. */
export const updateDimensionTable = (auth: ProjectAuth, table: string, columns: Record<string, DataType>, rows: RequestBody<'/uba/api/dimensions/update'>['rows']) =>
  request<Ok>(auth, 'POST', '/uba/api/dimensions/update', { table, columns, rows })
export const clearDimensionTable = (auth: ProjectAuth, table: string) => request<Ok>(auth, 'DELETE', `/uba/api/project/dimensions/clear?table=${q(table)}`)
export const dropDimensionTable = (auth: ProjectAuth, table: string) => request<Ok>(auth, 'DELETE', `/uba/api/project/dimensions/drop?table=${q(table)}`)
