import type { MetaDb } from '../../store/meta'
import { asFlag, flag, type Stored } from '../../store/meta/flags'
import type { DataType } from './types'

/**
 * The metadata of dimension tables in SQLite (migration 2): display name, remark, times, and per
 * field its display name, remark, enable and relation flags and its place in the column order.
 * The warehouse holds the truth about which columns exist and their types; this holds the rest.
 */

export interface TableRow {
  name: string
  showName: string | null
  remark: string | null
  createTime: number
  updateTime: number
}

export interface FieldRow {
  id: string
  dataType: DataType
  name: string | null
  remark: string | null
  enable: boolean
  relation: boolean
}

const TABLE_COLUMNS = 'name, show_name AS showName, remark, create_time AS createTime, update_time AS updateTime'

export function tableRow(meta: MetaDb, appKey: string, name: string): TableRow | undefined {
  return meta.prepare(`SELECT ${TABLE_COLUMNS} FROM dimension_tables WHERE app_key = ? AND name = ?`).get(appKey, name) as TableRow | undefined
}

export function tableRows(meta: MetaDb, appKey: string): TableRow[] {
  return meta.prepare(`SELECT ${TABLE_COLUMNS} FROM dimension_tables WHERE app_key = ? ORDER BY name`).all(appKey) as TableRow[]
}

export function fieldRows(meta: MetaDb, appKey: string, table: string): FieldRow[] {
  const rows = meta
    .prepare(
      `SELECT id, data_type AS dataType, name, remark, enable, relation FROM dimension_fields
       WHERE app_key = ? AND table_name = ? ORDER BY position`,
    )
    .all(appKey, table) as Stored<FieldRow>[]
  return rows.map((r) => ({ ...r, enable: flag(r.enable), relation: flag(r.relation) }))
}

export function insertTable(meta: MetaDb, appKey: string, table: { name: string; showName: string | null; remark: string | null }, now: number): void {
  meta
    .prepare('INSERT INTO dimension_tables (app_key, name, show_name, remark, create_time, update_time) VALUES (?, ?, ?, ?, ?, ?)')
    .run(appKey, table.name, table.showName, table.remark, now, now)
}

/**
 * Appends fields after the table's last one. A field already recorded is left as it is, so that
 * recording the same new columns twice (a repair, then the write that made them) is harmless.
 */
export function addFields(meta: MetaDb, appKey: string, table: string, fields: { id: string; dataType: DataType; relation?: boolean }[]): void {
  const last = meta.prepare('SELECT coalesce(max(position), -1) FROM dimension_fields WHERE app_key = ? AND table_name = ?').pluck().get(appKey, table) as number
  const insert = meta.prepare(
    `INSERT INTO dimension_fields (app_key, table_name, id, data_type, relation, position) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (app_key, table_name, id) DO NOTHING`,
  )
  fields.forEach((f, i) => insert.run(appKey, table, f.id, f.dataType, asFlag(f.relation ?? false), last + 1 + i))
}

export function removeFields(meta: MetaDb, appKey: string, table: string, ids: string[]): void {
  const remove = meta.prepare('DELETE FROM dimension_fields WHERE app_key = ? AND table_name = ? AND id = ?')
  for (const id of ids) remove.run(appKey, table, id)
}

export function touchTable(meta: MetaDb, appKey: string, name: string, now: number): void {
  meta.prepare('UPDATE dimension_tables SET update_time = ? WHERE app_key = ? AND name = ?').run(now, appKey, name)
}

/** Removes the table's metadata; its fields go with it (ON DELETE CASCADE). */
export function deleteTable(meta: MetaDb, appKey: string, name: string): void {
  meta.prepare('DELETE FROM dimension_tables WHERE app_key = ? AND name = ?').run(appKey, name)
}
