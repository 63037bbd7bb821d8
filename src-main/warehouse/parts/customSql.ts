import type { Warehouse } from '../index'

/**
 * Custom SQL (spec 4.7), the engine's side: the checks that read the engine's own parse tree and
 * prepared statement, so that nothing is bound (which could read a file) before the tree has
 * passed. The domain (domain/sql/statement.ts) decides what a project may read and what a refusal
 * answers; the engine says how its SQL is written and what it is.
 */

/** The project's database the checks read (parse, prepare) on. */
export type EngineConnection = Warehouse

/** What a query of a project may name. */
export interface SqlScope {
  appKey: string
  /** The engine's catalog name of the project's database. */
  database: string
  /** Queryable tables, lower case. */
  tables: Set<string>
}

/** A result column of a checked query: its name, and the engine's type, which only the engine's rendering reads. */
export interface CustomSqlColumn {
  name: string
  type: object
}

export interface CheckedCustomSql {
  /** The statement as the engine writes it back from its parse tree. */
  sql: string
  columns: CustomSqlColumn[]
}

/** A query the checks turn down; the message is for the caller (the domain answers a 400 naming sql). */
export class CustomSqlRefusal extends Error {}

/** Around each engine call on the caller's text: the domain turns the engine's failures into its errors. */
export type EngineGuard = <T>(work: () => Promise<T>) => Promise<T>

export interface CustomSqlPart {
  /** The catalog name of the project's database and its tables in the main schema. */
  customSqlTables(conn: EngineConnection): Promise<{ database: string; tables: string[] }>
  /**
   * Checks the parse tree and that the text is one statement, and resolves to the text to run
   * (the caller's, with `<appKey>.` before table names removed).
   */
  checkCustomSqlText(conn: EngineConnection, scope: SqlScope, sql: string, guard: EngineGuard): Promise<string>
  /** Prepares checked text: one SELECT without parameters; its columns; the text written back. */
  prepareCustomSql(conn: EngineConnection, text: string, guard: EngineGuard): Promise<CheckedCustomSql>
}
