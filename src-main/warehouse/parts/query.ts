import type { SqlType } from '../dialect'

/** A JOIN clause over the event rows `e`: its text, its alias, and every column a query reads through that alias. */
export interface JoinClause {
  /** e.g. `JOIN (SELECT …) cal ON cal.ds = e.ds` */
  sql: string
  alias: string
  columns: string[]
}

/** What eventRows joins. */
export interface EventRowsSpec {
  /** The relation read as `e` (default event_vd). */
  rows?: string
  /** Further joins, in order. */
  joins?: JoinClause[]
  /** The profile_vd columns read as `u.<column>`; null: the profile is not joined. */
  profile: string[] | null
  /** Conditions on `e` alone (its days): an engine may apply them before joining; the query's WHERE still holds them. */
  eventWhere?: string
}

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
  /**
   * The FROM items (without FROM) of the event rows `e`, `joins` in order, then, when `profile` is
   * given, the user's profile row `u` (profile_vd, a LEFT join on distinct_id: a user without a
   * profile reads NULL, a list []). The query reads `e.<column>`, `u.<column>` and `<alias>.<column>`
   * as if all were joined at one level (ClickHouse 18.16 takes one JOIN per SELECT: it nests them).
   */
  eventRows(spec: EventRowsSpec): string
  /**
   * An inner join's condition: `keys` (equalities of the two sides) and `range` (a comparison of
   * them). `on` follows ON; `where`, when not null, joins the statement's WHERE (ClickHouse 18.16
   * joins on equalities only, so it filters the range after the join: the same rows).
   */
  innerJoinOn(keys: string, range: string): { on: string; where: string | null }
  /** A statement that appends the numbers of a list, its one bound value, to `table`'s single column. */
  insertNumbers(table: string): string
}
