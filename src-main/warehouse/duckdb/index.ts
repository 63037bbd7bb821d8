import { randomUUID } from 'node:crypto'
import { existsSync, rmSync } from 'node:fs'
import { join, sep } from 'node:path'
import { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api'
import { engineUnavailable } from '../../errors'
import { privateDir, privateFiles } from '../../store/private'
import type { Warehouses } from '..'
import { DuckDBWarehouse } from './connection'

export interface WarehouseOptions {
  /** Folder that holds one sub-folder per project. */
  dir: string
  /** DuckDB worker threads per project database. */
  threads: number
  /** DuckDB memory limit per project database, e.g. "4GB". */
  memoryLimit: string
  /**
   * The memory limit while a file import runs (`boundedMemory`), e.g. "1GB"; the smaller of this
   * and `memoryLimit` applies. Without it, imports run under `memoryLimit`.
   */
  importMemoryLimit?: string
}

const UNITS: Record<string, number> = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12, KIB: 2 ** 10, MIB: 2 ** 20, GIB: 2 ** 30, TIB: 2 ** 40 }

/** Bytes of a DuckDB memory size ("512MB", "1.5GB", "2GiB"); NaN for text it cannot read. */
export function memoryBytes(size: string): number {
  const m = /^\s*([0-9.]+)\s*([A-Za-z]*)\s*$/.exec(size)
  const unit = UNITS[(m?.[2] || 'B').toUpperCase()]
  return m && unit ? Number(m[1]) * unit : Number.NaN
}

/**
 * The identity merges (domain/ingest/alias.ts), created with user_ids by the first load, and when
 * a database of a project stored before merges existed opens.
 */
export const USER_ALIASES_DDL = 'CREATE TABLE IF NOT EXISTS user_aliases (original_id VARCHAR NOT NULL, login_id VARCHAR NOT NULL, xwhen TIMESTAMPTZ)'

/** The base columns every project starts with; properties add typed columns later. */
const BASE_TABLES = [
  `CREATE TABLE IF NOT EXISTS event_vd (
     distinct_id BIGINT NOT NULL,
     xwho        VARCHAR NOT NULL,
     xwhat       VARCHAR NOT NULL,
     xwhen       TIMESTAMPTZ NOT NULL,
     ds          INTEGER NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS profile_vd (
     distinct_id BIGINT NOT NULL,
     xwho        VARCHAR NOT NULL
   )`,
]

/**
 * The single place that opens, configures, interrupts and closes the project databases
 * (one DuckDB file per project). Every query runs on a short-lived connection set to the
 * project's time zone, so days and weeks are computed where the analyst lives.
 */
export class DuckDBWarehouses implements Warehouses<DuckDBWarehouse> {
  private readonly instances = new Map<string, Promise<DuckDBInstance>>()
  private readonly active = new Map<string, Set<DuckDBConnection>>()
  private readonly creating = new Map<string, Promise<void>>()
  private readonly stopped = new WeakSet<DuckDBConnection>()
  /** Imports running per project: the import bound holds while there is one. */
  private readonly bounded = new Map<string, number>()
  private closed = false

  constructor(private readonly options: WarehouseOptions) {
    privateDir(options.dir)
  }

  fileOf(appKey: string): string {
    return join(this.options.dir, appKey, 'warehouse.duckdb')
  }

  exists(appKey: string): boolean {
    return existsSync(this.fileOf(appKey))
  }

  /**
   * The only folder DuckDB may open files in for this project (see `open`): a file to import is
   * placed here first and removed afterwards.
   */
  stagingDirOf(appKey: string): string {
    return join(this.options.dir, appKey, 'staging')
  }

  /**
   * Where the project's database spills what does not fit its memory limit. DuckDB empties it as
   * the statements and temporary tables that spilled end, and removes it when the database closes.
   */
  spillDirOf(appKey: string): string {
    return join(this.options.dir, appKey, 'spill')
  }

  /** The limit imports run under: the smaller of the two settings. */
  private importLimit(): string {
    const bound = this.options.importMemoryLimit
    if (bound === undefined) return this.options.memoryLimit
    return memoryBytes(bound) < memoryBytes(this.options.memoryLimit) ? bound : this.options.memoryLimit
  }

  /**
   * Runs `work` with the database's memory limit lowered to the import bound (see
   * `Warehouse.boundedMemory`). The limit is global to the database, so it is counted per project:
   * lowered by the first import, raised back by the last. A limit DuckDB cannot lower now (more
   * is held than the bound: a large query running beside) leaves the usual one: the import runs
   * all the same, only unbounded.
   */
  private async withBound<T>(appKey: string, conn: DuckDBConnection, work: () => Promise<T>): Promise<T> {
    const limit = this.importLimit()
    if (limit === this.options.memoryLimit) return work()
    const running = (this.bounded.get(appKey) ?? 0) + 1
    this.bounded.set(appKey, running)
    if (running === 1) await conn.run(`SET GLOBAL memory_limit = '${limit.replace(/'/g, "''")}'`).catch(() => undefined)
    try {
      return await work()
    } finally {
      const left = this.bounded.get(appKey)! - 1
      if (left === 0) {
        this.bounded.delete(appKey)
        await conn.run(`SET GLOBAL memory_limit = '${this.options.memoryLimit.replace(/'/g, "''")}'`).catch(() => undefined)
      } else this.bounded.set(appKey, left)
    }
  }

  /**
   * Creates the project's database and its base tables; safe to call again. Concurrent calls for
   * one project share one creation (two transactions creating the same table would conflict).
   */
  createProject(appKey: string, timeZone: string): Promise<void> {
    let pending = this.creating.get(appKey)
    if (!pending) {
      pending = (async () => {
        privateDir(join(this.options.dir, appKey))
        await this.withConnection(appKey, timeZone, async (conn) => {
          for (const ddl of BASE_TABLES) await conn.run(ddl)
        })
      })().finally(() => this.creating.delete(appKey))
      this.creating.set(appKey, pending)
    }
    return pending
  }

  /** The database file is the app's own: made again when absent, as at the creation. */
  openProject(appKey: string, timeZone: string): Promise<void> {
    return this.createProject(appKey, timeZone)
  }

  /**
   * Runs `work` on a fresh connection of the project's database. The connection is tracked so
   * that `interrupt` can stop it, and closed afterwards whatever happens.
   */
  async withConnection<T>(
    appKey: string,
    timeZone: string,
    work: (warehouse: DuckDBWarehouse) => Promise<T>,
  ): Promise<T> {
    const session = await this.session(appKey, timeZone)
    try {
      return await work(session)
    } finally {
      session.close()
    }
  }

  /**
   * A connection that outlives one call, for streamed reads: the caller reads at its own pace and
   * must `close()` it (safe to call twice). `interrupt()` stops only this connection's query.
   * Like every connection it is tracked, so `interrupt(appKey)` and `close()` reach it too. An
   * interrupted streamed result ends early without an error: see `interrupted`.
   */
  async session(appKey: string, timeZone: string): Promise<DuckDBWarehouse> {
    const instance = await this.instance(appKey)
    let conn: DuckDBConnection
    try {
      conn = await instance.connect()
      await conn.run(`SET TimeZone = '${timeZone.replace(/'/g, "''")}'`)
    } catch {
      throw engineUnavailable()
    }
    const running = this.active.get(appKey) ?? new Set<DuckDBConnection>()
    this.active.set(appKey, running)
    running.add(conn)
    let open = true
    const stopped = this.stopped
    return new DuckDBWarehouse(conn, {
      bounded: (work) => this.withBound(appKey, conn, work),
      interrupt: () => {
        if (!open) return
        stopped.add(conn)
        conn.interrupt()
      },
      get interrupted() {
        return stopped.has(conn)
      },
      close: () => {
        if (!open) return
        open = false
        running.delete(conn)
        conn.closeSync()
      },
    })
  }

  /**
   * Runs `work` on a throwaway database of its own, for a load of a project stored on another
   * engine (a ClickHouse project: warehouse/loading): the same tables as a project's, the project's
   * staging folder readable, the import memory bound, and removed afterwards whatever happens. It
   * lives in the staging folder, which start-up empties, so a crash leaves nothing for long.
   */
  async withScratch<T>(appKey: string, timeZone: string, work: (warehouse: DuckDBWarehouse) => Promise<T>): Promise<T> {
    if (this.closed) throw engineUnavailable('the server is shutting down')
    const staging = this.stagingDirOf(appKey)
    privateDir(join(this.options.dir, appKey))
    privateDir(staging)
    const file = join(staging, `loading-${randomUUID()}.duckdb`)
    const spill = `${file}.spill`
    const instance = await DuckDBInstance.create(file, { threads: String(this.options.threads), memory_limit: this.importLimit(), temp_directory: spill })
    let conn: DuckDBConnection | undefined
    try {
      conn = await instance.connect()
      await conn.run(`SET allowed_directories = ['${(staging + sep).replace(/'/g, "''")}']`)
      await conn.run('SET enable_external_access = false')
      await conn.run(`SET TimeZone = '${timeZone.replace(/'/g, "''")}'`)
      for (const ddl of BASE_TABLES) await conn.run(ddl)
      const c = conn
      let stopped = false
      const warehouse = new DuckDBWarehouse(c, {
        bounded: (w) => w(),
        interrupt: () => {
          stopped = true
          c.interrupt()
        },
        get interrupted() {
          return stopped
        },
        close: () => undefined,
      })
      return await work(warehouse)
    } finally {
      conn?.closeSync()
      instance.closeSync()
      for (const f of [file, `${file}.wal`, spill]) rmSync(f, { force: true, recursive: true })
    }
  }

  /** Stops every query now running on the project's database. */
  interrupt(appKey: string): number {
    const running = this.active.get(appKey)
    if (!running) return 0
    for (const conn of running) {
      this.stopped.add(conn)
      conn.interrupt()
    }
    return running.size
  }

  /** Interrupts running queries and closes every open database. */
  async close(): Promise<void> {
    this.closed = true
    for (const appKey of this.active.keys()) this.interrupt(appKey)
    const opened = [...this.instances.values()]
    this.instances.clear()
    for (const pending of opened) {
      try {
        ;(await pending).closeSync()
      } catch {
        // a database that never opened has nothing to close
      }
    }
  }

  private instance(appKey: string): Promise<DuckDBInstance> {
    if (this.closed) return Promise.reject(engineUnavailable('the server is shutting down'))
    let pending = this.instances.get(appKey)
    if (!pending) {
      pending = this.open(appKey).catch(() => {
        this.instances.delete(appKey)
        throw engineUnavailable()
      })
      this.instances.set(appKey, pending)
    }
    return pending
  }

  /**
   * Opens the project's database with file access confined to the project's staging folder (and
   * DuckDB's own database and spill files): whatever SQL runs on it (custom SQL included) cannot
   * read or write other files, reach the network, or install or load extensions. Both settings
   * are global to the instance. allowed_directories takes effect only when SET after the instance
   * exists (not as a create option) and before external access is switched off, which cannot be
   * switched back on while the database is open. lock_configuration is not used: it would also
   * refuse each connection's `SET TimeZone`; custom SQL refuses SET statements on its own.
   */
  private async open(appKey: string): Promise<DuckDBInstance> {
    const staging = this.stagingDirOf(appKey)
    privateDir(join(this.options.dir, appKey))
    privateDir(staging)
    const instance = await DuckDBInstance.create(this.fileOf(appKey), {
      threads: String(this.options.threads),
      memory_limit: this.options.memoryLimit,
      temp_directory: this.spillDirOf(appKey),
    })
    privateFiles(this.fileOf(appKey), `${this.fileOf(appKey)}.wal`)
    try {
      const conn = await instance.connect()
      try {
        await conn.run(`SET allowed_directories = ['${(staging + sep).replace(/'/g, "''")}']`)
        await conn.run('SET enable_external_access = false')
        // user_ids and user_aliases go together (the lists of users read both): an older project has the first only
        const ids = await conn.runAndReadAll("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = 'user_ids'")
        if (Number(ids.getRows()[0][0]) > 0) await conn.run(USER_ALIASES_DDL)
      } finally {
        conn.closeSync()
      }
    } catch (err) {
      instance.closeSync()
      throw err
    }
    return instance
  }
}
