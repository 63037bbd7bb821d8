import type { BoundValue } from '../index'
import type { SqlParams } from '../dialect'

/**
 * Sets of users (cohorts, tags) and single users (people): the statements their tables and
 * exports need beyond plain SELECTs.
 */
export interface UserSetsPart {
  /** A query of one row, column `n`: how many tables of the project's database are named `table` (0 or 1). */
  tableCount(table: string): string
  /**
   * The statement that fills temp table `name` from texts, with its bound values: column `value`
   * (each text once) or, with labels, `value` and `label` side by side.
   */
  valuesTable(name: string, values: string[], labels?: string[]): { sql: string; values: BoundValue[] }
  /**
   * The statements, run in order, that replace table `table` (or create it) with the rows of
   * `select` (one on DuckDB; ClickHouse 18.16 builds beside and swaps by RENAME).
   */
  replaceTable(table: string, select: string): string[]
  /** Creates the table of a tag's versions (version, distinct_id, value) when it is absent. */
  tagVersionsTable(table: string): string
  /**
   * The statements that remove the versions from `from` on of a tag's table (`present`: those
   * the table holds), each with its bound values.
   */
  dropTagVersions(table: string, from: number, present: number[]): { sql: string; values: BoundValue[] }[]
  /** Aggregate: the `value` of the row whose `keys` (compared in order) are smallest. */
  firstBy(value: string, keys: string[]): string
  /** Whether `id` is one of the user ids `ids` (bound in `p`). */
  inIds(id: string, ids: number[], p: SqlParams): string
  /** A local timestamp as text yyyy/MM/dd HH:mm:ss (a user's behaviour sequence). */
  formatSlashed(local: string): string
  /** A datetime property's column (as stored) as text yyyy-MM-dd HH:mm:ss of its local time. */
  formatStoredStamp(column: string): string
  /** Milliseconds since the epoch of an instant, as a number. */
  epochMillis(instant: string): string
  /** The order in which the rows of a table were stored (a later row sorts after). */
  storedOrder(row: string): string
}
