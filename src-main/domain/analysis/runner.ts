import type { ScanChunk, Warehouse } from '../../warehouse'
import { dialectOf, type DomainContext } from '../context'
import type { PropertyLookup } from '../schema/lookup'
import { dataVersion } from '../project/dataVersion'
import type { ProjectScope } from '../project/scope'
import { propertyColumns } from '../schema/columns'
import { planLookup } from '../schema/lookup'
import { currentTime } from '../time/clock'
import { localStamp } from '../time/stamp'
import type { Columns } from '../expr/filterSql'
import { booleanOf } from './request'
import { contextState } from '../contextState'
import type { Dialect, SqlParams } from '../../warehouse/dialect'
import { tracked } from './runs'

/**
 * What every analysis module gets: the project, the plan lookup, the columns that exist, a
 * connection, and `query`, which runs SQL with bound values and keeps it for `explain`. `scan`
 * does the same for a result read as columns (`Warehouse.scan`): it resolves once the statement runs
 * on the engine's threads, so the caller can work on something else until `result`.
 */
export interface AnalysisEnv {
  ctx: DomainContext
  scope: ProjectScope
  lookup: PropertyLookup
  columns: Columns
  /** The engine's SQL text: queries are built from its pieces. */
  dialect: Dialect
  /** The current time as a local TIMESTAMP of the project (SQL), for relative-time filters. */
  nowLocal: string
  params: () => SqlParams
  query: (sql: string, params?: SqlParams) => Promise<Record<string, unknown>[]>
  scan: (sql: string, params?: SqlParams) => Promise<RunningScan>
}

export interface RunningScan {
  result: Promise<ScanChunk[]>
}

/** What validation gets: everything but running SQL. */
export type ValidateEnv = Omit<AnalysisEnv, 'query' | 'scan'>

/** One analysis type: validate -> build SQL -> run -> shape (house style 5). */
export interface AnalysisModule<Request, Response> {
  kind: string
  /** Checks the body; every bad field is a 400 naming it. Needs only the plan. */
  validate(env: ValidateEnv, body: Record<string, unknown>): Request
  run(env: AnalysisEnv, request: Request): Promise<Response>
}

export interface ExplainedSql {
  sql: string
  params: unknown[]
}

interface Cached {
  version: number
  result: unknown
}

/** Answers computed in this server, by request (their project's data version says when they are stale). */
const caches = contextState(() => new Map<string, Cached>())
const CACHE_LIMIT = 200

/**
 * The environment of one analysis on `conn` and its checked request: what runAnalysis runs, and
 * what the users behind a cell (cellUsers.ts) are found with, so both read the same request.
 */
export async function openAnalysis<Req>(
  ctx: DomainContext,
  scope: ProjectScope,
  conn: Warehouse,
  module: Pick<AnalysisModule<Req, unknown>, 'validate'>,
  body: Record<string, unknown>,
  now: number,
  explained: ExplainedSql[] = [],
): Promise<{ env: AnalysisEnv; request: Req }> {
  const columns: Columns = {
    event: new Set((await propertyColumns(conn, 'event_vd')).keys()),
    user: new Set((await propertyColumns(conn, 'profile_vd')).keys()),
  }
  const dialect = dialectOf(ctx, scope)
  const base = {
    ctx,
    scope,
    lookup: planLookup(ctx.meta, scope.appKey),
    columns,
    dialect,
    nowLocal: dialect.localNow(now),
    params: () => dialect.params(),
  }
  const request = module.validate(base, body)
  const explain = (sql: string, params: SqlParams) => explained.push({ sql: sql.replace(/\s+/g, ' ').trim(), params: params.values })
  const env: AnalysisEnv = {
    ...base,
    scan: async (sql, params = dialect.params()) => {
      explain(sql, params)
      return { result: conn.scan(sql, params.values) }
    },
    query: async (sql, params = dialect.params()) => {
      explain(sql, params)
      return conn.query(sql, params.values, 'number')
    },
  }
  return { env, request }
}

/**
 * Runs an analysis. With `useCache` true a result computed at the project's current data version
 * is served again (its reportUpdateTime says when it was computed). With `explain` the response
 * also carries the SQL that ran, with its bound values. With `runId` it is a run the caller may
 * follow and cancel (runs.ts).
 */
export async function runAnalysis<Req, Res extends object>(
  ctx: DomainContext,
  scope: ProjectScope,
  module: AnalysisModule<Req, Res>,
  body: Record<string, unknown>,
  options: { explain: boolean; runId?: string },
): Promise<Res & { reportUpdateTime: string; sql?: ExplainedSql[] }> {
  const useCache = booleanOf(body.useCache, 'useCache')
  const { useCache: _ignored, ...rest } = body
  const key = `${scope.appKey}\u0000${module.kind}\u0000${JSON.stringify(rest)}\u0000${options.explain}`
  const version = dataVersion(ctx.meta, scope.appKey)
  const cache = caches(ctx)
  const hit = cache.get(key)
  if (useCache && hit && hit.version === version) return hit.result as Res & { reportUpdateTime: string }

  const explained: ExplainedSql[] = []
  return ctx.warehouse.withConnection(scope.appKey, scope.timeZone, async (conn: Warehouse) => {
    const now = currentTime()
    const { env, request } = await openAnalysis(ctx, scope, conn, module, rest, now, explained)
    // an analysis of several statements (a funnel's parts) reads one snapshot of the project
    const compute = () => conn.snapshot(() => module.run(env, request))
    // named by the caller (runId): its progress can be read and it can be cancelled (runs.ts)
    const response: Res = options.runId ? await tracked(ctx, scope.appKey, options.runId, conn, compute) : await compute()
    const result = { ...response, reportUpdateTime: localStamp(now, scope.timeZone), ...(options.explain ? { sql: explained } : {}) }
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string)
    cache.set(key, { version, result })
    return result
  })
}
