import { CustomSqlRefusal, type CustomSqlPart, type EngineConnection } from '../../parts/customSql'
import { inspectTree, unqualify } from '../sandbox'

/**
 * Custom SQL on DuckDB: the parse tree comes from `json_serialize_sql` (parsing only) and is
 * checked by sandbox.ts; DuckDB also splits the text (exactly one statement), prepares it (a SELECT
 * without parameters) and writes the statement back as text from its tree (no comments, no
 * trailing `;`).
 */

async function treeOf(conn: EngineConnection, sql: string): Promise<string> {
  const rows = await conn.rows('SELECT CAST(json_serialize_sql($1::VARCHAR) AS VARCHAR)', [sql])
  return String(rows[0][0])
}

export const customSql: CustomSqlPart = {
  async customSqlTables(conn) {
    const rows = await conn.rows(
      "SELECT current_database(), list(table_name) FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main'",
    )
    const [database, names] = rows[0] as [string, string[] | null]
    return { database, tables: names ?? [] }
  },

  async checkCustomSqlText(conn, scope, sql, guard) {
    let text = sql
    for (let pass = 0; pass < 2; pass++) {
      // the tree first: it also refuses an empty text, which extractStatements cannot report
      const refs = inspectTree(await treeOf(conn, text), scope)
      const statements = await guard(() => conn.statementCount(text))
      if (statements !== 1) throw new CustomSqlRefusal(`sql must hold exactly one statement, not ${statements}`)
      if (refs.length === 0) return text
      if (pass === 1) break
      text = unqualify(text, refs)
    }
    throw new CustomSqlRefusal('the table names of the query could not be read')
  },

  async prepareCustomSql(conn, text, guard) {
    const prepared = await guard(() => conn.describeQuery(text))
    if (!prepared.select) throw new CustomSqlRefusal('only a query (one SELECT) is allowed')
    if (prepared.parameters > 0) throw new CustomSqlRefusal('parameters ($1, ?) cannot be used: write the values into the query')
    const columns = prepared.columns.map((c) => ({ name: c.name, type: c.type as object }))
    const rows = await conn.rows('SELECT CAST(json_deserialize_sql(json_serialize_sql($1::VARCHAR)) AS VARCHAR)', [text])
    return { sql: String(rows[0][0]), columns }
  },
}
