import type { ColumnRef, SqlParams, SqlType } from '../dialect'

/** Identifiers, types, casts and bound values. */
export interface NamesPart {
  /** A fresh set of bound values for one statement. */
  params(): SqlParams
  /** A checked id as an identifier (ids never contain quotes: this only quotes). */
  ident(id: string): string
  /** The engine's name of a type (DDL and casts). */
  typeName(type: SqlType): string
  /** `expr` as a value of `type`. */
  cast(expr: string, type: SqlType): string
  /** NULL of a type. */
  nullOf(type: SqlType): string
  /**
   * Select-list items that make `alias.<column>` readable for each column, from outside the
   * query too: `{distinct_id, xwho} AS e` of a row (a struct on DuckDB; columns named
   * `e.distinct_id`, `e.xwho` on ClickHouse, which has no named tuples on 18.16).
   */
  record(columns: string[], alias: string): string
  /** A column of a row, or NULL of its type when it has no column. */
  columnOf(ref: ColumnRef): string
}
