import { dsOf } from '../time/calendar'
import { numericSetting } from '../platform/settings'
import { entryDays, eventCodes, funnelScanSql, funnelSizeSql, labelStep } from './funnelSql'
import { bucketsFor, spanMask } from './funnelOptions'
import { packPart } from './funnelPart'
import type { CellListener, FollowedPaths, FunnelThreadOptions } from './funnelThread'
import { funnelThreadCount, ThreadedPaths } from './funnelThreads'
import type { FunnelRequest } from './funnels'
import type { AnalysisEnv } from './runner'

/** A part's user ids, relative to its first, must fit an INTEGER. */
const USERS_PER_PART = 2 ** 30
/**
 * Below this many events a funnel is one part, on one thread: following them takes a few tens of
 * milliseconds, less than a second scan costs (a cell's users ask for many such funnels).
 */
const EVENTS_TO_SPLIT = 500_000

/** An earlier range followed in the same pass as the answer's (compare): its days, in order. */
export interface EarlierRange {
  fromDate: string
  toDate: string
  days: string[]
}

/**
 * The env's statements one after another, for funnels followed at the same time on one connection
 * (a compare's ranges): a statement started there would cut a streamed scan short.
 */
export function oneAtATime(env: AnalysisEnv): AnalysisEnv {
  let last: Promise<unknown> = Promise.resolve()
  const after = <T>(work: () => Promise<T>): Promise<T> => {
    const next = last.then(work, work)
    last = next.catch(() => undefined)
    return next
  }
  return {
    ...env,
    query: (sql, params) => after(() => env.query(sql, params)),
    scan: async (sql, params) => ({ result: after(async () => (await env.scan(sql, params)).result) }),
  }
}

/** What the threads follow a funnel with: the follower's options (funnelPaths.ts) for `req` over `days` (and `earlier`'s). */
function threadOptions(req: FunnelRequest, days: string[], cell: CellListener | undefined, earlier: EarlierRange | undefined): FunnelThreadOptions {
  const { key } = entryDays(req)
  const first = key(dsOf(req.fromDate))
  const columnOfDay = new Int32Array(key(dsOf(req.toDate)) - first + 2)
  // with an earlier range each entry day of either is a slot, in time order (funnelEntries.ts)
  const slots = earlier ? [...new Set([...earlier.days, ...days])].sort() : days
  slots.forEach((d, i) => (columnOfDay[key(dsOf(d)) - first + 1] = i + 1))
  const compared = earlier && {
    first: Int32Array.from([0, ...slots.map((d) => days.indexOf(d))], (i, s) => (s === 0 ? -1 : i < 0 ? -1 : i + 1)),
    second: Int32Array.from([0, ...slots.map((d) => earlier.days.indexOf(d))], (i, s) => (s === 0 ? -1 : i < 0 ? -1 : days.length + 2 + i)),
    secondAll: days.length + 1,
  }
  return {
    steps: req.steps.length,
    windowMicros: req.windowSeconds * 1_000_000,
    columnOfDay,
    compared,
    labelStep: req.byField ? labelStep(req) : null,
    codes: eventCodes(req)?.md ?? null,
    cell,
    order: req.order,
    excludedSpans: req.exclusions.reduce((mask, x) => mask | spanMask(x), 0),
    timeToConvert: req.timeToConvert && { ...req.timeToConvert, buckets: bucketsFor(req.windowSeconds) },
  }
}

/**
 * Reads the candidate events in parts of the users and follows their paths on the funnel threads
 * (funnelThreads.ts); with `cell`, also lists the users counted in that cell. With `earlier`, its
 * days too, in the same pass: their columns follow the answer's (days.length + 1 is its $ALL).
 */
export async function followPaths(env: AnalysisEnv, req: FunnelRequest, days: string[], cell?: CellListener, earlier?: EarlierRange): Promise<FollowedPaths> {
  if (earlier) req = { ...req, fromDate: earlier.fromDate < req.fromDate ? earlier.fromDate : req.fromDate, toDate: earlier.toDate > req.toDate ? earlier.toDate : req.toDate }
  const options = threadOptions(req, days, cell, earlier)
  const sizeParams = env.params()
  const [size] = await env.query(funnelSizeSql(req, sizeParams), sizeParams)
  const events = Number(size.n)
  if (events === 0) return { rows: [], timeToConvert: options.timeToConvert ? options.timeToConvert.buckets.map(() => 0) : [], users: [] }
  const lo = Number(size.lo)
  const hi = Number(size.hi)
  // parts of the users bound the rows held at once (about 50 bytes each) on a large project and
  // give each thread its share; as every load stores its events by user (ingest/sql.ts
  // EVENT_ORDER), a part's scan skips most of the other users' row groups
  const perPart = Math.max(1, numericSetting(env.ctx.meta, 'analysis.funnel.eventsPerPart'))
  const threads = events >= EVENTS_TO_SPLIT ? funnelThreadCount(env.ctx) : 1
  const parts = Math.max(Math.ceil(events / perPart), threads, Math.ceil((hi - lo + 1) / USERS_PER_PART))
  const width = Math.ceil((hi - lo + 1) / parts)
  const last = (first: number) => Math.min(hi, first + width - 1)
  const scan = (first: number) => {
    const p = env.params()
    return env.scan(funnelScanSql(req, env, p, { lo: first, hi: last(first) }), p)
  }
  const paths = new ThreadedPaths(env.ctx, options)
  // DuckDB reads the next part while the threads follow this one's paths
  let reading = await scan(lo)
  try {
    for (let first = lo; first <= hi; first += width) {
      const chunks = await reading.result
      if (first + width <= hi) reading = await scan(first + width)
      await paths.add(await packPart(chunks, options.labelStep !== null, last(first) - first + 1, first))
    }
  } catch (err) {
    await reading.result.catch(() => undefined)
    paths.drop()
    throw err
  }
  return paths.finish()
}
