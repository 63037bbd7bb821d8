import type { AppendType, BoundValues, ColumnType, Row, ScanChunk, Warehouse } from '..'
import type { ClickHouseWarehouse } from '../clickhouse/warehouse'
import type { ValuePolicy } from '../values'
import { anotherAppLoaded, copyStoredRows, highestStoredId, prepareLocal } from './fetch'
import { ship } from './ship'
import { testPause } from '../../testPause'
import { AppError } from '../../errors'
import { lockedBy } from '../clickhouse/commitLock'

/**
 * The warehouse a load of a ClickHouse project runs on ("load locally, ship the result";
 * docs/clickhouse.md, "Loading"). DuckDB stays the file reader and the checker: the import, the
 * collector and the sample run their usual code on `local`, a throwaway DuckDB database of the
 * load, which first receives from ClickHouse the stored rows the load reads (`storedRowsFor`).
 * Its transaction writes what the load changed to ClickHouse in one transaction of `remote`
 * (staged, moved into place at once) before the local commit: queries on ClickHouse see all of
 * the load or none of it.
 */
export class LoadingWarehouse implements Warehouse {
  readonly dialect
  #shipping = false
  #onInterrupt: (() => void) | null = null

  private constructor(
    private readonly local: Warehouse,
    private readonly remote: ClickHouseWarehouse,
    /** The highest distinct_id stored when the load began (or last committed): its new users are numbered after it. */
    private highest: bigint,
  ) {
    this.dialect = local.dialect
  }

  /** The loading warehouse of `local` (a fresh DuckDB database) for the ClickHouse project of `remote`. */
  static async open(local: Warehouse, remote: ClickHouseWarehouse): Promise<LoadingWarehouse> {
    await prepareLocal(local, remote)
    return new LoadingWarehouse(local, remote, await highestStoredId(remote))
  }

  /**
   * Optimistic guard against another app loading into the same database (its own write lock does
   * not stop this one): just before the staged rows are moved into place, the highest stored
   * distinct_id must still be the one the load numbered its new users after.
   */
  async #nobodyElseLoaded(): Promise<void> {
    if ((await highestStoredId(this.remote)) !== this.highest) throw anotherAppLoaded(this.remote.database)
  }

  get stored(): Warehouse {
    return this.remote
  }

  storedRowsFor(users: string, days: string | null): Promise<void> {
    return copyStoredRows(this.local, this.remote, users, days, this.highest, this.remote.database)
  }

  /** The load's work on the local database, then its result shipped into ClickHouse, all or nothing. */
  transaction<T>(work: () => Promise<T>): Promise<T> {
    return this.remote.transaction(() =>
      this.local.transaction(async () => {
        const out = await work()
        this.#shipping = true
        try {
          await ship(this.local, this.remote)
        } finally {
          this.#shipping = false
        }
        // (tests) paused with every row staged in ClickHouse, until killed or cancelled
        await Promise.race([testPause('shipped', 'load of a ClickHouse project'), new Promise<void>((resolve) => (this.#onInterrupt = resolve))])
        return out
      }),
      // one commit at a time on this database, whichever app makes it; and only if nobody else loaded since this load began
      (commit) => this.remote.withDatabaseLock(async () => {
        // a cancel that came once every row was shipped (no query left to stop) is honoured here: nothing is moved into place
        if (this.interrupted) throw new AppError(400, 400, 'cancelled')
        await this.#nobodyElseLoaded()
        await commit()
        // a later transaction of this load numbers after the users this one stored (read locally: the rows are committed, nothing may fail now)
        const [[mine]] = await this.local.rows('SELECT coalesce(max(distinct_id), 0) FROM user_ids').catch(() => [[this.highest]])
        if (BigInt(mine as bigint) > this.highest) this.highest = BigInt(mine as bigint)
      }, (holder) => new AppError(503, 503, lockedBy(holder, this.remote.database))),
    )
  }

  snapshot<T>(work: () => Promise<T>): Promise<T> {
    return this.local.snapshot(work)
  }

  run(sql: string, values?: BoundValues): Promise<number> {
    return this.local.run(sql, values)
  }

  query<R extends Row = Row>(sql: string, values?: BoundValues, policy?: ValuePolicy): Promise<R[]> {
    return this.local.query<R>(sql, values, policy)
  }

  rows(sql: string, values?: BoundValues, policy?: ValuePolicy): Promise<unknown[][]> {
    return this.local.rows(sql, values, policy)
  }

  stream(sql: string, values?: BoundValues, policy?: ValuePolicy): AsyncIterable<Row[]> {
    return this.local.stream(sql, values, policy)
  }

  streamColumn(sql: string, values?: BoundValues): AsyncIterable<unknown[]> {
    return this.local.streamColumn(sql, values)
  }

  scan(sql: string, values?: BoundValues): Promise<ScanChunk[]> {
    return this.local.scan(sql, values)
  }

  addColumns(table: string, columns: readonly { id: string; dataType: ColumnType }[]): Promise<void> {
    return this.local.addColumns(table, columns)
  }

  appendRows(table: string, types: readonly AppendType[], rows: readonly (readonly unknown[])[], options?: { temp?: boolean; between?: () => Promise<void> }): Promise<void> {
    return this.local.appendRows(table, types, rows, options)
  }

  localDateSql(rows: number): Promise<(xwhen: string) => string> {
    return this.local.localDateSql(rows)
  }

  statementCount(sql: string): Promise<number> {
    return this.local.statementCount(sql)
  }

  describeQuery(sql: string) {
    return this.local.describeQuery(sql)
  }

  boundedMemory<T>(work: () => Promise<T>): Promise<T> {
    return this.local.boundedMemory(work)
  }

  dropTemporary(): Promise<void> {
    return this.local.dropTemporary()
  }

  get progress(): number {
    return this.#shipping ? this.remote.progress : this.local.progress
  }

  interrupt(): void {
    this.local.interrupt()
    this.remote.interrupt()
    this.#onInterrupt?.()
  }

  get interrupted(): boolean {
    return this.local.interrupted || this.remote.interrupted
  }
}
