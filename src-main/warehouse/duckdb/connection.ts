import {
  BIGINT,
  BOOLEAN,
  DOUBLE,
  DuckDBDataChunk,
  DuckDBTimestampValue,
  INTEGER,
  LIST,
  listValue,
  StatementType,
  TIMESTAMP,
  VARCHAR,
  type DuckDBAppender,
  type DuckDBConnection,
  type DuckDBResultReader,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api'
import type { AppendType, BoundValue, BoundValues, ColumnType, Row, ScanChunk, WarehouseSession } from '..'
import { policyRow, policyValue, type ValuePolicy } from '../values'
import { scanChunk } from './columnar'
import { duckdbDialect } from './dialect'
import { localDateSql } from './localDate'

/** The engine's types of the product's column types. */
const SQL_TYPES: Record<ColumnType, string> = {
  string: 'VARCHAR',
  number: 'DOUBLE',
  boolean: 'BOOLEAN',
  datetime: 'TIMESTAMP',
  'array<string>': 'VARCHAR[]',
}

const CHUNK_TYPES: Record<AppendType, DuckDBType> = {
  bigint: BIGINT,
  integer: INTEGER,
  string: VARCHAR,
  number: DOUBLE,
  boolean: BOOLEAN,
  datetime: TIMESTAMP,
  'array<string>': LIST(VARCHAR),
}

/** A data chunk holds at most this many rows (DuckDB's vector size). */
const CHUNK_ROWS = 2048

function bound(value: BoundValue): DuckDBValue {
  return Array.isArray(value) ? listValue(value as DuckDBValue[]) : (value as DuckDBValue)
}

/** Bound values as DuckDB takes them: a JavaScript list becomes a LIST value. */
function bind(values: BoundValues | undefined): DuckDBValue[] | Record<string, DuckDBValue> | undefined {
  if (values === undefined) return undefined
  if (Array.isArray(values)) return values.map(bound)
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, bound(v as BoundValue)]))
}

function appendValue(value: unknown, type: AppendType): DuckDBValue {
  if (value === undefined || value === null) return null
  if (type === 'bigint') return BigInt(value as number | bigint)
  if (type === 'datetime') return new DuckDBTimestampValue(value as bigint)
  if (type === 'array<string>') return listValue(value as string[])
  return value as DuckDBValue
}

/** A double-quoted identifier (quotes inside doubled). */
function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

/**
 * One project database's connection as the domain sees it (`Warehouse`). The connection itself
 * stays inside the engine folder: `conn`, `runAndReadAll` are for engine code and tests.
 */
export class DuckDBWarehouse implements WarehouseSession {
  readonly dialect = duckdbDialect

  constructor(
    readonly conn: DuckDBConnection,
    private readonly control: { bounded<T>(work: () => Promise<T>): Promise<T>; interrupt(): void; readonly interrupted: boolean; close(): void },
  ) {}

  /** DuckDB's own reader of a statement's result (engine code and tests). */
  runAndReadAll(sql: string, values?: BoundValues): Promise<DuckDBResultReader> {
    return this.conn.runAndReadAll(sql, bind(values))
  }

  async run(sql: string, values?: BoundValues): Promise<number> {
    return Number((await this.conn.run(sql, bind(values))).rowsChanged)
  }

  async query<R extends Row = Row>(sql: string, values?: BoundValues, policy: ValuePolicy = 'exact'): Promise<R[]> {
    const rows = (await this.conn.runAndReadAll(sql, bind(values))).getRowObjectsJS()
    return (policy === 'exact' ? rows : rows.map((row) => policyRow(row, policy))) as R[]
  }

  async rows(sql: string, values?: BoundValues, policy: ValuePolicy = 'exact'): Promise<unknown[][]> {
    const rows = (await this.conn.runAndReadAll(sql, bind(values))).getRowsJS()
    return policy === 'exact' ? rows : rows.map((row) => row.map((v) => policyValue(v, policy)))
  }

  async *stream(sql: string, values?: BoundValues, policy: ValuePolicy = 'exact'): AsyncGenerator<Row[]> {
    const result = await this.conn.stream(sql, bind(values))
    for await (const rows of result.yieldRowObjectJs()) yield policy === 'exact' ? rows : rows.map((row) => policyRow(row, policy))
  }

  async *streamColumn(sql: string, values?: BoundValues): AsyncGenerator<unknown[]> {
    const result = await this.conn.stream(sql, bind(values))
    for (;;) {
      const chunk = await result.fetchChunk()
      if (!chunk || chunk.rowCount === 0) break
      yield chunk.getColumnValues(0) as unknown[]
    }
  }

  async scan(sql: string, values?: BoundValues): Promise<ScanChunk[]> {
    const prepared = await this.conn.prepare(sql)
    const chunks: ScanChunk[] = []
    try {
      const bindable = bind(values)
      if (bindable) prepared.bind(bindable)
      // materialized: the statement runs on the engine's threads at full width (a streamed result
      // is read chunk by chunk: on the bench's 10M-event funnel its scan took 0.7 s more and 0.3 s
      // more CPU); each chunk is taken out when first read, so that the reader can let other
      // requests in between (funnelPart.ts)
      const result = await prepared.run()
      for (let c = 0; c < result.chunkCount; c++) chunks.push(scanChunk(() => result.getChunk(c)))
    } finally {
      prepared.destroySync()
    }
    // an interrupted read must never pass for the whole result
    if (this.interrupted) throw new Error('INTERRUPT Error: Interrupted!')
    return chunks
  }

  async transaction<T>(work: () => Promise<T>): Promise<T> {
    await this.conn.run('BEGIN TRANSACTION')
    try {
      const out = await work()
      await this.conn.run('COMMIT')
      return out
    } catch (err) {
      try {
        await this.conn.run('ROLLBACK')
      } catch {
        // a failed COMMIT has already ended the transaction: nothing is left to roll back
      }
      throw err
    }
  }

  async snapshot<T>(work: () => Promise<T>): Promise<T> {
    await this.conn.run('BEGIN TRANSACTION')
    try {
      return await work()
    } finally {
      // nothing is kept; a connection that was interrupted is closed right after anyway
      await this.conn.run('ROLLBACK').catch(() => undefined)
    }
  }

  async beginSnapshot(): Promise<void> {
    // closing the connection ends the transaction, and whatever it wrote is gone with it
    await this.conn.run('BEGIN TRANSACTION')
  }

  async addColumns(table: string, columns: readonly { id: string; dataType: ColumnType }[]): Promise<void> {
    for (const c of columns) await this.conn.run(`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${ident(c.id)} ${SQL_TYPES[c.dataType]}`)
  }

  async appendRows(
    table: string,
    types: readonly AppendType[],
    rows: readonly (readonly unknown[])[],
    options: { temp?: boolean; between?: () => Promise<void> } = {},
  ): Promise<void> {
    const appender = options.temp ? await this.conn.createAppender(table, 'main', 'temp') : await this.conn.createAppender(table)
    await appendChunks(appender, types, rows, options.between)
  }

  localDateSql(rows: number): Promise<(xwhen: string) => string> {
    return localDateSql(this.conn, rows)
  }

  async statementCount(sql: string): Promise<number> {
    return (await this.conn.extractStatements(sql)).count
  }

  async describeQuery(sql: string): Promise<{ select: boolean; parameters: number; columns: { name: string; type: unknown }[] }> {
    const prepared = await (await this.conn.extractStatements(sql)).prepare(0)
    try {
      const columns = Array.from({ length: prepared.columnCount }, (_, i) => ({ name: prepared.columnName(i), type: prepared.columnType(i) as unknown }))
      return { select: prepared.statementType === StatementType.SELECT, parameters: prepared.parameterCount, columns }
    } finally {
      prepared.destroySync()
    }
  }

  boundedMemory<T>(work: () => Promise<T>): Promise<T> {
    return this.control.bounded(work)
  }

  async dropTemporary(): Promise<void> {
    const views = await this.conn.runAndReadAll('SELECT view_name FROM duckdb_views() WHERE temporary AND NOT internal')
    for (const [name] of views.getRowsJS()) await this.conn.run(`DROP VIEW IF EXISTS temp.${ident(String(name))}`)
    const tables = await this.conn.runAndReadAll('SELECT table_name FROM duckdb_tables() WHERE temporary')
    for (const [name] of tables.getRowsJS()) await this.conn.run(`DROP TABLE IF EXISTS temp.${ident(String(name))}`)
  }

  get progress(): number {
    return this.conn.progress.percentage
  }

  interrupt(): void {
    this.control.interrupt()
  }

  get interrupted(): boolean {
    return this.control.interrupted
  }

  close(): void {
    this.control.close()
  }
}

/** Text cells a part may hold before `between` runs (the appender works synchronously). */
const PART_CHARS = 1024 * 1024

/**
 * Appends the rows a data chunk at a time (several times faster than value by value). With
 * `between`, the rows are flushed and `between` awaited after every part, a part ending at a
 * chunk's rows or a megabyte of text: appending a 60 MB upload in one go held the server for a
 * few hundred ms.
 */
async function appendChunks(appender: DuckDBAppender, types: readonly AppendType[], rows: readonly (readonly unknown[])[], between?: () => Promise<void>): Promise<void> {
  const chunkTypes = types.map((t) => CHUNK_TYPES[t])
  let appended = false
  try {
    let start = 0
    while (start < rows.length) {
      let end = Math.min(rows.length, start + CHUNK_ROWS)
      if (between) {
        let chars = 0
        for (let r = start; r < end; r++) {
          for (const v of rows[r]) if (typeof v === 'string') chars += v.length
          if (chars >= PART_CHARS) {
            end = r + 1
            break
          }
        }
      }
      const part = rows.slice(start, end)
      const chunk = DuckDBDataChunk.create(chunkTypes, part.length)
      types.forEach((type, i) => chunk.setColumnValues(i, part.map((row) => appendValue(row[i], type))))
      appender.appendDataChunk(chunk)
      start = end
      if (between && start < rows.length) {
        appender.flushSync()
        await between()
      }
    }
    appender.flushSync()
    appended = true
  } finally {
    try {
      appender.closeSync()
    } catch (err) {
      // after a failed append the first error is the one worth reporting
      if (appended) throw err
    }
  }
}
