import { engineUnavailable } from '../errors'
import { checkServer } from './clickhouse/serverCheck'
import type { Dialect } from './dialect'
import type { Warehouse, Warehouses, WarehouseSession } from '.'

/** A ClickHouse database a project lives in; the password is sent to the server and nowhere else. */
export interface RemoteConnection {
  /** http(s)://host:port, nothing else. */
  url: string
  database: string
  user?: string
  password?: string
}

/**
 * The engine one project's data lives on: the data folder's DuckDB, or a ClickHouse server (with
 * the project's time zone, which ClickHouse SQL names in every calendar expression).
 */
export type WarehouseChoice = { engine: 'duckdb' } | { engine: 'clickhouse'; connection: RemoteConnection; timeZone: string }

/**
 * The ClickHouse side, handed in by the app: `open` makes the warehouses of one project's
 * database (`stagingDir`: the local folder its files to import are read from), `dialect` the SQL
 * text of that engine for a project's time zone (18.16 has no session zone: the SQL names it).
 */
export interface RemoteEngine {
  open(options: RemoteConnection & { stagingDir: string }): Warehouses
  dialect(timeZone: string): Dialect
  /**
   * The warehouse a load of such a project runs on: `local`, a throwaway DuckDB database that reads
   * and checks the records as for an embedded project, its transaction writing the result to
   * `remote` (warehouse/loading). Absent: loads into such a project are refused.
   */
  loading?(local: Warehouse, remote: Warehouse): Promise<Warehouse>
}

/** What "Test connection" learned from a server that answered and let the user in. */
export interface ServerFound {
  ok: true
  /** The server's version(), e.g. 18.16.1. */
  version: string
  /** Whether the named database exists already (a team's store) or the app will create it. */
  databaseExists: boolean
}

/** Why a server could not be used: nothing answered, the user was refused, or it answered an error. */
export interface ServerRefused {
  ok: false
  problem: 'unreachable' | 'auth' | 'error'
  /** A sentence for the user; never carries the password. */
  message: string
}

/** Every project of the data folder, each on its own engine, with the SQL text of that engine. */
export interface ProjectWarehouses extends Warehouses {
  /** The SQL text of the engine the project's warehouse runs on. */
  dialectOf(appKey: string): Dialect
  /**
   * Runs `work` (a load: an import, an upload, the sample, a preview) on the warehouse loads of the
   * project run on: its own connection for an embedded project; for a ClickHouse project, a local
   * DuckDB database whose transaction writes the result to ClickHouse (warehouse/loading).
   */
  withLoading<T>(appKey: string, timeZone: string, work: (warehouse: Warehouse) => Promise<T>): Promise<T>
  /** Tries a ClickHouse server as a project would use it (works whether or not its engine is built in). */
  testConnection(connection: RemoteConnection): Promise<ServerFound | ServerRefused>
}

export interface RouterOptions<E extends Warehouse> {
  /** The data folder's own engine (DuckDB): every project without another choice. */
  embedded: Warehouses<E>
  embeddedDialect: Dialect
  /** Where a project lives, read from the metadata on every call (a project unknown there: embedded). */
  choiceOf(appKey: string): WarehouseChoice
  /** Absent: this build has no ClickHouse executor, and a ClickHouse project answers 503. */
  clickhouse?: RemoteEngine
  /** A throwaway database of the embedded engine for one load of a project stored elsewhere (DuckDBWarehouses.withScratch). */
  scratch?<T>(appKey: string, timeZone: string, work: (warehouse: Warehouse) => Promise<T>): Promise<T>
}

interface Route {
  host: Warehouses
  dialect: Dialect
}

/**
 * The per-folder `Warehouses` the domain sees: each call goes to the engine of the project it
 * names. ClickHouse projects get their own host (one database each), made on first use and kept
 * until the router closes. Files to import stay in the project's local staging folder whatever
 * the engine (DuckDB reads them).
 */
export class WarehouseRouter<E extends Warehouse = Warehouse> implements ProjectWarehouses {
  private readonly remote = new Map<string, Warehouses>()
  private readonly remoteDialects = new Map<string, Dialect>()
  private closed = false

  constructor(private readonly options: RouterOptions<E>) {}

  /** The engine a project is on. */
  engineOf(appKey: string): WarehouseChoice['engine'] {
    return this.options.choiceOf(appKey).engine
  }

  dialectOf(appKey: string): Dialect {
    return this.route(appKey).dialect
  }

  testConnection(connection: RemoteConnection): Promise<ServerFound | ServerRefused> {
    return checkServer(connection)
  }

  exists(appKey: string): boolean {
    const choice = this.options.choiceOf(appKey)
    if (choice.engine === 'duckdb') return this.options.embedded.exists(appKey)
    return !this.closed && this.options.clickhouse !== undefined && this.route(appKey).host.exists(appKey)
  }

  stagingDirOf(appKey: string): string {
    return this.options.embedded.stagingDirOf(appKey)
  }

  spillDirOf(appKey: string): string {
    return this.options.embedded.spillDirOf(appKey)
  }

  createProject(appKey: string, timeZone: string): Promise<void> {
    return this.call(appKey, (host) => host.createProject(appKey, timeZone))
  }

  openProject(appKey: string, timeZone: string): Promise<void> {
    return this.call(appKey, (host) => host.openProject(appKey, timeZone))
  }

  withConnection<T>(appKey: string, timeZone: string, work: (warehouse: Warehouse) => Promise<T>): Promise<T> {
    return this.call(appKey, (host) => host.withConnection(appKey, timeZone, work))
  }

  withLoading<T>(appKey: string, timeZone: string, work: (warehouse: Warehouse) => Promise<T>): Promise<T> {
    if (this.options.choiceOf(appKey).engine === 'duckdb') return this.options.embedded.withConnection(appKey, timeZone, work)
    const { clickhouse, scratch } = this.options
    if (!clickhouse?.loading || !scratch) return Promise.reject(engineUnavailable('loading records into a ClickHouse project is not available in this build'))
    const loading = clickhouse.loading.bind(clickhouse)
    return this.call(appKey, (host) => host.withConnection(appKey, timeZone, (remote) => scratch(appKey, timeZone, async (local) => work(await loading(local, remote)))))
  }

  session(appKey: string, timeZone: string): Promise<WarehouseSession> {
    return this.call(appKey, (host) => host.session(appKey, timeZone))
  }

  interrupt(appKey: string): number {
    if (this.options.choiceOf(appKey).engine === 'duckdb') return this.options.embedded.interrupt(appKey)
    return this.remote.get(appKey)?.interrupt(appKey) ?? 0
  }

  async close(): Promise<void> {
    this.closed = true
    const hosts = [...this.remote.values()]
    this.remote.clear()
    await Promise.all([this.options.embedded.close(), ...hosts.map((h) => h.close())])
  }

  /** A call on the project's host; a failure to find the host is a rejected promise, like the engine's own. */
  private async call<T>(appKey: string, work: (host: Warehouses) => Promise<T>): Promise<T> {
    return work(this.route(appKey).host)
  }

  private route(appKey: string): Route {
    const choice = this.options.choiceOf(appKey)
    if (choice.engine === 'duckdb') return { host: this.options.embedded, dialect: this.options.embeddedDialect }
    const engine = this.options.clickhouse
    if (!engine) throw engineUnavailable('this project is stored on ClickHouse, and this build has no ClickHouse engine')
    if (this.closed) throw engineUnavailable('the server is shutting down')
    let host = this.remote.get(appKey)
    if (!host) {
      host = engine.open({ ...choice.connection, stagingDir: this.stagingDirOf(appKey) })
      this.remote.set(appKey, host)
    }
    let dialect = this.remoteDialects.get(choice.timeZone)
    if (!dialect) {
      dialect = engine.dialect(choice.timeZone)
      this.remoteDialects.set(choice.timeZone, dialect)
    }
    return { host, dialect }
  }
}
