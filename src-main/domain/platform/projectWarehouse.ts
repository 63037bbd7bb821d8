import type { MetaDb } from '../../store/meta'
import { asFlag, flag, type Stored } from '../../store/meta/flags'
import type { RemoteConnection, ServerFound, WarehouseChoice } from '../../warehouse/router'
import type { DomainContext } from '../context'
import { badParam } from '../errors'

interface WarehouseRow {
  engine: 'clickhouse'
  url: string
  database: string
  user: string | null
  password: string | null
  /** The app created the database (it was not on the server when the project was made). */
  created_database: boolean
}

/** A project's warehouse as the API shows it: the engine and where it is, never the password. */
export type WarehouseView = { engine: 'duckdb' } | { engine: 'clickhouse'; url: string; database: string; user?: string; problem?: string }

function warehouseRow(r: Stored<WarehouseRow>): WarehouseRow {
  return { ...r, created_database: flag(r.created_database) }
}

function rowOf(meta: MetaDb, appKey: string): WarehouseRow | undefined {
  const row = meta.prepare('SELECT * FROM project_warehouses WHERE app_key = ?').get(appKey) as Stored<WarehouseRow> | undefined
  return row && warehouseRow(row)
}

/** Where the project's data lives (a project without a row, or unknown: the embedded DuckDB). */
export function warehouseChoiceOf(meta: MetaDb, appKey: string): WarehouseChoice {
  const row = meta
    .prepare('SELECT w.*, p.time_zone FROM project_warehouses w JOIN projects p ON p.app_key = w.app_key WHERE w.app_key = ?')
    .get(appKey) as (Stored<WarehouseRow> & { time_zone: string }) | undefined
  if (!row) return { engine: 'duckdb' }
  const connection = { url: row.url, database: row.database, ...(row.user !== null ? { user: row.user } : {}), ...(row.password !== null ? { password: row.password } : {}) }
  return { engine: row.engine, connection, timeZone: row.time_zone }
}

/** `found`: false when the app found the project's ClickHouse database gone (dropped on the server), which the view then says. */
export function warehouseView(meta: MetaDb, appKey: string, found: boolean): WarehouseView {
  const row = rowOf(meta, appKey)
  if (!row) return { engine: 'duckdb' }
  const problem = found ? {} : { problem: `the database ${row.database} is missing on ${row.url}: it was dropped there, and UBA Desk does not create it again` }
  return { engine: row.engine, url: row.url, database: row.database, ...(row.user !== null ? { user: row.user } : {}), ...problem }
}

/** Records a project's ClickHouse database, in the transaction that registers the project. */
export function recordWarehouse(meta: MetaDb, appKey: string, connection: RemoteConnection, createdDatabase: boolean): void {
  const { url, database, user, password } = connection
  meta
    .prepare('INSERT INTO project_warehouses (app_key, engine, url, database, user, password, created_database) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(appKey, 'clickhouse', url, database, user ?? null, password ?? null, asFlag(createdDatabase))
}

/** The `warehouse` of a request (create a project, test a connection), as the route schema let it through. */
export interface WarehouseInput {
  engine: 'duckdb' | 'clickhouse'
  url?: string
  database?: string
  user?: string
  password?: string
}

/** Database names a project may not take: the server's own. */
const SERVER_DATABASES = new Set(['system', 'information_schema'])

/** A ClickHouse address as the client takes it: http(s), a host, a port at most; nothing else. */
function serverUrl(text: string): string {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw badParam('warehouse.url', `warehouse.url: ${JSON.stringify(text.slice(0, 100))} is not an address: write http://HOST:8123`)
  }
  if (!/^https?:$/.test(url.protocol) || !url.hostname) throw badParam('warehouse.url', 'warehouse.url: the address of a ClickHouse server starts with http:// or https:// (e.g. http://HOST:8123)')
  if (url.username || url.password) throw badParam('warehouse.url', 'warehouse.url: put the user and password in warehouse.user and warehouse.password, not in the address')
  if (url.pathname !== '/' || url.search || url.hash) throw badParam('warehouse.url', 'warehouse.url: the address takes a scheme, host and port only (no path, query or fragment)')
  return url.origin
}

/** The engine a request asks for, and for ClickHouse the server to try. */
export type AskedWarehouse = { engine: 'duckdb' } | { engine: 'clickhouse'; connection: RemoteConnection }

/** The engine a request asks for, its fields checked; 400 naming the field that is wrong. */
export function warehouseChoice(input: WarehouseInput | undefined): AskedWarehouse {
  if (!input || input.engine === 'duckdb') {
    for (const field of ['url', 'database', 'user', 'password'] as const) {
      if (input?.[field] !== undefined) throw badParam(`warehouse.${field}`, `warehouse.${field}: only a ClickHouse warehouse takes a ${field}`)
    }
    return { engine: 'duckdb' }
  }
  if (input.url === undefined) throw badParam('warehouse.url', 'warehouse.url is required for a ClickHouse warehouse')
  if (input.database === undefined) throw badParam('warehouse.database', 'warehouse.database is required for a ClickHouse warehouse')
  if (SERVER_DATABASES.has(input.database.toLowerCase())) throw badParam('warehouse.database', `warehouse.database: ${input.database} is the server's own database`)
  const connection: RemoteConnection = { url: serverUrl(input.url), database: input.database }
  if (input.user !== undefined) connection.user = input.user
  if (input.password !== undefined && input.password !== '') connection.password = input.password
  return { engine: 'clickhouse', connection }
}

/**
 * A database already holding another project of this data folder is refused: two projects would
 * read and write the same tables (deleted projects keep their database too, see docs/clickhouse.md).
 */
export function checkDatabaseFree(meta: MetaDb, connection: RemoteConnection): void {
  const other = meta.prepare('SELECT app_key FROM project_warehouses WHERE url = ? AND database = ?').pluck().get(connection.url, connection.database) as string | undefined
  if (other !== undefined) throw badParam('warehouse.database', `warehouse.database: ${connection.database} on ${connection.url} already holds project ${other}`)
}

/** Tries the server; a server that cannot be used is a 400 naming `warehouse`, with the reason. */
export async function testWarehouse(ctx: DomainContext, connection: RemoteConnection): Promise<ServerFound> {
  const found = await ctx.warehouse.testConnection(connection)
  if (!found.ok) throw badParam('warehouse', `warehouse: ${found.message}`)
  return found
}

/** "Test connection": the server's version and whether the database exists, or a 400 naming what is wrong. */
export async function testServer(ctx: DomainContext, input: WarehouseInput): Promise<{ version: string; databaseExists: boolean }> {
  const choice = warehouseChoice(input)
  if (choice.engine !== 'clickhouse') throw badParam('warehouse.engine', 'warehouse.engine: only a ClickHouse server is tested')
  const { version, databaseExists } = await testWarehouse(ctx, choice.connection)
  return { version, databaseExists }
}
