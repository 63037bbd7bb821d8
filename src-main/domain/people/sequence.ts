import type { Answer } from '../../../src-shared/contract'
import { limitOf } from '../analysis/request'
import { ignoreUnknown } from '../ignored'
import { runAnalysis, type AnalysisModule } from '../analysis/runner'
import type { DomainContext } from '../context'
import type { ProjectScope } from '../project/scope'
import { sequenceFields, sequenceRow, sequenceSql, type SequenceFields } from './sequenceQuery'
import { findUser, userKeyOf, withoutUserKey, type UserKey } from './users'
import { eventPropertyTypes, maskedEventProperties } from '../schema/shownValues'

/** One event of a behaviour sequence, as the API answers it (its route schema is the source). */
export type SequenceRow = Answer<'/uba/api/users/sequence', 'post'>['rows'][number]

const FIELDS = ['fromDate', 'toDate', 'events', 'limit']

interface SequenceRequest extends SequenceFields {
  user: UserKey
  limit: number
  masked: Set<string>
}

/**
 * What runAnalysis caches by: the user, the request, and the masked properties, so a result
 * computed before a property was masked is never served after.
 */
interface SequenceInput {
  user: UserKey
  masked: string[]
  request: Record<string, unknown>
}

/** The sequence as an analysis module: the runner gives it caching and reportUpdateTime. */
const sequenceModule: AnalysisModule<SequenceRequest, { rows: SequenceRow[] }> = {
  kind: 'userSequence',

  validate(env, raw) {
    const input = raw as unknown as SequenceInput
    const body = input.request
    ignoreUnknown(body, FIELDS)
    return {
      ...sequenceFields(body, env.ctx.meta, env.scope.appKey, env.lookup),
      user: input.user,
      limit: limitOf(body.limit, 100),
      masked: new Set(input.masked),
    }
  },

  async run(env, req) {
    const user = await findUser((sql, p) => env.query(sql, p), env.dialect, req.user)
    const p = env.params()
    const time = (xwhen: string) => env.dialect.formatSlashed(xwhen)
    const types = eventPropertyTypes(env.ctx.meta, env.scope.appKey)
    const rows = await env.query(sequenceSql(user.distinctId, req, env, p, time, req.limit, types), p)
    return {
      rows: rows.map((r) => {
        const row = sequenceRow(r, req.masked, types)
        return { eventId: row.eventId, eventTime: String(row.time), properties: row.properties }
      }),
    }
  },
}

/**
 * A user's behaviour sequence (spec 4.6): at most `limit` (default 100) events of fromDate..toDate,
 * newest first. Unknown user: 400 naming `xwho` or `distinctId`. With useCache true, a result
 * computed at the project's current data version is served again.
 */
export async function userSequence(
  ctx: DomainContext,
  scope: ProjectScope,
  user: UserKey,
  body: Record<string, unknown>,
): Promise<{ rows: SequenceRow[]; reportUpdateTime: string }> {
  const { useCache, ...request } = body
  const input: SequenceInput & { useCache: unknown } = { useCache, user, masked: [...maskedEventProperties(ctx.meta, scope.appKey)].sort(), request }
  const result = await runAnalysis(ctx, scope, sequenceModule, input as unknown as Record<string, unknown>, { explain: false })
  return { rows: result.rows, reportUpdateTime: result.reportUpdateTime }
}

/** POST /uba/api/users/sequence: the user named by exactly one of `distinctId` and `xwho`. */
export async function personalSequence(ctx: DomainContext, scope: ProjectScope, body: Record<string, unknown>): Promise<{ rows: SequenceRow[]; reportUpdateTime: string }> {
  return userSequence(ctx, scope, userKeyOf(body), withoutUserKey(body))
}
