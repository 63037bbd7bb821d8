import type { SqlType } from '../dialect'

/** Clauses and statements whose spelling differs between engines. */
export interface QueryPart {
  /** Aggregate: any one value of the group. */
  anyValue(expr: string): string
  /** GROUP BY every selected column that is not an aggregate: `columns` (names or aliases of the SELECT list). */
  groupByAll(columns: string[]): string
  /**
   * Every column of row `row` but `except`, in a SELECT list, each named as its column; `columns`
   * are all the row's columns (an engine without `* EXCLUDE`, ClickHouse 18.16, names them).
   */
  allColumnsBut(row: string, except: string[], columns: string[]): string
  /** A statement that (re)creates temp table `name` from a SELECT. */
  tempTableAs(name: string, select: string): string
  /** A statement that (re)creates an empty temp table `name` of typed columns. */
  tempTable(name: string, columns: [string, SqlType][]): string
  /** A statement that appends the numbers of a list, its one bound value, to `table`'s single column. */
  insertNumbers(table: string): string
}
