import { badParam } from '../errors'
import { flag, numeric, word } from '../lenient'
import { ignoreUnknown } from '../ignored'
import type { FunnelStep } from './funnelSql'
import { recordOf } from './request'

/**
 * The funnel's optional options (issue 20): exclusions, the order of the steps and the time to
 * convert as a histogram. Their semantics, which the follower (funnelPaths.ts) applies:
 *
 * - ORDERED (default): each step is a later event than the previous step's (or the same moment),
 *   other events may come between.
 * - STRICT: as ORDERED, and no other event of the user (any event the funnel's filter keeps, steps
 *   included) lies strictly between two consecutive steps' times. An event at the very millisecond
 *   of either step does not interrupt: events of one moment have no order among themselves.
 * - ANY: the steps in any order within the window. A path starts at any step's event inside the
 *   range (its day is the entry day) and reaches step k when each of steps 1..k has an event from
 *   that moment to the end of the window; one event may count for several steps. Step k's time is
 *   when steps 1..k were all done (so a step done before the previous one takes 0 s).
 * - Exclusions: an event of the exclusion (with its filter) strictly between the times of steps k
 *   and k+1 of a path, for fromStep <= k < toStep, stops that path at step k. An exclusion event at
 *   the same millisecond as either step does not stop it (as STRICT). Another entry's path may still
 *   go deeper. Not with ANY (no steps between which to exclude).
 * - timeToConvert: the users of the total's $ALL column who reached toStep, by the seconds from
 *   their counted path's fromStep to its toStep (default first to last), in TIME_BUCKETS.
 */

export const ORDERS = ['ORDERED', 'STRICT', 'ANY'] as const
export type FunnelOrder = (typeof ORDERS)[number]
export const MAX_EXCLUSIONS = 10

export interface FunnelExclusion extends FunnelStep {
  /** The first and last step of the span it applies to (0-based): between fromStep and toStep. */
  fromStep: number
  toStep: number
}

export interface TimeToConvert {
  fromStep: number
  toStep: number
}

/** The buckets' lower bounds in seconds: [0, 10), [10, 30) ... [30 days, +∞); a histogram stops at the bucket holding the window's end. */
export const TIME_BUCKETS = [0, 10, 30, 60, 300, 900, 1800, 3600, 10800, 21600, 43200, 86400, 172800, 259200, 604800, 1209600, 2592000]

export function orderOf(value: unknown): FunnelOrder {
  if (value === undefined || value === null) return 'ORDERED'
  const order = word(value, ORDERS)
  if (typeof order !== 'string' || !(ORDERS as readonly string[]).includes(order)) throw badParam('order', 'order must be ORDERED, STRICT or ANY')
  return order as FunnelOrder
}

function stepIndex(value: unknown, field: string, steps: number, fallback: number): number {
  const v = numeric(value)
  if (v === undefined || v === null) return fallback
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v >= steps) throw badParam(field, `${field} must be a step index from 0 to ${steps - 1}`)
  return v
}

function spanOf(body: Record<string, unknown>, field: string, steps: number): { fromStep: number; toStep: number } {
  const fromStep = stepIndex(body.fromStep, `${field}.fromStep`, steps, 0)
  const toStep = stepIndex(body.toStep, `${field}.toStep`, steps, steps - 1)
  if (toStep <= fromStep) throw badParam(`${field}.toStep`, `${field}.toStep must be a later step than fromStep`)
  return { fromStep, toStep }
}

/** Exclusions: each an event (and filter) as a step is, with the span of steps it applies to. */
export function exclusionsOf(value: unknown, steps: number, order: FunnelOrder, stepOf: (value: unknown, field: string) => FunnelStep): FunnelExclusion[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value) || value.length > MAX_EXCLUSIONS) throw badParam('exclusions', `exclusions must be a list of at most ${MAX_EXCLUSIONS}`)
  if (value.length > 0 && order === 'ANY') throw badParam('exclusions', 'exclusions apply between ordered steps: not with order ANY')
  return value.map((item, i) => {
    const field = `exclusions[${i}]`
    // stepOf reads the event and filter (and names the fields it ignores)
    const step = stepOf(item, field)
    return { ...step, ...spanOf(recordOf(item, field), field, steps) }
  })
}

/** timeToConvert: true (first to last step) or {fromStep, toStep}; false or absent: none. */
export function timeToConvertOf(value: unknown, steps: number): TimeToConvert | null {
  const v = flag(value)
  if (v === undefined || v === null || v === false) return null
  if (v === true) return { fromStep: 0, toStep: steps - 1 }
  const body = recordOf(v, 'timeToConvert')
  ignoreUnknown(body, ['fromStep', 'toStep'], 'timeToConvert')
  return spanOf(body, 'timeToConvert', steps)
}

/** The span mask of an exclusion: bit k for each step k it stops a path after. */
export function spanMask(x: { fromStep: number; toStep: number }): number {
  let mask = 0
  for (let k = x.fromStep; k < x.toStep; k++) mask |= 1 << k
  return mask
}

/** The buckets of a histogram over a window of `windowSeconds`: every bucket that can hold a time. */
export function bucketsFor(windowSeconds: number): number[] {
  return TIME_BUCKETS.filter((from) => from <= windowSeconds)
}
