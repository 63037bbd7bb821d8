import type { MetaDb } from '../../store/meta'
import type { WarehouseChoice } from '../../warehouse/router'

interface WarehouseRow {
  engine: 'clickhouse'
  url: string
  database: string
  user: string | null
  password: string | null
  created_database: number
}

/** A project's warehouse as the API shows it: the engine and where it is, never the password. */
export type WarehouseView = { engine: 'duckdb' } | { engine: 'clickhouse'; url: string; database: string; user?: string }

function rowOf(meta: MetaDb, appKey: string): WarehouseRow | undefined {
  return meta.prepare('SELECT * FROM project_warehouses WHERE app_key = ?').get(appKey) as WarehouseRow | undefined
}

/** Where the project's data lives (a project without a row, or unknown: the embedded DuckDB). */
export function warehouseChoiceOf(meta: MetaDb, appKey: string): WarehouseChoice {
  const row = rowOf(meta, appKey)
  if (!row) return { engine: 'duckdb' }
  const connection = { url: row.url, database: row.database, ...(row.user !== null ? { user: row.user } : {}), ...(row.password !== null ? { password: row.password } : {}) }
  return { engine: row.engine, connection }
}

export function warehouseView(meta: MetaDb, appKey: string): WarehouseView {
  const row = rowOf(meta, appKey)
  if (!row) return { engine: 'duckdb' }
  return { engine: row.engine, url: row.url, database: row.database, ...(row.user !== null ? { user: row.user } : {}) }
}

/** Records a project's ClickHouse database, in the transaction that registers the project. */
export function recordWarehouse(meta: MetaDb, appKey: string, choice: WarehouseChoice, createdDatabase: boolean): void {
  if (choice.engine === 'duckdb') return
  const { url, database, user, password } = choice.connection
  meta
    .prepare('INSERT INTO project_warehouses (app_key, engine, url, database, user, password, created_database) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(appKey, choice.engine, url, database, user ?? null, password ?? null, createdDatabase ? 1 : 0)
}
