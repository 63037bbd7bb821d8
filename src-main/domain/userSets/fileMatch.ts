import type { Warehouse } from '../../warehouse'
import type { Dialect } from '../../warehouse/dialect'
import type { Columns } from '../expr/filterSql'
import { USERS } from '../ingest/identity'

/**
 * Matching uploaded values against users (file cohorts and file tags): the values go to a temp
 * table of the connection in one bound list, never into SQL text, and are compared exactly.
 */

/** Whether the project has users yet: `user_ids` appears with the first load. */
export async function hasUsers(conn: Warehouse, dialect: Dialect): Promise<boolean> {
  const rows = await conn.rows(dialect.tableCount('user_ids'))
  return Number(rows[0][0]) > 0
}

/** An empty members select of the right shape, for a project without users. */
export function noMembers(dialect: Dialect): string {
  return `SELECT ${dialect.cast('NULL', 'bigint')} AS distinct_id, ${dialect.cast('NULL', 'string')} AS xwho WHERE ${dialect.truth(false)}`
}

/** Loads `values` into the temp table `name` (column `value`, and `label` when labels are given). */
export async function loadValues(conn: Warehouse, dialect: Dialect, name: string, values: string[], labels?: string[]): Promise<void> {
  if (!/^[a-z_]+$/.test(name)) throw new Error(`not a temp table name: ${name}`)
  const load = dialect.valuesTable(name, values, labels)
  await conn.run(load.sql, load.values)
}

/**
 * The SQL of a string user property over `user_ids e` / `profile_vd u`, and whether the profile is
 * needed; null when the property has no column yet (no user can match).
 */
export function userPropertySql(dialect: Dialect, propertyId: string, columns: Columns): { sql: string; profile: boolean } | null {
  if (propertyId === 'xwho') return { sql: 'e.xwho', profile: false }
  if (!columns.user.has(propertyId)) return null
  return { sql: `u.${dialect.ident(propertyId)}`, profile: true }
}

/**
 * Users whose property equals one of the values of temp table `values`: (distinct_id, xwho), each
 * user once. A user merged by `$alias` matches by any of its ids and is named by its login id.
 */
export function fileMembersSql(property: { sql: string; profile: boolean }): string {
  const matches = property.sql === 'e.xwho'
    ? 'e.distinct_id IN (SELECT distinct_id FROM user_ids WHERE xwho IN (SELECT value FROM file_values))'
    : `${property.sql} IN (SELECT value FROM file_values)`
  return `SELECT e.distinct_id, e.xwho FROM ${USERS} e
    ${property.profile ? 'LEFT JOIN profile_vd u ON u.distinct_id = e.distinct_id' : ''}
    WHERE ${matches}`
}

/** How many distinct values of temp table `file_values` matched at least one user. */
export async function matchedValues(conn: Warehouse, property: { sql: string; profile: boolean } | null, users: boolean): Promise<number> {
  if (!property || !users) return 0
  const rows = await conn.rows(`SELECT count(DISTINCT ${property.sql}) FROM user_ids e
    ${property.profile ? 'LEFT JOIN profile_vd u ON u.distinct_id = e.distinct_id' : ''}
    WHERE ${property.sql} IN (SELECT value FROM file_values)`)
  return Number(rows[0][0])
}
