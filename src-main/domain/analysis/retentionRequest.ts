import { badParam } from '../errors'
import { flag, numeric, word } from '../lenient'
import { ignoreUnknown } from '../ignored'
import { validateFilter, type CheckedFilter } from '../expr/filters'
import { resolveBreakdown, type Breakdown } from './breakdown'
import { resolveEvent, resolveProperty, type EventRef, type PropertyExpr } from '../expr/eventRefs'
import { cohortCheck } from '../userSets/membership'
import { crowdsOf, dateRange, knownFields, limitOf, recordOf, samplingOf, unitOf } from './request'
import type { Unit } from '../time/calendar'
import type { ValidateEnv } from './runner'

/**
 * The retention request (spec 4.10), checked field by field: every refusal is a 400 naming the
 * parameter, e.g. `firstEvent.filter.conditions[0].expression` or `measures[0].aggregator`.
 */

/** The initial or the return event, with its own filter. */
export interface RetentionEvent {
  event: EventRef
  filter?: CheckedFilter
}

/** Which rows a breakdown value is read from: byFieldIndex 1, 2 or -1. */
export type BreakdownSide = 'first' | 'return' | 'user'

export const MEASURE_AGGREGATORS = ['SUM', 'AVG', 'MAX', 'MIN', 'REMOVE_DUMPLICATE', 'AVG_PER'] as const
export type MeasureAggregator = (typeof MEASURE_AGGREGATORS)[number]

export interface RetentionMeasure {
  property: PropertyExpr
  aggregator: MeasureAggregator
}

/**
 * Which returns a cell at +k counts: `on`, the return event in period +k exactly; `onOrAfter`, in
 * period +k or any later period the row follows (up to +duration): "still coming back".
 */
export const RETENTION_MODES = ['on', 'onOrAfter'] as const
export type RetentionMode = (typeof RETENTION_MODES)[number]

export interface RetentionRequest {
  firstEvent: RetentionEvent
  secondEvent: RetentionEvent
  /** Conditions on user properties, applied to both events. */
  filter?: CheckedFilter
  fromDate: string
  toDate: string
  unit: Unit
  duration: number
  breakdown: { by: Breakdown; side: BreakdownSide } | null
  measure: RetentionMeasure | null
  sampling: number
  crowds: string[]
  limit: number
  mode: RetentionMode
  /**
   * The initial event counts only at the user's first-ever occurrence of it (its filter applied),
   * looked for in all the data up to toDate: a user who first did it before fromDate is in no cohort.
   */
  firstTime: boolean
}

/** The most periods after the initial one a request may follow (a year of days). */
export const MAX_DURATION = 365

const FIELDS = ['firstEvent', 'secondEvent', 'byField', 'byFieldIndex', 'crowds', 'fromDate', 'toDate', 'duration', 'unit', 'samplingFactor', 'limit', 'measures', 'filter', 'retentionMode', 'firstTime']

type Env = ValidateEnv

/** Conditions on event properties must name the event they filter (its id, as in the expression). */
function ownEventOnly(filter: CheckedFilter, field: string, eventId: string): void {
  filter.conditions.forEach((c, i) => {
    if (c.ref.kind === 'event' && c.ref.eventId !== eventId) {
      throw badParam(`${field}.conditions[${i}].expression`, `${field}.conditions[${i}].expression: ${c.expression} is not a property of event.${eventId}; this filter applies to event.${eventId} only`)
    }
  })
}

function eventOf(env: Env, value: unknown, field: string): RetentionEvent {
  if (value === undefined || value === null) throw badParam(field, `${field} is required: {expression, filter}`)
  const body = recordOf(value, field)
  ignoreUnknown(body, ['expression', 'filter'], field)
  const event = resolveEvent(env.ctx.meta, env.scope.appKey, body.expression, `${field}.expression`, env.lookup)
  if (body.filter === undefined || body.filter === null) return { event }
  const filter = validateFilter(body.filter, `${field}.filter`, env.lookup)
  ownEventOnly(filter, `${field}.filter`, event.eventId)
  return { event, filter }
}

function durationOf(raw: unknown): number {
  const value = numeric(raw)
  if (value === undefined || value === null) throw badParam('duration', 'duration is required: the number of periods to follow after the initial one')
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_DURATION) {
    throw badParam('duration', `duration must be a whole number from 1 to ${MAX_DURATION}`)
  }
  return value
}

/** The global filter applies to both events, so it may only hold user properties. */
function globalFilterOf(env: Env, value: unknown): CheckedFilter | undefined {
  if (value === undefined || value === null) return undefined
  const filter = validateFilter(value, 'filter', env.lookup)
  filter.conditions.forEach((c, i) => {
    if (c.ref.kind === 'event') {
      throw badParam(`filter.conditions[${i}].expression`, `filter.conditions[${i}].expression: the global filter applies to both events and takes user properties only; put ${c.expression} in firstEvent.filter or secondEvent.filter`)
    }
  })
  return filter
}

function breakdownOf(env: Env, body: Record<string, unknown>, first: EventRef, second: EventRef): RetentionRequest['breakdown'] {
  const index = numeric(body.byFieldIndex) ?? null
  if (index !== null && index !== 1 && index !== 2 && index !== -1) {
    throw badParam('byFieldIndex', 'byFieldIndex must be 1 (initial event property), 2 (return event property) or -1 (user property, or no breakdown)')
  }
  if (body.byField === undefined || body.byField === null) {
    if (index === 1 || index === 2) throw badParam('byField', `byField is required with byFieldIndex ${index}`)
    return null
  }
  const by = resolveBreakdown(body.byField, 'byField', env.lookup, env.columns)
  if (by.property.kind === 'user') {
    if (index !== null && index !== -1) throw badParam('byFieldIndex', `byFieldIndex ${index} breaks down by an event property; ${by.property.expression} is a user property (use -1)`)
    return { by, side: 'user' }
  }
  if (index !== 1 && index !== 2) {
    throw badParam('byFieldIndex', `${by.property.expression} is an event property: byFieldIndex must be 1 (initial event) or 2 (return event)`)
  }
  const event = index === 1 ? first : second
  if (by.property.eventId !== event.eventId) {
    throw badParam('byField.expression', `byField.expression: byFieldIndex ${index} breaks down by a property of ${event.expression}; ${by.property.expression} is not one`)
  }
  return { by, side: index === 1 ? 'first' : 'return' }
}

function measureOf(env: Env, value: unknown, second: EventRef): RetentionMeasure | null {
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) return null
  if (!Array.isArray(value) || value.length > 1) throw badParam('measures', 'measures must be a list of at most one {expression, aggregator}')
  const field = 'measures[0]'
  const m = recordOf(value[0], field)
  ignoreUnknown(m, ['expression', 'aggregator'], field)
  m.aggregator = word(m.aggregator, MEASURE_AGGREGATORS)
  const property = resolveProperty(m.expression, `${field}.expression`, env.lookup, env.columns)
  if (property.kind !== 'event' || property.eventId !== second.eventId) {
    throw badParam(`${field}.expression`, `${field}.expression must be a property of the return event, ${second.expression}.<propertyId>`)
  }
  if (typeof m.aggregator !== 'string' || !(MEASURE_AGGREGATORS as readonly string[]).includes(m.aggregator)) {
    throw badParam(`${field}.aggregator`, `${field}.aggregator must be one of ${MEASURE_AGGREGATORS.join(', ')}`)
  }
  if (m.aggregator !== 'REMOVE_DUMPLICATE' && property.dataType !== 'number') {
    throw badParam(`${field}.aggregator`, `${field}.aggregator ${m.aggregator} needs a number property; ${property.expression} is ${property.dataType}`)
  }
  return { property, aggregator: m.aggregator as MeasureAggregator }
}

function modeOf(raw: unknown): RetentionMode {
  if (raw === undefined || raw === null) return 'on'
  const mode = typeof raw === 'string' ? RETENTION_MODES.find((m) => m.toLowerCase() === raw.toLowerCase()) : undefined
  if (!mode) throw badParam('retentionMode', 'retentionMode must be "on" (returned in period +k) or "onOrAfter" (returned in period +k or later)')
  return mode
}

function firstTimeOf(raw: unknown): boolean {
  const value = flag(raw)
  if (value === undefined || value === null) return false
  if (typeof value !== 'boolean') throw badParam('firstTime', 'firstTime must be true (count only the first-ever initial event of each user) or false')
  return value
}

export function validateRetention(env: Env, body: Record<string, unknown>): RetentionRequest {
  knownFields(body, FIELDS)
  const { fromDate, toDate } = dateRange(body)
  const crowds = crowdsOf(body.crowds, cohortCheck(env.ctx.meta, env.scope.appKey))
  const firstEvent = eventOf(env, body.firstEvent, 'firstEvent')
  const secondEvent = eventOf(env, body.secondEvent, 'secondEvent')
  const duration = durationOf(body.duration)
  if (body.unit === undefined || body.unit === null) throw badParam('unit', 'unit is required: DAY, WEEK or MONTH')
  const unit = unitOf(body.unit)
  const filter = globalFilterOf(env, body.filter)
  const breakdown = breakdownOf(env, body, firstEvent.event, secondEvent.event)
  const measure = measureOf(env, body.measures, secondEvent.event)
  if (measure && breakdown) throw badParam('measures', 'measures cannot be combined with byField')
  const mode = modeOf(body.retentionMode)
  if (measure && mode === 'onOrAfter') throw badParam('measures', 'measures cannot be combined with retentionMode onOrAfter')
  return {
    firstEvent,
    secondEvent,
    filter,
    fromDate,
    toDate,
    unit,
    duration,
    breakdown,
    measure,
    sampling: samplingOf(body.samplingFactor),
    crowds,
    limit: limitOf(body.limit, 1000),
    mode,
    firstTime: firstTimeOf(body.firstTime),
  }
}
