import { StatementType, type DuckDBConnection } from '@duckdb/node-api'
import type { DomainContext } from '../context'
import { AppError, badParam, engineUnavailable } from '../errors'
import { tableRows } from '../schema/dimensionMeta'
import type { OutColumn } from './render'
import { inspectTree, unqualify, type SqlScope } from '../../warehouse/duckdb/sandbox'

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
export async function queryScope(ctx: DomainContext, conn: DuckDBConnection, appKey: string): Promise<SqlScope> {
  const reader = await conn.runAndReadAll(
    "SELECT current_database(), list(table_name) FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main'",
  )
  const [database, names] = reader.getRowsJS()[0] as [string, string[] | null]
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
    if (/^Out of Memory Error/i.test(message)) throw new AppError(501, 50103, `the query needs more memory than the query engine has: ${message}`)
    // stopped from outside: the server is closing or the project is being deleted
    if (/^INTERRUPT Error/i.test(message)) throw engineUnavailable('the query was stopped')
    throw badParam('sql', message)
  }
}

async function treeOf(conn: DuckDBConnection, sql: string): Promise<string> {
  const reader = await conn.runAndReadAll('SELECT CAST(json_serialize_sql($1::VARCHAR) AS VARCHAR)', [sql])
  return String(reader.getRows()[0][0])
}

/** Steps 1 and 2: resolves to the text to run (the caller's, with `<appKey>.` removed). */
export async function checkText(conn: DuckDBConnection, scope: SqlScope, sql: string): Promise<string> {
  let text = sql
  for (let pass = 0; pass < 2; pass++) {
    // the tree first: it also refuses an empty text, which extractStatements cannot report
    const refs = inspectTree(await treeOf(conn, text), scope)
    const statements = await onUserSql(() => conn.extractStatements(text))
    if (statements.count !== 1) throw badParam('sql', `sql must hold exactly one statement, not ${statements.count}`)
    if (refs.length === 0) return text
    if (pass === 1) break
    text = unqualify(text, refs)
  }
  throw badParam('sql', 'the table names of the query could not be read')
}

/** Steps 1 to 4 for the caller's SQL. */
export async function checkSql(conn: DuckDBConnection, scope: SqlScope, sql: string): Promise<CheckedSql> {
  const text = await checkText(conn, scope, sql)
  const prepared = await onUserSql(async () => (await conn.extractStatements(text)).prepare(0))
  try {
    if (prepared.statementType !== StatementType.SELECT) throw badParam('sql', 'only a query (one SELECT) is allowed')
    if (prepared.parameterCount > 0) throw badParam('sql', 'parameters ($1, ?) cannot be used: write the values into the query')
    const columns: OutColumn[] = []
    for (let i = 0; i < prepared.columnCount; i++) columns.push({ name: prepared.columnName(i), type: prepared.columnType(i) })
    const reader = await conn.runAndReadAll('SELECT CAST(json_deserialize_sql(json_serialize_sql($1::VARCHAR)) AS VARCHAR)', [text])
    return { sql: String(reader.getRows()[0][0]), columns }
  } finally {
    prepared.destroySync()
  }
}
