import { CustomSqlRefusal, type CustomSqlPart, type EngineConnection } from '../../parts/customSql'
import { inspect, writeBack } from '../sandbox'
import { shownColumns, type ProjectColumns, type Shown } from '../shownColumns'
import { valueTypeOf } from './tables'

/**
 * Custom SQL on ClickHouse: the text is checked token by token (sandbox.ts: one SELECT, the
 * project's tables only, no table functions, nothing reaching files, URLs or other databases),
 * written back without comments, `;` or `<database>.` prefixes, and described by the executor
 * (its columns and ClickHouse types, read without running it to the end). It runs as the
 * read-only user (readonly=1: no writes, no settings, no table functions; limits in the profile).
 * Result columns that hold a stored datetime or boolean are marked (shownColumns.ts) for the
 * result text to show them as DuckDB does.
 */

/** The base columns of the two property tables; every other column there is a property. */
const BASE: Record<string, string[]> = { event_vd: ['distinct_id', 'xwho', 'xwhat', 'xwhen', 'ds'], profile_vd: ['distinct_id', 'xwho'] }

/** How a stored column is shown: by its product type as the catalog tells it (valueTypeOf), as every read of the schema does. */
function shownOf(table: string, column: string, type: string): Shown | null {
  if (table === 'event_vd' && column === 'xwhen') return 'instant'
  // members and tag values hold ids and text; the base columns are not properties
  if (/^(cohort|tag)_/.test(table) || BASE[table]?.includes(column)) return null
  const base = type.replace(/^Nullable\((.*)\)$/, '$1')
  // a DateTime column (dimension tables made before the Int64 change) is written as text by its type already
  if (base === 'Int64' && valueTypeOf(type) === 'datetime') return 'datetime'
  if (base === 'UInt8' && valueTypeOf(type) === 'boolean') return 'boolean'
  return null
}

/** The project's tables with their columns in order (MATERIALIZED and ALIAS ones are not in `*`). */
async function projectColumns(conn: EngineConnection): Promise<ProjectColumns> {
  const rows = await conn.rows(
    "SELECT table, name, type FROM system.columns WHERE database = currentDatabase() AND default_kind NOT IN ('MATERIALIZED', 'ALIAS') AND NOT startsWith(table, '_uba_')",
  )
  const out: ProjectColumns = new Map()
  for (const [table, name, type] of rows as [string, string, string][]) {
    const t = table.toLowerCase()
    const c = name.toLowerCase()
    if (!out.has(t)) out.set(t, [])
    out.get(t)!.push({ name: c, shown: shownOf(t, c, type) })
  }
  return out
}
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
    const described = prepared.columns.map((c) => ({ name: c.name, type: String(c.type) }))
    const shown = shownColumns(text, await projectColumns(conn), described)
    // the type is ClickHouse's type name (a string) and how it is shown, an object as the part declares
    return { sql: text, columns: described.map((c, i) => ({ name: c.name, type: shown[i] ? { clickhouse: c.type, shown: shown[i] } : { clickhouse: c.type } })) }
  },
}
