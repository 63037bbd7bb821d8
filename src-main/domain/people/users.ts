import type { Warehouse } from '../../warehouse'
import type { Dialect, SqlParams } from '../../warehouse/dialect'
import { badParam } from '../errors'
import { USERS } from '../ingest/identity'

/**
 * Who a single-user request is about (spec 4.6): a user id (`xwho`) or the platform's numeric id
 * (`distinctId`). A user is known when the platform has given them a distinct_id (user_ids): that
 * happens with their first stored event or profile record, so a user with events and no profile is
 * known too. A user merged by `$alias` is found by any of its ids and named by its login id.
 */

export type UserKey = { xwho: string } | { distinctId: number }

export interface KnownUser {
  xwho: string
  distinctId: number
}

/** Runs SQL with bound values and returns plain rows. */
export type Query = (sql: string, params: SqlParams) => Promise<Record<string, unknown>[]>

/** `Query` over a connection. */
export function queryOn(conn: Warehouse): Query {
  return async (sql, p) => (await conn.query(sql, p.values))
}

/** The user named by a body with exactly one of `distinctId` and `xwho` (both or neither: 400 naming both). */
export function userKeyOf(body: Record<string, unknown>): UserKey {
  const hasId = body.distinctId !== undefined && body.distinctId !== null
  const hasWho = body.xwho !== undefined && body.xwho !== null
  if (hasId === hasWho) throw badParam(['distinctId', 'xwho'], 'send exactly one of distinctId and xwho')
  if (hasId) {
    if (typeof body.distinctId !== 'number' || !Number.isSafeInteger(body.distinctId)) throw badParam('distinctId', 'distinctId must be a whole number')
    return { distinctId: body.distinctId }
  }
  if (typeof body.xwho !== 'string' || body.xwho === '') throw badParam('xwho', 'xwho must be a non-empty string')
  return { xwho: body.xwho }
}

/** The request body without the user key, for the checks of the other fields. */
export function withoutUserKey(body: Record<string, unknown>): Record<string, unknown> {
  const { distinctId: _id, xwho: _who, ...rest } = body
  return rest
}

/** The user a key names; unknown: 400 naming `xwho` or `distinctId`. */
export async function findUser(query: Query, dialect: Dialect, key: UserKey): Promise<KnownUser> {
  const field = 'xwho' in key ? 'xwho' : 'distinctId'
  const value = 'xwho' in key ? key.xwho : key.distinctId
  const unknown = () => badParam(field, `${field}: no user ${value} in this project`)
  // user_ids appears with the first load; before it no user is known
  const ready = await query(dialect.tableCount('user_ids'), dialect.params())
  if (Number(ready[0]?.n ?? 0) === 0) throw unknown()
  const p = dialect.params()
  // any id of a user merged by $alias finds it; the user is named by its login id
  const where = 'xwho' in key ? `distinct_id = (SELECT distinct_id FROM user_ids WHERE xwho = ${p.add(key.xwho)} LIMIT 1)` : `distinct_id = ${p.add(key.distinctId)}`
  const rows = await query(`SELECT xwho, distinct_id FROM ${USERS} u WHERE ${where}`, p)
  if (rows.length === 0) throw unknown()
  return { xwho: String(rows[0].xwho), distinctId: Number(rows[0].distinct_id) }
}
