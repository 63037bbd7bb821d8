import type { Dialect } from './dialect'
import type { ValuePolicy } from './values'

/**
 * The engine seam. The domain runs its SQL through these two interfaces only; DuckDB
 * (`./duckdb`) is the first implementation. Values go in bound (`$1` or `$name`) and come out as
 * plain JavaScript rows, converted by one of the policies of `./values`.
 */

/** A bound value: text, number, flag, null, or a list of them (bound as the engine's list). */
export type BoundValue = string | number | bigint | boolean | null | readonly (string | number | null)[]

/** Values for `$1, $2, …` (an array) or `$name` (an object). */
export type BoundValues = readonly BoundValue[] | Readonly<Record<string, BoundValue>>

export type Row = Record<string, unknown>

/** Types of the columns the domain writes: the product's own data types. */
export type ColumnType = 'string' | 'number' | 'boolean' | 'datetime' | 'array<string>'

/** Types of columns bulk-written by `appendRows`: the product's, and whole numbers (ids, row numbers). */
export type AppendType = ColumnType | 'bigint' | 'integer'

/**
 * A table's rows as numeric columns, chunk by chunk, for analyses that finish in JavaScript
 * (funnel paths). The columns read this way must be NOT NULL.
 */
export interface ScanChunk {
  readonly rowCount: number
  /** An INTEGER column, as a typed array (the engine's own buffer where it can). */
  ints(column: number): Int32Array
  /** A DOUBLE column, as a typed array. */
  doubles(column: number): Float64Array
  /** One value: a list as an array of its elements, any other value as the engine holds it. */
  value(column: number, row: number): unknown
}

/**
 * One project's database on one connection, set to the project's time zone: what every domain
 * function that reads or writes the warehouse receives.
 */
export interface Warehouse {
  /**
   * The SQL text of this warehouse's engine: code that holds only a connection (the loads) builds
   * its statements with it; the dialect of a project is the one of its warehouse.
   */
  readonly dialect: Dialect
  /** Runs a statement; resolves to the number of rows it changed (0 for a query or a definition). */
  run(sql: string, values?: BoundValues): Promise<number>
  /** The rows of a query as objects by column name. */
  query<R extends Row = Row>(sql: string, values?: BoundValues, policy?: ValuePolicy): Promise<R[]>
  /** The rows of a query as arrays, columns in order. */
  rows(sql: string, values?: BoundValues, policy?: ValuePolicy): Promise<unknown[][]>
  /** A query's rows as they are computed, a chunk (about 2,048 rows) at a time. */
  stream(sql: string, values?: BoundValues, policy?: ValuePolicy): AsyncIterable<Row[]>
  /** A query's first column as it is computed, a chunk at a time (one rendered text per row). */
  streamColumn(sql: string, values?: BoundValues): AsyncIterable<unknown[]>
  /** A whole result as numeric column chunks, read more than once by the caller. */
  scan(sql: string, values?: BoundValues): Promise<ScanChunk[]>
  /**
   * Runs `work` in a transaction: committed when it succeeds, rolled back when it fails.
   * ClickHouse has no transactions (`clickhouse/staging.ts`, docs/clickhouse.md): rows written to an
   * existing table (appendRows, INSERT) are staged and moved into place when `work` succeeds, all at
   * once as queries see it, and dropped when it fails, with the tables it created; reads inside do
   * not see the staged rows; added columns stay; UPDATE/DELETE/TRUNCATE/DROP are not undone.
   */
  transaction<T>(work: () => Promise<T>): Promise<T>
  /**
   * Runs `work` on one snapshot of the database; whatever it wrote is rolled back. On ClickHouse
   * writes are staged and dropped, and each query (not the whole work) reads one consistent state.
   */
  snapshot<T>(work: () => Promise<T>): Promise<T>
  /**
   * On a database other UBA Desks may share (ClickHouse): marks a table of this app's own naming
   * (a cohort's, a tag's) this data folder's, or refuses (503) naming the folder that has it.
   * Absent: the database is this folder's alone.
   */
  claimTable?(table: string): Promise<void>
  /**
   * On a database other UBA Desks may share (ClickHouse): this data folder's id (8 hex digits,
   * setting `platform.folderId`), which names what is this folder's alone there (its sealed
   * outcomes: domain/outcomes.ts). Absent: the database is this folder's alone.
   */
  readonly folder?: string
  /** As `claimTable`: drops the table unless another data folder has it (then it stays). Absent: DROP TABLE IF EXISTS. */
  dropOwnTable?(table: string): Promise<void>
  /** Adds property columns a table does not have yet (the schema grows as data is reported). */
  addColumns(table: string, columns: readonly { id: string; dataType: ColumnType }[]): Promise<void>
  /**
   * Bulk-writes rows into an existing table (a temporary one with `temp`), `types` giving each
   * column's type in order; `datetime` values are microseconds since the epoch (bigint), `bigint`
   * values numbers or bigints.
   * `between` is awaited after each written part, to let other work run.
   */
  appendRows(table: string, types: readonly AppendType[], rows: readonly (readonly unknown[])[], options?: { temp?: boolean; between?: () => Promise<void> }): Promise<void>
  /**
   * The SQL of the local DATE of a TIMESTAMPTZ expression (a column name: it is repeated) in the
   * connection's time zone, for a load of `rows` records (the engine's zone data, asked once).
   */
  localDateSql(rows: number): Promise<(xwhen: string) => string>
  /** How many statements a text holds (parsed, nothing bound or run). */
  statementCount(sql: string): Promise<number>
  /**
   * A one-statement text prepared (bound, not run): whether it is a query (SELECT), how many
   * parameters it has, and its result columns with their engine types (opaque here).
   */
  describeQuery(sql: string): Promise<{ select: boolean; parameters: number; columns: { name: string; type: unknown }[] }>
  /**
   * Runs `work` (a file import) with the engine's memory held to the import bound: beyond it, the
   * engine spills to the project's spill folder (`spillDirOf`) instead of growing. The bound holds
   * for the whole database while any import of it runs; the usual limit is back after the last.
   */
  boundedMemory<T>(work: () => Promise<T>): Promise<T>
  /**
   * Drops this connection's temporary tables and views: the memory, or the spill files, they hold
   * are given back now rather than when the connection closes.
   */
  dropTemporary(): Promise<void>
  /**
   * Only on a warehouse that loads for a project stored on another engine (a ClickHouse project's
   * local DuckDB, warehouse/loading): copies in the stored rows a load reads, before it writes:
   * the users named by `users` (a relation with an `xwho` column) with all their ids, aliases and
   * profile, the user of the highest distinct_id, and with `days` (a relation with a `ds` column)
   * those users' events of those days (dedupe). Elsewhere the rows are there already.
   */
  storedRowsFor?(users: string, days: string | null): Promise<void>
  /** Only on such a loading warehouse: the warehouse the project's data is stored on. */
  readonly stored?: Warehouse
  /** How far the running statement is, in percent; negative when the engine cannot tell. */
  readonly progress: number
  /** Stops the query now running on this connection. */
  interrupt(): void
  /**
   * Whether an interrupt reached this connection. An interrupted streamed result ends early
   * without an error, so a reader that reaches the end checks this before taking it as complete.
   */
  readonly interrupted: boolean
}

/** A connection that outlives one call (streamed reads): its holder closes it (safe twice). */
export interface WarehouseSession extends Warehouse {
  /**
   * From here on the session reads one snapshot of the database, until it closes: for reads that
   * outlive a call (a streamed export of a computed set); nothing written after is kept.
   */
  beginSnapshot(): Promise<void>
  close(): void
}

/** The warehouse of the data folder: one database per project. */
export interface Warehouses<W extends Warehouse = Warehouse> {
  /** Whether the project's database exists. */
  exists(appKey: string): boolean
  /** The only folder the engine may open files in for this project: files to import are placed here. */
  stagingDirOf(appKey: string): string
  /** The folder the engine spills to when a statement needs more memory than it may use. */
  spillDirOf(appKey: string): string
  /** At the project's creation only: creates its database and base tables; safe to call again. */
  createProject(appKey: string, timeZone: string): Promise<void>
  /**
   * A project made before (start-up, a stream starting): readies its database for writes. The
   * embedded engine creates what is absent (the database file is the app's own); ClickHouse never
   * creates the database (one dropped on the server stays missing, and the project says so) and
   * drops what a crashed write left there.
   */
  openProject(appKey: string, timeZone: string): Promise<void>
  /** Runs `work` on a fresh connection set to `timeZone`, closed afterwards whatever happens. */
  withConnection<T>(appKey: string, timeZone: string, work: (warehouse: W) => Promise<T>): Promise<T>
  /** A connection for streamed reads, closed by the caller. */
  session(appKey: string, timeZone: string): Promise<WarehouseSession>
  /** Stops every query now running on the project's database; resolves to how many. */
  interrupt(appKey: string): number
  /** Interrupts running queries and closes every open database. */
  close(): Promise<void>
}
