import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AppError, engineUnavailable } from '../../errors'
import { privateDir } from '../../store/private'
import type { Warehouses } from '..'
import { ClickHouseClient } from './client'
import { identifier, quoteString } from './literal'
import { dropLeftovers } from './staging'
import { ClickHouseWarehouse, type WarehouseHost } from './warehouse'

export { ClickHouseWarehouse } from './warehouse'
export { COLUMN_TYPES } from './writes'

/** Where a project's events live on ClickHouse: the server and the project's own database. */
export interface ClickHouseWarehouseOptions {
  /** http(s)://host:port, nothing else (credentials go in user and password). */
  url: string
  /** The project's database, created by `createProject` when absent; a plain name. */
  database: string
  user?: string
  password?: string
  /**
   * The data folder's id (8 hex digits, settings `platform.folderId`): its staging tables and commit
   * lock carry it, and its start-up drops only its own leftovers. Absent (tests): one per host.
   */
  folder?: string
  /** The local folder files to import are placed in (DuckDB stays the file reader); a temporary one by default. */
  stagingDir?: string
}

/**
 * The base tables (docs/clickhouse.md). `xwhen` is epoch milliseconds: 18.16 has no DateTime64
 * and DateTime keeps seconds only, wrapping outside 1970..2106. `ds` is the project-local day as
 * a yyyyMMdd integer, as in DuckDB (the domain compares it with such numbers), and its month is
 * the partition. Sorted by user then time: the funnel, retention and people read a user's events
 * in time order.
 */
export const BASE_TABLES = [
  `CREATE TABLE IF NOT EXISTS event_vd (
     distinct_id Int64,
     xwho        String,
     xwhat       String,
     xwhen       Int64,
     ds          Int32
   ) ENGINE = MergeTree PARTITION BY intDiv(ds, 100) ORDER BY (xwho, xwhen)`,
  `CREATE TABLE IF NOT EXISTS profile_vd (
     distinct_id Int64,
     xwho        String
   ) ENGINE = MergeTree ORDER BY xwho`,
  // one row per id (domain/ingest/identity.ts); an identity merge lists the anonymous id here
  `CREATE TABLE IF NOT EXISTS user_ids (
     xwho        String,
     distinct_id Int64
   ) ENGINE = MergeTree ORDER BY xwho`,
  `CREATE TABLE IF NOT EXISTS user_aliases (
     original_id String,
     login_id    String,
     xwhen       Nullable(Int64)
   ) ENGINE = MergeTree ORDER BY original_id`,
]

/**
 * A project whose events live in ClickHouse: one database on one server per project (the `appKey`
 * the interface passes is the project this host was made for). Connections are HTTP requests, so
 * a "connection" is a `ClickHouseWarehouse` naming its requests; the password stays in the client.
 */
export class ClickHouseWarehouses implements Warehouses<ClickHouseWarehouse> {
  readonly database: string
  readonly url: string
  /** The data folder's id (see the options). */
  readonly folder: string
  readonly #client: ClickHouseClient
  readonly #server: ClickHouseClient
  readonly #stagingDir: string
  readonly #open = new Set<ClickHouseWarehouse>()
  readonly #host: WarehouseHost
  #lock: Promise<void> = Promise.resolve()
  #creating: Promise<void> | undefined
  #missing = false
  #closed = false

  constructor(options: ClickHouseWarehouseOptions) {
    identifier(options.database)
    const { url, database, user, password } = options
    this.#client = new ClickHouseClient({ url, database, user, password })
    // the database may not exist yet: CREATE DATABASE runs without it
    this.#server = new ClickHouseClient({ url, user, password })
    this.url = this.#client.url
    this.database = database
    this.folder = options.folder ?? randomBytes(4).toString('hex')
    if (!/^[0-9a-f]{8}$/.test(this.folder)) throw new Error(`not a data folder id: ${this.folder}`)
    this.#stagingDir = options.stagingDir ?? join(tmpdir(), 'uba-desk-clickhouse', database)
    this.#host = { database, folder: this.folder, exclusive: (work) => this.#exclusive(work), closed: (warehouse) => this.#open.delete(warehouse), gone: () => this.#gone() }
  }

  /**
   * The database was found missing (dropped on the server): the project says so, naming it, in
   * every answer that needs it (a 503: the data is not reachable), and nothing recreates it.
   */
  #gone(): AppError {
    this.#missing = true
    return engineUnavailable(`the project's ClickHouse database ${this.database} is missing on ${this.url}: it was dropped there, and UBA Desk does not create it again (an empty project would look as if the data had vanished); restore the database on the server, then restart UBA Desk`)
  }

  /** Resolves when the server answers a query with these credentials ("Test connection"); its typed error otherwise. */
  async ping(): Promise<void> {
    await this.#server.ping()
    await this.#server.query('SELECT 1')
  }

  /** True unless a request learned the database is gone (the project was made with it). */
  exists(): boolean {
    return !this.#missing
  }

  stagingDirOf(): string {
    privateDir(this.#stagingDir)
    return this.#stagingDir
  }

  /** Statements run on the server, which spills as its own settings say: nothing is spilled here. */
  spillDirOf(): string {
    return this.stagingDirOf()
  }

  /**
   * A project made before (start-up, a stream starting): never creates its database, which only the
   * project's creation does (a database dropped on the server stays missing, and the project says
   * so); drops what a crashed write left when the database is there.
   */
  async openProject(): Promise<void> {
    const [[found]] = (await this.#server.query(`SELECT count() FROM system.databases WHERE name = ${quoteString(this.database)}`)).rows as unknown[][]
    if (Number(found) === 0) {
      this.#gone()
      return
    }
    this.#missing = false
    await dropLeftovers({ command: (sql) => this.#client.command(sql), rows: async (sql) => (await this.#client.query(sql)).rows }, this.database, this.folder)
  }

  /** At the project's creation: creates the database and the base tables when absent, and drops what a crashed write left; safe to call again. */
  createProject(): Promise<void> {
    this.#creating ??= (async () => {
      await this.#server.command(`CREATE DATABASE IF NOT EXISTS ${identifier(this.database)}`)
      for (const ddl of BASE_TABLES) await this.#client.command(ddl)
      this.#missing = false
      await dropLeftovers({ command: (sql) => this.#client.command(sql), rows: async (sql) => (await this.#client.query(sql)).rows }, this.database, this.folder)
    })().finally(() => (this.#creating = undefined))
    return this.#creating
  }

  async withConnection<T>(appKey: string, timeZone: string, work: (warehouse: ClickHouseWarehouse) => Promise<T>): Promise<T> {
    const session = await this.session(appKey, timeZone)
    try {
      return await work(session)
    } finally {
      session.close()
    }
  }

  async session(appKey: string, timeZone: string): Promise<ClickHouseWarehouse> {
    if (this.#closed) throw engineUnavailable('the server is shutting down')
    const warehouse = new ClickHouseWarehouse(this.#client, this.#host, timeZone, appKey)
    this.#open.add(warehouse)
    return warehouse
  }

  /** One write of this host is moved into place (or changes columns) at a time. */
  async #exclusive<T>(work: () => Promise<T>): Promise<T> {
    let release!: () => void
    const previous = this.#lock
    this.#lock = new Promise<void>((resolve) => (release = resolve))
    await previous
    try {
      return await work()
    } finally {
      release()
    }
  }

  /** Stops every query now running through this host (KILL QUERY); resolves to how many connections had one. */
  interrupt(): number {
    let stopped = 0
    for (const warehouse of this.#open) {
      if (warehouse.busy) stopped++
      warehouse.interrupt()
    }
    return stopped
  }

  async close(): Promise<void> {
    this.#closed = true
    this.interrupt()
  }
}
