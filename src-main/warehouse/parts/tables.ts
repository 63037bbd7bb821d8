import type { BoundValue } from '../index'
import type { ValueType } from '../dialect'

/** A column the domain defines: a checked id and a property type. */
export interface TableColumn {
  id: string
  type: ValueType
  notNull?: boolean
}

/** A statement with its bound values. */
export interface BoundStatement {
  sql: string
  values: BoundValue[]
}

/** An upsert by key columns, through a staging table the caller fills (Warehouse.appendRows with `temp`). */
export interface Upsert {
  /** Creates the staging table: per column, its value then whether the row gave it (boolean). */
  stage: string
  /** The staging table's name as appendRows takes it. */
  staging: string
  /**
   * Run in order once the rows are staged: rows whose key exists take the values given (a column
   * a row left out keeps its value), the others are inserted, and the staging table is dropped.
   */
  apply: string[]
}

/**
 * Tables the domain defines and fills itself (dimension tables, property columns): their DDL,
 * the engine's catalog and column types, row counts and upserts. `name` is a checked table name
 * the dialect quotes; `table` (property columns) is event_vd or profile_vd, written as it is.
 */
export interface TablesPart {
  /** A query: one row per table or view of the project's main schema named `name`; column 1 the table's comment (NULL for a view). */
  tableOrView(name: string): BoundStatement
  /** A query of the columns of table `name` in order: name, engine type (see valueTypeOf); no rows when it does not exist. */
  tableColumns(name: string): BoundStatement
  /** The property type an engine column type stands for. */
  valueTypeOf(engineType: string): ValueType
  /** A query of one row, one column: the table's row count. */
  rowCount(name: string): string
  createTable(name: string, columns: TableColumn[]): string
  /** Sets a table's comment (a text of the product, no quotes). */
  commentOn(name: string, comment: string): string
  addColumn(name: string, column: TableColumn): string
  dropTable(name: string, ifExists?: boolean): string
  /** Removes every row of a table. */
  clearTable(name: string): string
  /**
   * `columns` are the columns the rows give; `table`, every column of the table (an engine that
   * rebuilds rows whole, ClickHouse 18.16 without UPDATE ... FROM, names the others from it).
   */
  upsert(name: string, columns: TableColumn[], keys: string[], table?: TableColumn[]): Upsert
  /** Adds a property column to event_vd / profile_vd unless it exists. */
  addPropertyColumn(table: string, column: TableColumn): string
  /** Changes a property column's type (it holds nulls only). */
  retypePropertyColumn(table: string, column: TableColumn): string
}
