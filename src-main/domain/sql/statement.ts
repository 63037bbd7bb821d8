import type { Warehouse } from '../../warehouse'
import { engineFailure } from '../../warehouse/errors'
import type { DomainContext } from '../context'
import { AppError, badParam, engineUnavailable } from '../errors'
import { tableRows } from '../schema/dimensionMeta'
import type { OutColumn } from './render'
import { inspectTree, unqualify, type SqlScope } from './sandbox'

/**
 * From the caller's text to a checked query, in this order, so that nothing is bound (which could
 * read a file through a replacement scan or a table function) before the parse tree has passed:
 * 1. its parse tree is checked (sandbox.ts); DuckDB also splits the text: exactly one statement;
 * 2. `<appKey>.<table>` is rewritten to `<table>`, and the new text checked again;
 * 3. the statement is prepared (bound): it must be a SELECT without parameters; its columns;
 * 4. DuckDB writes the statement back as text from its tree (no comments, no trailing `;`),
 *    which the caller wraps (render.ts) and checks once more as the text that really runs.
 */

export interface CheckedSql {
  /** The statement as DuckDB writes it back from its parse tree. */
  sql: string
  columns: OutColumn[]
}

/** What custom SQL may read: the project's event and profile tables, dimension tables, cohort and tag tables. */
export async function queryScope(ctx: DomainContext, conn: Warehouse, appKey: string): Promise<SqlScope> {
  const rows = await conn.rows(
    "SELECT current_database(), list(table_name) FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main'",
  )
  const [database, names] = rows[0] as [string, string[] | null]
  const dimensions = new Set(tableRows(ctx.meta, appKey).map((t) => t.name.toLowerCase()))
  const tables = new Set<string>()
  for (const name of names ?? []) {
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

async function treeOf(conn: Warehouse, sql: string): Promise<string> {
  const rows = await conn.rows('SELECT CAST(json_serialize_sql($1::VARCHAR) AS VARCHAR)', [sql])
  return String(rows[0][0])
}

/** Steps 1 and 2: resolves to the text to run (the caller's, with `<appKey>.` removed). */
export async function checkText(conn: Warehouse, scope: SqlScope, sql: string): Promise<string> {
  let text = sql
  for (let pass = 0; pass < 2; pass++) {
    // the tree first: it also refuses an empty text, which extractStatements cannot report
    const refs = inspectTree(await treeOf(conn, text), scope)
    const statements = await onUserSql(() => conn.statementCount(text))
    if (statements !== 1) throw badParam('sql', `sql must hold exactly one statement, not ${statements}`)
    if (refs.length === 0) return text
    if (pass === 1) break
    text = unqualify(text, refs)
  }
  throw badParam('sql', 'the table names of the query could not be read')
}

/** Steps 1 to 4 for the caller's SQL. */
export async function checkSql(conn: Warehouse, scope: SqlScope, sql: string): Promise<CheckedSql> {
  const text = await checkText(conn, scope, sql)
  const prepared = await onUserSql(() => conn.describeQuery(text))
  if (!prepared.select) throw badParam('sql', 'only a query (one SELECT) is allowed')
  if (prepared.parameters > 0) throw badParam('sql', 'parameters ($1, ?) cannot be used: write the values into the query')
  const columns: OutColumn[] = prepared.columns.map((c) => ({ name: c.name, type: c.type as OutColumn['type'] }))
  const rows = await conn.rows('SELECT CAST(json_deserialize_sql(json_serialize_sql($1::VARCHAR)) AS VARCHAR)', [text])
  return { sql: String(rows[0][0]), columns }
}
