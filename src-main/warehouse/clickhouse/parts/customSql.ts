import { CustomSqlRefusal, type CustomSqlPart } from '../../parts/customSql'
import { inspect, writeBack } from '../sandbox'

/**
 * Custom SQL on ClickHouse: the text is checked token by token (sandbox.ts: one SELECT, the
 * project's tables only, no table functions, nothing reaching files, URLs or other databases),
 * written back without comments, `;` or `<database>.` prefixes, and described by the executor
 * (its columns and ClickHouse types, read without running it to the end). It runs as the
 * read-only user (readonly=1: no writes, no settings, no table functions; limits in the profile).
 */
export const customSql: CustomSqlPart = {
  async customSqlTables(conn) {
    const rows = await conn.rows('SELECT currentDatabase(), groupArray(name) FROM system.tables WHERE database = currentDatabase()')
    const [database, names] = rows[0] as [string, string[] | null]
    return { database, tables: (names ?? []).filter((n) => !n.endsWith('__next') && !n.endsWith('__old')) }
  },

  async checkCustomSqlText(_conn, scope, sql) {
    return writeBack(inspect(sql, scope))
  },

  async prepareCustomSql(conn, text, guard) {
    const prepared = await guard(() => conn.describeQuery(text))
    if (!prepared.select) throw new CustomSqlRefusal('only a query (one SELECT) is allowed')
    if (prepared.parameters > 0) throw new CustomSqlRefusal('parameters ({name:Type}) cannot be used: write the values into the query')
    // the type is ClickHouse's type name (a string), wrapped so that it is an object as the part declares
    return { sql: text, columns: prepared.columns.map((c) => ({ name: c.name, type: { clickhouse: String(c.type) } })) }
  },
}
