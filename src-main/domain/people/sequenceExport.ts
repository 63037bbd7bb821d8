import { currentTime } from '../analysis/clock'
import { ignoreUnknown } from '../ignored'
import type { Columns } from '../analysis/filterSql'
import { SqlParams } from '../analysis/sqlParams'
import type { DomainContext } from '../context'
import { badParam } from '../errors'
import type { ProjectScope } from '../platform/projects'
import { propertyColumns } from '../schema/columns'
import { planLookup } from '../schema/lookup'
import { streamRows } from '../streaming'
import { sequenceFields, sequenceRow, sequenceSql } from './sequenceQuery'
import { findUser, queryOn, userKeyOf, withoutUserKey, type UserKey } from './users'
import { maskedEventProperties } from './values'

const FIELDS = ['fromDate', 'toDate', 'events', 'useCache']

/**
 * A user's whole behaviour sequence of fromDate..toDate as JSON lines, newest first: per event
 * `{xwhat, xwhen, <property>: value ...}` with xwhen in epoch milliseconds (the record format of the
 * data, independent of time zones) and only the properties that have a value. Rows are read from
 * the warehouse a chunk at a time, so memory stays constant. Checks and the user lookup happen
 * before the first line, so their errors are ordinary JSON answers. `useCache` is accepted and has
 * no effect: an export always reads the current data.
 */
export async function* exportSequence(
  ctx: DomainContext,
  scope: ProjectScope,
  user: UserKey,
  body: Record<string, unknown>,
  signal: AbortSignal,
): AsyncGenerator<string> {
  ignoreUnknown(body, FIELDS)
  if (body.useCache !== undefined && body.useCache !== null && typeof body.useCache !== 'boolean') throw badParam('useCache', 'useCache must be true or false')
  const fields = sequenceFields(body, ctx.meta, scope.appKey, planLookup(ctx.meta, scope.appKey))
  const masked = maskedEventProperties(ctx.meta, scope.appKey)
  const session = await ctx.warehouse.session(scope.appKey, scope.timeZone)
  let sql: string
  const p = new SqlParams()
  try {
    const found = await findUser(queryOn(session.conn), user)
    const columns: Columns = {
      event: new Set((await propertyColumns(session.conn, 'event_vd')).keys()),
      user: new Set((await propertyColumns(session.conn, 'profile_vd')).keys()),
    }
    const nowLocal = `CAST(to_timestamp(${currentTime() / 1000}) AS TIMESTAMP)`
    sql = sequenceSql(found.distinctId, fields, columns, p, nowLocal, (xwhen) => `epoch_ms(${xwhen})`)
  } catch (err) {
    session.close()
    throw err
  }
  for await (const rows of streamRows(session, sql, p.values, signal)) {
    if (rows.length === 0) continue
    let text = ''
    for (const r of rows) {
      const row = sequenceRow(r, masked)
      text += JSON.stringify({ xwhat: row.eventId, xwhen: row.time, ...row.properties }) + '\n'
    }
    yield text
  }
}

/** POST /uba/api/users/sequence/export: the user named by exactly one of `distinctId` and `xwho`. */
export async function* personalSequenceExport(ctx: DomainContext, scope: ProjectScope, body: Record<string, unknown>, signal: AbortSignal): AsyncGenerator<string> {
  yield* exportSequence(ctx, scope, userKeyOf(body), withoutUserKey(body), signal)
}
