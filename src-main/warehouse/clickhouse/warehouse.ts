import { randomUUID } from 'node:crypto'
import { engineUnavailable } from '../../errors'
import type { AppendType, BoundValues, ColumnType, Row, ScanChunk, WarehouseSession } from '..'
import type { ValuePolicy } from '../values'
import { bindValues, firstKeyword, placeholderCount, quoteName, statementsOf } from './bound'
import type { ClickHouseClient, QueryOptions, QueryResult } from './client'
import { ClickHouseError, EngineUnavailableError } from './errors'
import { quoteString } from './literal'
import { exactRows, policyRows, rowObjects } from './results'
import { ProgressPoll } from './progress'
import type { Dialect } from '../dialect'
import { clickhouseDialect } from './dialect'
import { scanChunks } from './rowBinary'
import { Staging, type Exec } from './staging'
import { withDatabaseLock, type LockHolder } from './commitLock'
import { claimTable, dropOwnTable } from './owners'
import { COLUMN_TYPES, CREATE_TABLE, CREATE_TEMPORARY, IF_NOT_EXISTS, INSERT, tsvLine, unquote } from './writes'

/** What a warehouse needs from its host: the project's database and its one write lock. */
export interface WarehouseHost {
  readonly database: string
  /** The data folder's id: its staging tables and commit lock carry it (other apps may share the database). */
  readonly folder: string
  /** Runs `work` while no other write of this host is moved into place or changes a table's columns. */
  exclusive<T>(work: () => Promise<T>): Promise<T>
  /** Called once when the warehouse is closed. */
  closed(warehouse: ClickHouseWarehouse): void
  /** Notes that the database is gone (dropped on the server); resolves to the error that says so. */
  gone(): Error
}

/** Whether ClickHouse refused a request because the project's own database does not exist (code 81: 18.16 "doesn't exist", later "does not exist"). */
function databaseMissing(e: ClickHouseError, database: string): boolean {
  return e.code === 81 && new RegExp(`Database \`?${database}\`? does(n't| not) exist`).test(e.message)
}

/**
 * The partition id of a row of a base table, as SQL (BASE_TABLES: event_vd by month of ds, the
 * others in one partition). Not `_part`: 18.16 crashed on `SELECT DISTINCT substring(_part, …)`
 * of event_vd with a condition (the server process died).
 */
export function partitionIdOf(table: string): string {
  return table === 'event_vd' ? 'toString(intDiv(ds, 100))' : "'all'"
}

/** Rows per chunk of `stream`, as DuckDB's. */
const STREAM_ROWS = 2048
/** Rows per part of `appendRows` before `between` runs. */
const PART_ROWS = 2048

/**
 * One project database's connection as the domain sees it (`Warehouse`), over ClickHouse's HTTP
 * interface. Every request is named (`query_id`) so that `interrupt` can KILL it. Temporary
 * tables live in an HTTP session, which the server lets run one request at a time: from the first
 * `CREATE TEMPORARY TABLE` on, this connection's requests are queued.
 *
 * `transaction` and `snapshot` (ClickHouse has no transactions): see `./staging`. Inside either,
 * rows written to a table that existed before (appendRows, INSERT INTO) go to a staging table;
 * `transaction` moves them into place when `work` succeeds, all at once as queries see it, and
 * drops them when it fails; `snapshot` always drops them. Reads inside see the live tables, not
 * the staged rows, and each query reads its own consistent set of parts (no snapshot spans two
 * queries). Tables created inside are dropped on failure. Columns added inside stay (empty) on
 * failure: another writer may already use them. Other statements (ALTER … UPDATE/DELETE,
 * TRUNCATE, DROP) run at once and are not undone. Outside a transaction, each write is its own
 * transaction (an HTTP insert would otherwise commit in blocks of ~1M rows and could stop half-way).
 */
export class ClickHouseWarehouse implements WarehouseSession {
  #sessionId: string | undefined
  /** The session that was told its database (USE): see #call. */
  #sessionInDatabase: string | undefined
  #tail: Promise<void> = Promise.resolve()
  #abort = new AbortController()
  #stopped = false
  #open = true
  #staging: Staging | null = null
  readonly #running = new Set<string>()
  readonly #progressPoll = new ProgressPoll(() => this.client, () => (this.#open ? this.#running : new Set<string>()))

  constructor(
    readonly client: ClickHouseClient,
    private readonly host: WarehouseHost,
    /** The project's zone: 18.16 has no session zone, so the dialect names it in the SQL. */
    readonly timeZone: string,
    /** The project's appKey in this data folder (named in the claims of its tables). */
    readonly project = '',
  ) {
    this.dialect = clickhouseDialect(timeZone)
  }

  readonly dialect: Dialect

  /** The data folder's id: the database may be shared with other UBA Desks (see `Warehouse.folder`). */
  get folder(): string {
    return this.host.folder
  }

  /** The project's database on the server. */
  get database(): string {
    return this.host.database
  }

  /** One request: named, interruptible, queued behind the session's when it needs the session. */
  async #call<T>(send: (options: QueryOptions) => Promise<T>, sessionless = false): Promise<T> {
    const sessionId = sessionless ? undefined : this.#sessionId
    const release = sessionId ? await this.#acquire() : () => undefined
    const queryId = randomUUID()
    this.#running.add(queryId)
    try {
      // 18.16 resolves the tables of CREATE TEMPORARY TABLE … AS SELECT in the session's database,
      // not the request's (measured: "Table default.event_vd doesn't exist"): the session is told once
      if (sessionId && this.#sessionInDatabase !== sessionId) {
        await this.client.command(`USE ${quoteName(this.host.database)}`, { queryId: randomUUID(), signal: this.#abort.signal, sessionId })
        this.#sessionInDatabase = sessionId
      }
      return await send({ queryId, signal: this.#abort.signal, sessionId })
    } catch (e) {
      if (e instanceof EngineUnavailableError) throw engineUnavailable('the ClickHouse server cannot be reached')
      if (e instanceof ClickHouseError && databaseMissing(e, this.host.database)) throw this.host.gone()
      throw e
    } finally {
      this.#running.delete(queryId)
      release()
    }
  }

  async #acquire(): Promise<() => void> {
    let release!: () => void
    const previous = this.#tail
    this.#tail = new Promise<void>((resolve) => (release = resolve))
    await previous
    return release
  }

  /** Statements the staging runs: outside the session (no temporary table is involved), still interruptible. */
  readonly #exec: Exec = {
    command: (sql) => this.#call((o) => this.client.command(sql, o), true),
    rows: (sql) => this.#call((o) => this.client.query(sql, o), true).then((r) => r.rows as unknown[][]),
  }

  async #collect(sql: string): Promise<QueryResult> {
    return this.#call(async (options) => {
      const out: QueryResult = { columns: [], rows: [] }
      for await (const piece of this.client.stream(sql, options)) {
        out.columns = piece.columns
        for (const row of piece.rows) out.rows.push(row)
      }
      return out
    })
  }

  #text(sql: string, values: BoundValues | undefined): string {
    const text = bindValues(sql, values)
    if (CREATE_TEMPORARY.test(text)) this.#sessionId ??= randomUUID()
    return text
  }

  /**
   * Runs `write` with rows going where this connection's writes go (see the class comment):
   * inside a transaction to its staging, else through a staging of its own committed at once.
   */
  async #write<T>(write: (staging: Staging) => Promise<T>): Promise<T> {
    if (this.#staging) return write(this.#staging)
    const staging = new Staging(this.#exec, this.host.database, this.host.folder)
    try {
      const out = await write(staging)
      await this.host.exclusive(() => staging.commit())
      return out
    } catch (e) {
      await staging.discard(true)
      throw e
    }
  }

  async #exists(table: string): Promise<boolean> {
    return Number((await this.#exec.rows(`SELECT count() FROM system.tables WHERE database = ${quoteString(this.host.database)} AND name = ${quoteString(table)}`))[0][0]) > 0
  }

  /**
   * The ids of the partitions of `table` holding rows where `where` holds (a condition on its
   * columns; this connection's temporary tables may be named in it).
   */
  async partitionsWhere(table: string, where: string): Promise<string[]> {
    const rows = await this.rows(`SELECT DISTINCT ${partitionIdOf(table)} FROM ${quoteName(table)} WHERE ${where}`)
    return rows.map((r) => String(r[0]))
  }

  /**
   * Inside a transaction: at the commit, partitions `ids` of `table` hold exactly the rows `select`
   * gives now (a SELECT of the table's columns in order, of rows of those partitions only), plus
   * the rows appended to `table` meanwhile; all at once with the transaction's other writes.
   */
  async replacePartitions(table: string, ids: string[], select: string): Promise<void> {
    if (!this.#staging) throw new Error('partitions are replaced inside a transaction only')
    const stage = await this.#staging.replacement(table, ids)
    await this.#call((o) => this.client.command(`INSERT INTO ${quoteName(stage)} ${select}`, o))
  }

  async #count(table: string): Promise<number> {
    return Number((await this.#exec.rows(`SELECT count() FROM ${quoteName(table)}`))[0][0])
  }

  /** Runs a statement; an INSERT resolves to the rows it wrote, any other statement to 0 (18.16 reports no counts). */
  async run(sql: string, values?: BoundValues): Promise<number> {
    const text = this.#text(sql, values)
    const insert = INSERT.exec(text)
    if (insert) {
      return this.#write(async (staging) => {
        const target = await staging.target(unquote(insert[2]))
        const staged = target !== unquote(insert[2])
        // a table made inside the transaction is written directly, by this work alone: counted too
        const counted = staged || staging.created.has(target)
        const before = counted ? await this.#count(target) : 0
        await this.#call((o) => this.client.command(insert[1] + quoteName(target) + text.slice(insert[0].length), o))
        return counted ? (await this.#count(target)) - before : 0
      })
    }
    const created = CREATE_TABLE.exec(text)
    // a table that existed before `CREATE TABLE IF NOT EXISTS` is not the work's: never dropped with it
    if (created && this.#staging && !(IF_NOT_EXISTS.test(created[0]) && (await this.#exists(unquote(created[1]))))) this.#staging.created.add(unquote(created[1]))
    await this.#call((o) => this.client.command(text, o))
    return 0
  }

  async query<R extends Row = Row>(sql: string, values?: BoundValues, policy: ValuePolicy = 'exact'): Promise<R[]> {
    const { columns, rows } = await this.#collect(this.#text(sql, values))
    return rowObjects(columns, exactRows(columns, rows), policy) as R[]
  }

  async rows(sql: string, values?: BoundValues, policy: ValuePolicy = 'exact'): Promise<unknown[][]> {
    const { columns, rows } = await this.#collect(this.#text(sql, values))
    return policyRows(exactRows(columns, rows), policy)
  }

  /** Rows as they arrive, in chunks of at most 2,048; an interrupted stream ends without an error (see `interrupted`). */
  async *stream(sql: string, values?: BoundValues, policy: ValuePolicy = 'exact'): AsyncGenerator<Row[]> {
    for await (const piece of this.#pieces(this.#text(sql, values))) {
      const rows = rowObjects(piece.columns, exactRows(piece.columns, piece.rows), policy)
      for (let i = 0; i < rows.length; i += STREAM_ROWS) yield rows.slice(i, i + STREAM_ROWS)
    }
  }

  async *streamColumn(sql: string, values?: BoundValues): AsyncGenerator<unknown[]> {
    for await (const piece of this.#pieces(this.#text(sql, values))) {
      const column = exactRows(piece.columns, piece.rows).map((row) => row[0])
      for (let i = 0; i < column.length; i += STREAM_ROWS) yield column.slice(i, i + STREAM_ROWS)
    }
  }

  /** The client's pieces, holding the session (when there is one) until the reader stops. */
  async *#pieces(sql: string): AsyncGenerator<QueryResult> {
    const sessionId = this.#sessionId
    const release = sessionId ? await this.#acquire() : () => undefined
    const queryId = randomUUID()
    this.#running.add(queryId)
    try {
      for await (const piece of this.client.stream(sql, { queryId, signal: this.#abort.signal, sessionId })) if (piece.rows.length) yield piece
    } catch (e) {
      if (e instanceof ClickHouseError && e.kind === 'cancelled' && this.#stopped) return
      if (e instanceof EngineUnavailableError) throw engineUnavailable('the ClickHouse server cannot be reached')
      if (e instanceof ClickHouseError && databaseMissing(e, this.host.database)) throw this.host.gone()
      throw e
    } finally {
      this.#running.delete(queryId)
      release()
    }
  }

  /** The result in RowBinary, its types from DESCRIBE, read into typed column chunks (./rowBinary). */
  async scan(sql: string, values?: BoundValues): Promise<ScanChunk[]> {
    const text = this.#text(sql, values)
    const described = await this.#call((o) => this.client.query(`DESCRIBE (${text})`, o))
    const types = described.rows.map((r) => String(r[1]))
    let queryId = ''
    const bytes = await this.#call((o) => ((queryId = o.queryId!), this.client.bytes(text, 'RowBinary', o)))
    return scanChunks(bytes, types, queryId)
  }

  /**
   * `around` wraps the moving of the staged rows into place (under the host's write lock): it runs
   * `commit` once, or fails, and then the staged rows are dropped.
   */
  async transaction<T>(work: () => Promise<T>, around?: (commit: () => Promise<void>) => Promise<void>): Promise<T> {
    const staging = this.#begin()
    try {
      const out = await work()
      await this.host.exclusive(() => (around ? around(() => staging.commit()) : staging.commit()))
      return out
    } catch (e) {
      await staging.discard(true)
      throw e
    } finally {
      this.#staging = null
    }
  }

  /**
   * Marks `table` (a cohort's or tag's, named from this app's numbering) this data folder's on a
   * database other apps may share, or refuses with a 503 naming the folder that has it (./owners).
   */
  claimTable(table: string): Promise<void> {
    return claimTable(this.#exec, this.host.database, this.host.folder, this.project, table)
  }

  /** Drops `table` unless another data folder has claimed it (./owners). */
  dropOwnTable(table: string): Promise<void> {
    return dropOwnTable(this.#exec, this.host.database, this.host.folder, table)
  }

  /** Runs `work` while this connection holds the database's commit lock (./commitLock): `busy(holder)` when it is not had in `waitMs`. */
  withDatabaseLock<T>(work: () => Promise<T>, busy: (holder: LockHolder | null) => Error, waitMs = 10_000): Promise<T> {
    return withDatabaseLock(this.#exec, this.host.database, this.host.folder, work, busy, waitMs)
  }

  async snapshot<T>(work: () => Promise<T>): Promise<T> {
    const staging = this.#begin()
    try {
      return await work()
    } finally {
      this.#staging = null
      await staging.discard(true)
    }
  }

  /** The server's memory is its own: files to import are read by the embedded engine, not here. */
  boundedMemory<T>(work: () => Promise<T>): Promise<T> {
    return work()
  }

  /** Drops the temporary tables of this connection's session, if it has one. */
  async dropTemporary(): Promise<void> {
    if (!this.#sessionId) return
    for (const [name] of await this.rows('SELECT name FROM system.tables WHERE is_temporary')) await this.run(`DROP TEMPORARY TABLE IF EXISTS ${quoteName(String(name))}`)
  }

  /** A snapshot that lasts until `close`: whatever is written meanwhile is dropped then. */
  async beginSnapshot(): Promise<void> {
    this.#begin()
  }

  #begin(): Staging {
    if (this.#staging) throw new Error('a transaction is already open on this connection')
    this.#staging = new Staging(this.#exec, this.host.database, this.host.folder)
    return this.#staging
  }

  /** Adds the columns `table` lacks (18.16 has no ADD COLUMN IF NOT EXISTS), and to this transaction's staging of it. */
  async addColumns(table: string, columns: readonly { id: string; dataType: ColumnType }[]): Promise<void> {
    if (columns.length === 0) return
    await this.host.exclusive(async () => {
      const stage = this.#staging?.stages.get(table)
      for (const target of stage ? [table, stage] : [table]) {
        const have = new Set((await this.#exec.rows(`SELECT name FROM system.columns WHERE database = ${quoteString(this.host.database)} AND table = ${quoteString(target)}`)).map((r) => String(r[0])))
        const missing = [...new Map(columns.filter((c) => !have.has(c.id)).map((c) => [c.id, c])).values()]
        if (missing.length === 0) continue
        // one ALTER for all of them (a sample adds ~30 per table: one request each cost ~1.5 s under load);
        // it adds all or none, so when another app added one meanwhile (error 44) they are added one by one below
        const added = await this.#exec.command(`ALTER TABLE ${quoteName(target)} ${missing.map((c) => `ADD COLUMN ${quoteName(c.id)} ${COLUMN_TYPES[c.dataType]}`).join(', ')}`).then(
          () => true,
          (e: unknown) => {
            if (e instanceof ClickHouseError && e.code === 44) return false
            throw e
          },
        )
        if (added) continue
        for (const c of missing) {
          await this.#exec.command(`ALTER TABLE ${quoteName(target)} ADD COLUMN ${quoteName(c.id)} ${COLUMN_TYPES[c.dataType]}`).catch(async (e: unknown) => {
            // another app on the same database added it meanwhile (error 44): fine when it has this type
            if (!(e instanceof ClickHouseError && e.code === 44)) throw e
            const [found] = await this.#exec.rows(`SELECT type FROM system.columns WHERE database = ${quoteString(this.host.database)} AND table = ${quoteString(target)} AND name = ${quoteString(c.id)}`)
            if (found?.[0] !== COLUMN_TYPES[c.dataType]) throw e
          })
          have.add(c.id)
        }
      }
    })
  }

  /** Streams the rows as TabSeparated into the table (every column, in order); see the class comment for where they go. */
  async appendRows(table: string, types: readonly AppendType[], rows: readonly (readonly unknown[])[], options: { temp?: boolean; between?: () => Promise<void> } = {}): Promise<void> {
    const between = options.between
    async function* lines(): AsyncGenerator<string> {
      for (let start = 0; start < rows.length; start += PART_ROWS) {
        for (let r = start; r < Math.min(rows.length, start + PART_ROWS); r++) yield tsvLine(rows[r], types)
        if (between && start + PART_ROWS < rows.length) await between()
      }
    }
    if (rows.length === 0) return
    if (options.temp) {
      await this.#call((o) => this.client.insertLines(quoteName(table), lines(), o))
      return
    }
    await this.#write(async (staging) => {
      const target = await staging.target(table)
      await this.#call((o) => this.client.insertLines(quoteName(target), lines(), o), true)
    })
  }

  async localDateSql(): Promise<(xwhen: string) => string> {
    const zone = quoteString(this.timeZone)
    return (xwhen) => `toDate(toDateTime(intDiv(${xwhen}, 1000)), ${zone})`
  }

  async statementCount(sql: string): Promise<number> {
    return statementsOf(sql).length
  }

  /**
   * Whether the (first) statement is a query, its placeholders, and its columns with their
   * ClickHouse type names from `DESCRIBE (query)` (nothing runs). A text with placeholders is not
   * described: 18.16 cannot prepare it without values.
   */
  async describeQuery(sql: string): Promise<{ select: boolean; parameters: number; columns: { name: string; type: unknown }[] }> {
    const text = statementsOf(sql)[0] ?? ''
    const select = ['SELECT', 'WITH'].includes(firstKeyword(text))
    const parameters = placeholderCount(text)
    if (!select || parameters > 0) return { select, parameters, columns: [] }
    const described = await this.#call((o) => this.client.query(`DESCRIBE (${text})`, o))
    return { select, parameters, columns: described.rows.map((r) => ({ name: String(r[0]), type: String(r[1]) })) }
  }

  /**
   * How far the running statements are, in percent, from `system.processes` (./progress); negative
   * when nothing runs or the server cannot tell.
   */
  get progress(): number {
    return this.#progressPoll.value
  }

  /** Stops the queries now running on this connection (KILL QUERY by their ids); later queries run. */
  interrupt(): void {
    if (!this.#open) return
    this.#stopped = true
    const running = this.#abort
    this.#abort = new AbortController()
    running.abort()
  }

  get interrupted(): boolean {
    return this.#stopped
  }

  /** Whether a query of this connection is running now. */
  get busy(): boolean {
    return this.#running.size > 0
  }

  close(): void {
    if (!this.#open) return
    this.#open = false
    void this.#staging?.discard(true).catch(() => undefined)
    this.#staging = null
    this.host.closed(this)
  }
}
