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
  /** A one-row record of columns, each field named as the column: `{distinct_id, xwho}` of a row. */
  record(columns: string[]): string
  /** A column of a row, or NULL of its type when it has no column. */
  columnOf(ref: ColumnRef): string
}
