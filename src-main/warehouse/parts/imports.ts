/**
 * What the file-import path writes (domain/ingest: infer.ts, preview.ts, load.ts, stage.ts,
 * tabular.ts) whose spelling is the engine's own.
 */
export interface ImportsPart {
  /**
   * Select-list items that turn one row into a row per value of `values` (SQL expressions):
   * `index` (0-based position in `values`) and `value` (the value).
   */
  valuesByIndex(values: string[], index: string, value: string): string
  /** A local timestamp as text "yyyy-MM-dd HH:mm:ss.SSS". */
  formatStampMillis(local: string): string
  /**
   * A query of the columns of the main schema's tables `tables` (checked names) in one catalog
   * read: per column, its table's name then its own.
   */
  columnsOfTables(tables: string[]): string
  /** The head of an INSERT into `table` that matches the query's columns to the table's by name. */
  insertByName(table: string): string
  /** A statement that (re)creates the temporary view `name` of query `select`. */
  tempViewAs(name: string, select: string): string
}
