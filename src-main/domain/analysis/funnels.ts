import type { AnalysisAnswer } from '../../../src-shared/contract'
import { badParam } from '../errors'
import { numeric, word } from '../lenient'
import { ignoreUnknown } from '../ignored'
import { validateFilter, type CheckedFilter } from '../expr/filters'
import { ANY_EVENT } from '../schema/lookup'
import { resolveBreakdown, UNKNOWN, type Breakdown } from './breakdown'
import { addDays, dsOf, series } from '../time/calendar'
import { compareOf, type ComparedRange } from './compare'
import { comparedFunnel, type FunnelTally } from './funnelCompare'
import { resolveEvent, type EventRef } from '../expr/eventRefs'
import { HOLD_CONSTANT } from './funnelPaths'
import { followPaths, oneAtATime, type EarlierRange } from './funnelFollow'
import { dayIndex, type FunnelQuery, type FunnelStep } from './funnelSql'
import { MAX_SLOTS } from './funnelRows'
import { cohortCheck } from '../userSets/membership'
import { crowdsOf, dateRange, knownFields, limitOf, recordOf, samplingOf } from './request'
import type { AnalysisEnv, AnalysisModule, ValidateEnv } from './runner'
import { bucketsFor, exclusionsOf, orderOf, timeToConvertOf, type TimeToConvert } from './funnelOptions'

/**
 * Funnel (spec 4.10). A user enters at any first-step event inside the range; each later step is a
 * different event at or after the previous step's, all within the conversion window of the entry
 * (the window may run past toDate). Per user and entry day the deepest step reached from any entry
 * that day counts; `$ALL` counts each user once, at their deepest over the range. The times of a
 * user's counted path (the deepest; the earliest entry among equals) give the medians. The scan:
 * funnelSql.ts; the path rules in detail: funnelPaths.ts.
 */

export const MAX_STEPS = 20
/** The longest conversion window: a year, whatever the unit. */
export const MAX_WINDOW_DAYS = 365
const UNIT_SECONDS = { DAY: 86400, HOUR: 3600, MINUTE: 60 } as const
type WindowUnit = keyof typeof UNIT_SECONDS
/** Without convertTime and convertTimeUnit: a week. */
const DEFAULT_WINDOW = { convertTime: 7, convertTimeUnit: 'DAY' as WindowUnit }

const FIELDS = ['steps', 'filter', 'crowds', 'fromDate', 'toDate', 'samplingFactor', 'byStepIndex', 'byField', 'convertTime', 'convertTimeUnit', 'limit', 'compare', 'exclusions', 'order', 'timeToConvert']

export interface FunnelRequest extends FunnelQuery {
  limit: number
  compare: ComparedRange | null
  timeToConvert: TimeToConvert | null
}

/** The answer, as its route schema describes it (schemas/analysis/funnels.ts). */
export type FunnelResponse = AnalysisAnswer<'/uba/api/funnels/analyze'>
/** A row; with compare, `previous` is this row over the compared range, by the answer's dateList (funnelCompare.ts). */
export type FunnelRow = FunnelResponse['rows'][number]
/** The time-to-convert histogram (option timeToConvert): seconds from `from` (inclusive) to `to` (exclusive; null: no end). */
type TimeToConvertAnswer = NonNullable<FunnelResponse['timeToConvert']>

/** The event ids whose properties a step's rows carry; null = any event ($Anything). */
function eventsOf(ref: EventRef): string[] | null {
  if (ref.kind === 'any') return null
  return [ref.eventId, ...ref.members.map((m) => m.eventId)]
}

/** Whether a property named on `eventId` belongs to a step's events: its own event, a member of its virtual event, or $Anything on either side. */
function fitsStep(eventId: string, ref: EventRef): boolean {
  const own = eventsOf(ref)
  return eventId === ANY_EVENT || own === null || own.includes(eventId)
}

function stepOf(env: ValidateEnv, value: unknown, field: string, known = ['expression', 'filter']): FunnelStep {
  const step = recordOf(value, field)
  ignoreUnknown(step, known, field)
  const event = resolveEvent(env.ctx.meta, env.scope.appKey, step.expression, `${field}.expression`, env.lookup)
  const filter = step.filter === undefined || step.filter === null ? undefined : validateFilter(step.filter, `${field}.filter`, env.lookup)
  filter?.conditions.forEach((c, j) => {
    if (c.ref.kind === 'event' && !fitsStep(c.ref.eventId, event)) {
      throw badParam(`${field}.filter.conditions[${j}].expression`, `${field}.filter.conditions[${j}].expression: ${c.expression} is not a property of the step's event ${event.expression}`)
    }
  })
  return { expression: event.expression, event, filter }
}

function windowOf(body: Record<string, unknown>): number {
  const time = numeric(body.convertTime) ?? undefined
  const unit = word(body.convertTimeUnit, Object.keys(UNIT_SECONDS)) ?? undefined
  if (time === undefined && unit === undefined) return DEFAULT_WINDOW.convertTime * UNIT_SECONDS[DEFAULT_WINDOW.convertTimeUnit]
  if (time === undefined) throw badParam('convertTime', 'convertTime is required with convertTimeUnit')
  if (unit === undefined) throw badParam('convertTimeUnit', 'convertTimeUnit (DAY, HOUR or MINUTE) is required with convertTime')
  if (typeof unit !== 'string' || !(unit in UNIT_SECONDS)) throw badParam('convertTimeUnit', 'convertTimeUnit must be DAY, HOUR or MINUTE')
  if (typeof time !== 'number' || !Number.isInteger(time) || time < 1) throw badParam('convertTime', 'convertTime must be a whole number of at least 1')
  const seconds = time * UNIT_SECONDS[unit as WindowUnit]
  if (seconds > MAX_WINDOW_DAYS * 86400) throw badParam('convertTime', `the conversion window is at most ${MAX_WINDOW_DAYS} days`)
  return seconds
}

/**
 * byStepIndex -1 holds an event property constant over the steps: each step's event must carry it
 * (a common property, or one linked to every step's event; $Anything carries any), and the
 * expression names one of the steps' events (or $Anything).
 */
function holdConstant(env: ValidateEnv, byField: Breakdown, steps: FunnelStep[]): void {
  const property = byField.property
  if (!steps.some((s) => fitsStep(property.eventId!, s.event))) {
    throw badParam('byField.expression', `byField.expression: ${property.expression} names no step's event (byStepIndex -1: event.<a step's event or $Anything>.<property>)`)
  }
  steps.forEach((step, k) => {
    const carried = step.event.kind === 'any' || env.lookup({ kind: 'event', eventId: step.event.eventId, propertyId: property.propertyId }) !== undefined
    if (!carried) {
      throw badParam('byField.expression', `byField.expression: byStepIndex -1 holds ${property.propertyId} constant over every step, but step ${k}'s event ${step.expression} does not carry it (use a common property)`)
    }
  })
}

/** byStepIndex and byField together: which step's event gives the breakdown value (0-based, or HOLD_CONSTANT). */
function breakdownOf(env: ValidateEnv, body: Record<string, unknown>, steps: FunnelStep[]): { byField: Breakdown | null; byStep: number } {
  const index = numeric(body.byStepIndex) ?? undefined
  if (index !== undefined && (typeof index !== 'number' || !Number.isInteger(index) || index < -1 || index >= steps.length)) {
    throw badParam('byStepIndex', `byStepIndex must be -1 (any step) or a step index from 0 to ${steps.length - 1}`)
  }
  if (body.byField === undefined || body.byField === null) {
    if (index !== undefined && index !== -1) throw badParam('byStepIndex', 'byStepIndex applies only with byField')
    return { byField: null, byStep: 0 }
  }
  const byField = resolveBreakdown(body.byField, 'byField', env.lookup, env.columns)
  const property = byField.property
  if (property.kind === 'user') {
    if (index !== undefined && index !== -1) throw badParam('byStepIndex', 'byStepIndex is -1 (or omitted) with a user property')
    return { byField, byStep: 0 }
  }
  if (index === -1) {
    holdConstant(env, byField, steps)
    return { byField, byStep: HOLD_CONSTANT }
  }
  // omitted: the first step
  const byStep = (index as number | undefined) ?? 0
  if (!fitsStep(property.eventId!, steps[byStep].event)) {
    throw badParam('byField.expression', `byField.expression: ${property.expression} is not a property of step ${byStep}'s event ${steps[byStep].expression}`)
  }
  return { byField, byStep }
}

export function emptyRow(req: FunnelRequest, byValue: number | string, columns: number): FunnelRow {
  return {
    byValue,
    stepsDetail: req.steps.map((s) => ({ expression: s.expression, convertedUser: new Array<number>(columns).fill(0) })),
    medianConvertedTime: req.steps.slice(1).map((s, k) => ({ stepsExpress: `${req.steps[k].expression}~${s.expression}`, median: new Array<number | null>(columns).fill(null) })),
  }
}

/** Seconds to the millisecond. */
function seconds(value: number | null): number | null {
  return value === null ? null : Math.round(value * 1000) / 1000
}

function timeToConvertAnswer(span: TimeToConvert, buckets: number[], users: number[]): TimeToConvertAnswer {
  return { ...span, buckets: buckets.map((from, i) => ({ from, to: buckets[i + 1] ?? null, users: users[i] })) }
}

/** The last day a funnel over fromDate..toDate reads: its entries' steps run up to the window past toDate. */
function lastRead(toDate: string, windowSeconds: number): string {
  return addDays(toDate, Math.ceil(windowSeconds / 86400) + 1)
}

/**
 * Whether the compared range is best followed in the same pass as the answer's: when the days the
 * two read meet or overlap (compare "previous" or "week", a year of a year), one scan reads each
 * event once. Apart (a short range a year earlier), reading the days between would cost more than
 * a second pass.
 */
function oneRead(req: FunnelRequest, cmp: ComparedRange): boolean {
  const meet = addDays(lastRead(cmp.toDate, req.windowSeconds), 1) >= req.fromDate && addDays(lastRead(req.toDate, req.windowSeconds), 1) >= cmp.fromDate
  // the entry days of both must fit md's day field and its slots (funnelRows.ts)
  const from = dsOf(cmp.fromDate < req.fromDate ? cmp.fromDate : req.fromDate)
  const to = dsOf(cmp.toDate > req.toDate ? cmp.toDate : req.toDate)
  return meet && dayIndex(to) - dayIndex(from) + 1 < MAX_SLOTS
}

/**
 * The funnel's rows over `days` (fromDate..toDate of `req`): the total, and each breakdown value's;
 * with `earlier`, also its rows (`compared`), in the same pass.
 */
async function tally(env: AnalysisEnv, req: FunnelRequest, days: string[], earlier?: EarlierRange): Promise<FunnelTally & { timeToConvert: number[]; compared?: FunnelTally }> {
  const answer: FunnelTally = { total: emptyRow(req, -1, days.length + 1), groups: new Map() }
  const compared: FunnelTally | undefined = earlier && { total: emptyRow(req, -1, earlier.days.length + 1), groups: new Map() }
  if (days.length === 0) return { ...answer, timeToConvert: bucketsFor(req.windowSeconds).map(() => 0), compared }
  const paths = await followPaths(env, req, days, undefined, earlier)
  for (const r of paths.rows) {
    // the compared range's columns follow the answer's
    const into = r.column <= days.length ? answer : compared!
    const column = r.column <= days.length ? r.column : r.column - days.length - 1
    let row = into.total
    if (r.label !== null) {
      row = into.groups.get(r.label) ?? emptyRow(req, r.label, into.total.stepsDetail[0].convertedUser.length)
      into.groups.set(r.label, row)
    }
    row.stepsDetail.forEach((s, k) => (s.convertedUser[column] = r.counts[k]))
    row.medianConvertedTime.forEach((m, k) => (m.median[column] = seconds(r.medians[k])))
  }
  return { ...answer, timeToConvert: paths.timeToConvert, compared }
}

export const funnelAnalysis: AnalysisModule<FunnelRequest, FunnelResponse> = {
  kind: 'funnels',
  validate(env, body) {
    knownFields(body, FIELDS)
    const { fromDate, toDate } = dateRange(body)
    const crowds = crowdsOf(body.crowds, cohortCheck(env.ctx.meta, env.scope.appKey))
    if (crowds.length > 1) throw badParam('crowds', 'a funnel compares no cohorts: send one crowd')
    if (!Array.isArray(body.steps) || body.steps.length < 2 || body.steps.length > MAX_STEPS) throw badParam('steps', `steps must be a list of 2 to ${MAX_STEPS} steps`)
    const steps = body.steps.map((s, i) => stepOf(env, s, `steps[${i}]`))
    const order = orderOf(body.order)
    const exclusions = exclusionsOf(body.exclusions, steps.length, order, (x, field) => stepOf(env, x, field, ['expression', 'filter', 'fromStep', 'toStep']))
    const filter: CheckedFilter | undefined = body.filter === undefined || body.filter === null ? undefined : validateFilter(body.filter, 'filter', env.lookup)
    const windowSeconds = windowOf(body)
    return {
      steps,
      filter,
      fromDate,
      toDate,
      sampling: samplingOf(body.samplingFactor),
      crowds,
      ...breakdownOf(env, body, steps),
      windowSeconds,
      order,
      exclusions,
      timeToConvert: timeToConvertOf(body.timeToConvert, steps.length),
      limit: limitOf(body.limit, 1000),
      compare: compareOf(body.compare, 'DAY', fromDate, toDate),
    }
  },

  async run(env, req) {
    const days = series(req.fromDate, req.toDate, 'DAY')
    const cmp = req.compare
    // the compared range in the same pass when the two read days that meet
    const earlier = cmp && oneRead(req, cmp) ? { fromDate: cmp.fromDate, toDate: cmp.toDate, days: series(cmp.fromDate, cmp.toDate, 'DAY') } : undefined
    // apart, the compared range is followed at the same time as the answer's: their parts share the
    // threads, their statements the connection (one at a time)
    const shared = cmp && !earlier ? oneAtATime(env) : env
    const [{ total, groups, timeToConvert, compared }, apart] = await Promise.all([
      tally(shared, req, days, earlier),
      cmp && !earlier ? tally(shared, { ...req, fromDate: cmp.fromDate, toDate: cmp.toDate, timeToConvert: null }, series(cmp.fromDate, cmp.toDate, 'DAY')) : undefined,
    ])
    // most entered users over the range first; among equals, known values before unknown, then by label
    const entered = (row: FunnelRow) => row.stepsDetail[0].convertedUser[0]
    const breakdown = [...groups.values()]
      .sort((a, b) => entered(b) - entered(a) || Number(a.byValue === UNKNOWN) - Number(b.byValue === UNKNOWN) || String(a.byValue).localeCompare(String(b.byValue)))
      .slice(0, req.limit)
    const rows = [total, ...breakdown]
    // the same funnel over the compared range: from the same pass, or the one beside it
    const compare = cmp ? comparedFunnel(req, cmp, days, rows, (compared ?? apart)!) : undefined
    return {
      dateList: ['$ALL', ...days.map((d) => `${d.replaceAll('-', '/')} 00:00:00`)],
      byField: req.byField?.property.expression ?? null,
      byValues: [-1, ...breakdown.map((row) => row.byValue)],
      stepEvents: req.steps.map((s) => s.expression),
      rows,
      samplingFactor: req.sampling,
      ...(compare ? { compare } : {}),
      ...(req.timeToConvert && { timeToConvert: timeToConvertAnswer(req.timeToConvert, bucketsFor(req.windowSeconds), timeToConvert) }),
    }
  },
}
