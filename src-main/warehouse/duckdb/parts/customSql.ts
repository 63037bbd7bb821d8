import { StatementType, type DuckDBConnection } from '@duckdb/node-api'
import { CustomSqlRefusal, type CustomSqlPart, type EngineConnection } from '../../parts/customSql'
import { inspectTree, unqualify } from '../sandbox'

/**
 * Custom SQL on DuckDB: the parse tree comes from `json_serialize_sql` (parsing only) and is
 * checked by sandbox.ts; DuckDB also splits the text (exactly one statement), prepares it (a SELECT
 * without parameters) and writes the statement back as text from its tree (no comments, no
 * trailing `;`).
 */

const duck = (conn: EngineConnection) => conn as DuckDBConnection

async function treeOf(conn: DuckDBConnection, sql: string): Promise<string> {
  const reader = await conn.runAndReadAll('SELECT CAST(json_serialize_sql($1::VARCHAR) AS VARCHAR)', [sql])
  return String(reader.getRows()[0][0])
}

export const customSql: CustomSqlPart = {
  async customSqlTables(conn) {
    const reader = await duck(conn).runAndReadAll(
      "SELECT current_database(), list(table_name) FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main'",
    )
    const [database, names] = reader.getRowsJS()[0] as [string, string[] | null]
    return { database, tables: names ?? [] }
  },

  async checkCustomSqlText(conn, scope, sql, guard) {
    const c = duck(conn)
    let text = sql
    for (let pass = 0; pass < 2; pass++) {
      // the tree first: it also refuses an empty text, which extractStatements cannot report
      const refs = inspectTree(await treeOf(c, text), scope)
      const statements = await guard(() => c.extractStatements(text))
      if (statements.count !== 1) throw new CustomSqlRefusal(`sql must hold exactly one statement, not ${statements.count}`)
      if (refs.length === 0) return text
      if (pass === 1) break
      text = unqualify(text, refs)
    }
    throw new CustomSqlRefusal('the table names of the query could not be read')
  },

  async prepareCustomSql(conn, text, guard) {
    const c = duck(conn)
    const prepared = await guard(async () => (await c.extractStatements(text)).prepare(0))
    try {
      if (prepared.statementType !== StatementType.SELECT) throw new CustomSqlRefusal('only a query (one SELECT) is allowed')
      if (prepared.parameterCount > 0) throw new CustomSqlRefusal('parameters ($1, ?) cannot be used: write the values into the query')
      const columns = []
      for (let i = 0; i < prepared.columnCount; i++) columns.push({ name: prepared.columnName(i), type: prepared.columnType(i) })
      const reader = await c.runAndReadAll('SELECT CAST(json_deserialize_sql(json_serialize_sql($1::VARCHAR)) AS VARCHAR)', [text])
      return { sql: String(reader.getRows()[0][0]), columns }
    } finally {
      prepared.destroySync()
    }
  },
}
