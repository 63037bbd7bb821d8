import { request, type ProjectAuth } from './http'
import type { DataType, Flag } from './schema'

/** Dimension tables (spec 4.8): lookup tables joined to properties by their relation fields. */

export interface DimensionTable {
  table: string
  showName: string | null
  remark: string | null
  /** Relation (join) fields, in column order. */
  relations: string[]
  columns: number
  rows: number
  createTime: number
  updateTime: number
}

/** A field record (spec 2.5). */
export interface DimensionField {
  id: string
  dataType: DataType
  name: string | null
  remark: string | null
  enable: Flag
  relation: Flag
}

export type DimensionValue = string | number | boolean | string[] | null
export type DimensionRow = Record<string, DimensionValue>

export interface NewDimensionTable {
  table: string
  showName?: string
  remark?: string
  relations?: string[]
  columns: Record<string, DataType>
  /** At least one row. */
  rows: DimensionRow[]
}

/** Rows the server takes per request (and its 10 MB body limit). */
export const ROWS_PER_REQUEST = 100_000

type Ok = { success: 0 }
const q = encodeURIComponent

export const listDimensionTables = (auth: ProjectAuth) => request<DimensionTable[]>(auth, 'GET', '/uba/api/project/dimensions')
export const dimensionFields = (auth: ProjectAuth, table: string) =>
  request<DimensionField[]>(auth, 'GET', `/uba/api/project/dimensions/properties?table=${q(table)}`)
export const createDimensionTable = (auth: ProjectAuth, table: NewDimensionTable) => request<Ok>(auth, 'POST', '/uba/api/project/dimensions', table)
/** Adds columns and upserts rows by the relation fields. */
export const updateDimensionTable = (auth: ProjectAuth, table: string, columns: Record<string, DataType>, rows: DimensionRow[]) =>
  request<Ok>(auth, 'POST', '/uba/api/dimensions/update', { table, columns, rows })
export const clearDimensionTable = (auth: ProjectAuth, table: string) => request<Ok>(auth, 'DELETE', `/uba/api/project/dimensions/clear?table=${q(table)}`)
export const dropDimensionTable = (auth: ProjectAuth, table: string) => request<Ok>(auth, 'DELETE', `/uba/api/project/dimensions/drop?table=${q(table)}`)
