import { currentTime } from '../time/clock'
import { ignoreUnknown } from '../ignored'
import type { Columns } from '../expr/filterSql'
import { dialectOf, type DomainContext } from '../context'
import { badParam } from '../errors'
import type { ProjectScope } from '../project/scope'
import { propertyColumns } from '../schema/columns'
import { planLookup } from '../schema/lookup'
import { csvLines, exportFormat } from '../sql/csv'
import { streamRows } from '../streaming'
import { sequenceFields, sequenceRow, sequenceSql } from './sequenceQuery'
import { findUser, queryOn, userKeyOf, withoutUserKey, type UserKey } from './users'
import { eventPropertyTypes, maskedEventProperties } from '../schema/shownValues'

const FIELDS = ['fromDate', 'toDate', 'events', 'useCache', 'format']

/**
 * A user's whole behaviour sequence of fromDate..toDate as JSON lines, newest first: per event
 * `{xwhat, xwhen, <property>: value ...}` with xwhen in epoch milliseconds (the record format of the
 * data, independent of time zones) and only the properties that have a value. Rows are read from
 * the warehouse a chunk at a time, so memory stays constant. Checks and the user lookup happen
 * before the first line, so their errors are ordinary JSON answers. `useCache` is accepted and has
 * no effect: an export always reads the current data.
 *
 * `format: "csv"`: a header line (xwhat, xwhen, then every event property column of the project),
 * one line per event, xwhen as yyyy-MM-dd HH:mm:ss[.SSS] in the project's time zone as the SQL
 * export writes it; `bom` starts it with a byte-order mark.
 */
export async function* exportSequence(
  ctx: DomainContext,
  scope: ProjectScope,
  user: UserKey,
  body: Record<string, unknown>,
  signal: AbortSignal,
  bom = false,
): AsyncGenerator<string> {
  ignoreUnknown(body, FIELDS)
  const format = exportFormat(body.format)
  if (body.useCache !== undefined && body.useCache !== null && typeof body.useCache !== 'boolean') throw badParam('useCache', 'useCache must be true or false')
  const fields = sequenceFields(body, ctx.meta, scope.appKey, planLookup(ctx.meta, scope.appKey))
  const masked = maskedEventProperties(ctx.meta, scope.appKey)
  const types = eventPropertyTypes(ctx.meta, scope.appKey)
  const session = await ctx.warehouse.session(scope.appKey, scope.timeZone)
  let sql: string
  let properties: string[]
  const p = dialectOf(ctx, scope).params()
  try {
    const found = await findUser(queryOn(session), dialectOf(ctx, scope), user)
    const columns: Columns = {
      event: new Set((await propertyColumns(session, 'event_vd')).keys()),
      user: new Set((await propertyColumns(session, 'profile_vd')).keys()),
    }
    const nowLocal = dialectOf(ctx, scope).localNow(currentTime())
    properties = [...columns.event]
    sql = sequenceSql(found.distinctId, fields, { dialect: dialectOf(ctx, scope), columns, nowLocal }, p, format === 'csv' ? (xwhen) => dialectOf(ctx, scope).exportStamp(xwhen) : (xwhen) => dialectOf(ctx, scope).epochMillis(xwhen), undefined, types)
  } catch (err) {
    session.close()
    throw err
  }
  const chunks = streamRows(session, sql, p.values, signal)
  if (format === 'csv') {
    yield* csvLines(['xwhat', 'xwhen', ...properties], csvRows(chunks, masked, properties, types), bom)
    return
  }
  for await (const rows of chunks) {
    if (rows.length === 0) continue
    let text = ''
    for (const r of rows) {
      const row = sequenceRow(r, masked, types)
      text += JSON.stringify({ xwhat: row.eventId, xwhen: row.time, ...row.properties }) + '\n'
    }
    yield text
  }
}

async function* csvRows(chunks: AsyncIterable<Record<string, unknown>[]>, masked: Set<string>, properties: string[], types: Map<string, string>): AsyncGenerator<unknown[][]> {
  for await (const rows of chunks) {
    yield rows.map((r) => {
      const row = sequenceRow(r, masked, types)
      return [row.eventId, row.time, ...properties.map((key) => row.properties[key] ?? null)]
    })
  }
}

/** POST /uba/api/users/sequence/export: the user named by exactly one of `distinctId` and `xwho`. */
export async function* personalSequenceExport(ctx: DomainContext, scope: ProjectScope, body: Record<string, unknown>, signal: AbortSignal, bom = false): AsyncGenerator<string> {
  yield* exportSequence(ctx, scope, userKeyOf(body), withoutUserKey(body), signal, bom)
}
