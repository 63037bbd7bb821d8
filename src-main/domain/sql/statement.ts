import { engineFailure } from '../../warehouse/errors'
import type { Dialect } from '../../warehouse/dialect'
import { CustomSqlRefusal, type EngineConnection, type SqlScope } from '../../warehouse/parts/customSql'
import { dialectOf, type DomainContext } from '../context'
import { AppError, badParam, engineUnavailable } from '../errors'
import { tableRows } from '../schema/dimensionMeta'
import type { OutColumn } from './render'

/**
 * From the caller's text to a checked query, in this order, so that nothing is bound (which could
 * read a file through a replacement scan or a table function) before the parse tree has passed:
 * 1. its parse tree is checked (the dialect's sandbox); the engine also splits the text: exactly one statement;
 * 2. `<appKey>.<table>` is rewritten to `<table>`, and the new text checked again;
 * 3. the statement is prepared (bound): it must be a SELECT without parameters; its columns;
 * 4. the engine writes the statement back as text from its tree (no comments, no trailing `;`),
 *    which the caller wraps (render.ts) and checks once more as the text that really runs.
 * Steps 1 to 4 are the dialect's (warehouse/parts/customSql.ts); what may be read is decided here.
 */

export interface CheckedSql {
  /** The statement as the engine writes it back from its parse tree. */
  sql: string
  columns: OutColumn[]
}

/** What custom SQL may read: the project's event and profile tables, dimension tables, cohort and tag tables. */
export async function queryScope(ctx: DomainContext, conn: EngineConnection, appKey: string): Promise<SqlScope> {
  const { database, tables: names } = await dialectOf(ctx, { appKey }).customSqlTables(conn)
  const dimensions = new Set(tableRows(ctx.meta, appKey).map((t) => t.name.toLowerCase()))
  const tables = new Set<string>()
  for (const name of names) {
    const table = name.toLowerCase()
    if (table === 'event_vd' || table === 'profile_vd' || dimensions.has(table) || /^(cohort|tag)_/.test(table)) tables.add(table)
  }
  return { appKey, database, tables }
}

/**
 * A DuckDB failure on the caller's SQL is the caller's to fix: a 400 naming sql with DuckDB's
 * words (it is their query; the sandbox keeps other tables' names out of it). Running out of
 * memory is 501/50103 (query-engine resources).
 */
export async function onUserSql<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (err) {
    if (err instanceof AppError) throw err
    const message = err instanceof Error ? err.message : String(err)
    const failure = engineFailure(err)
    if (failure === 'out-of-memory') throw new AppError(501, 50103, `the query needs more memory than the query engine has: ${message}`)
    // stopped from outside: the server is closing or the project is being deleted
    if (failure === 'interrupted') throw engineUnavailable('the query was stopped')
    throw badParam('sql', message)
  }
}

/** A refusal of the dialect's checks is a 400 naming sql, with its words. */
async function refusals<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (err) {
    if (err instanceof CustomSqlRefusal) throw badParam('sql', err.message)
    throw err
  }
}

/** Steps 1 and 2: resolves to the text to run (the caller's, with `<appKey>.` removed). */
export async function checkText(dialect: Dialect, conn: EngineConnection, scope: SqlScope, sql: string): Promise<string> {
  return refusals(() => dialect.checkCustomSqlText(conn, scope, sql, onUserSql))
}

/** Steps 1 to 4 for the caller's SQL. */
export async function checkSql(dialect: Dialect, conn: EngineConnection, scope: SqlScope, sql: string): Promise<CheckedSql> {
  const text = await checkText(dialect, conn, scope, sql)
  const checked = await refusals(() => dialect.prepareCustomSql(conn, text, onUserSql))
  return { sql: checked.sql, columns: checked.columns }
}
