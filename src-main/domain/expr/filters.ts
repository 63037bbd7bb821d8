import { badParam } from '../errors'
import { numeric, textual, word } from '../lenient'
import { ignoreUnknown } from '../ignored'
import type { PropertyLookup, PropertyRef } from '../schema/lookup'
import type { DataType } from '../schema/types'

/**
 * Filters (spec 2.7): `{conditions: [{expression, function, params}], relation}`. This module
 * checks a filter against the plan and the operator catalogue (spec-notes, "Operators per data
 * type") and hands back a typed, normalised filter that the SQL compiler, the analyses and the
 * cohorts build on. Every refusal is a 400 naming the exact parameter, e.g.
 * `events[0].filter.conditions[1].function`.
 */

/** How an operator's `params` look. */
export type ParamShape =
  /** No params: `params` omitted or []. */
  | { kind: 'none' }
  /** One or more values; `text` is a non-empty string. */
  | { kind: 'values'; of: 'string' | 'text' | 'number' }
  /** Exactly one number. */
  | { kind: 'one'; of: 'number' }
  /** Two numbers, low <= high, both ends included. */
  | { kind: 'range' }
  /** Two times "yyyy/MM/dd HH:mm" (":ss" may follow), from <= to. */
  | { kind: 'absoluteTime' }
  /** [n, unit, direction]: n a whole number >= 0, unit a TIME_UNITS entry, direction "within" or "before". */
  | { kind: 'relativeTime' }
  /** [from, to, unit]: whole numbers, from >= to >= 0, counted back from now. */
  | { kind: 'relativeRange' }

export interface OperatorSpec {
  function: string
  params: ParamShape
  /** What the operator selects, for the UI and for whoever compiles it. */
  meaning: string
}

export const TIME_UNITS = ['minute', 'hour', 'day', 'week', 'month'] as const
export type TimeUnit = (typeof TIME_UNITS)[number]
export const TIME_DIRECTIONS = ['within', 'before'] as const

const NONE = { kind: 'none' } as const
const isNull: OperatorSpec = { function: 'NULL', params: NONE, meaning: 'the value is missing' }
const notNull: OperatorSpec = { function: 'NOT_NULL', params: NONE, meaning: 'the value is present' }

/** The operator catalogue per data type, as data: the UI offers it, the compiler follows it. */
export const OPERATORS: Readonly<Record<DataType, readonly OperatorSpec[]>> = {
  string: [
    { function: 'EQ', params: { kind: 'values', of: 'string' }, meaning: 'equals one of the params (several params: IN)' },
    { function: 'NOT_EQ', params: { kind: 'values', of: 'string' }, meaning: 'equals none of the params (several params: NOT IN); a missing value does not match' },
    { function: 'CONTAIN', params: { kind: 'values', of: 'text' }, meaning: 'contains one of the params as a substring' },
    { function: 'NOT_CONTAIN', params: { kind: 'values', of: 'text' }, meaning: 'contains none of the params; a missing value does not match' },
    isNull,
    notNull,
  ],
  number: [
    { function: 'EQ', params: { kind: 'values', of: 'number' }, meaning: 'equals one of the params (several params: IN)' },
    { function: 'NOT_EQ', params: { kind: 'values', of: 'number' }, meaning: 'equals none of the params; a missing value does not match' },
    { function: 'GT', params: { kind: 'one', of: 'number' }, meaning: 'greater than the param' },
    { function: 'GTE', params: { kind: 'one', of: 'number' }, meaning: 'greater than or equal to the param' },
    { function: 'LT', params: { kind: 'one', of: 'number' }, meaning: 'less than the param' },
    { function: 'LTE', params: { kind: 'one', of: 'number' }, meaning: 'less than or equal to the param' },
    { function: 'RANGE', params: { kind: 'range' }, meaning: 'between the two params, both included' },
    isNull,
    notNull,
  ],
  boolean: [
    { function: 'TRUE', params: NONE, meaning: 'the value is true' },
    { function: 'FALSE', params: NONE, meaning: 'the value is false' },
    isNull,
    notNull,
  ],
  datetime: [
    { function: 'ABSOLUTE_TIME', params: { kind: 'absoluteTime' }, meaning: 'between the two times, both included, in the project time zone' },
    { function: 'RELATIVE_TIME_OF_CUURENT', params: { kind: 'relativeTime' }, meaning: 'within: in the last n units up to now; before: earlier than n units ago' },
    { function: 'RELATIVE_TIME_RANGE_CUURENT', params: { kind: 'relativeRange' }, meaning: 'from `from` units ago to `to` units ago, whole units, both included (0 = the current unit)' },
    { function: 'RELATIVE_TIME_OF_EVENT', params: { kind: 'relativeTime' }, meaning: "as RELATIVE_TIME_OF_CUURENT, counted back from the event's own time instead of now" },
    isNull,
    notNull,
  ],
  'array<string>': [
    { function: 'EQ', params: { kind: 'values', of: 'string' }, meaning: 'the list holds an element equal to one of the params' },
    { function: 'CONTAIN', params: { kind: 'values', of: 'text' }, meaning: 'an element of the list contains one of the params as a substring' },
    { function: 'NOT_CONTAIN', params: { kind: 'values', of: 'text' }, meaning: 'no element contains any of the params; a missing list does not match' },
    isNull,
    notNull,
  ],
}

export type FilterRelation = 'AND' | 'OR'
export type ParamValue = string | number

export interface FilterCondition {
  expression: string
  function: string
  params: ParamValue[]
}

/** A filter as stored and as the spec writes it. */
export interface Filter {
  conditions: FilterCondition[]
  relation: FilterRelation
}

export interface CheckedCondition extends FilterCondition {
  ref: PropertyRef
  dataType: DataType
  operator: OperatorSpec
}

export interface CheckedFilter {
  conditions: CheckedCondition[]
  relation: FilterRelation
}

/**
 * Reads `event.<eventId>.<propertyId>` or `user.<propertyId>`. Property ids are folded to lower
 * case as data folds them; event ids keep their case.
 */
export function parsePropertyExpression(expression: string): PropertyRef | undefined {
  const event = /^event\.([^.\s]+)\.([^.\s]+)$/.exec(expression)
  if (event) return { kind: 'event', eventId: event[1], propertyId: event[2].toLowerCase() }
  const user = /^user\.([^.\s]+)$/.exec(expression)
  if (user) return { kind: 'user', propertyId: user[1].toLowerCase() }
  return undefined
}

export function expressionOf(ref: PropertyRef): string {
  return ref.kind === 'event' ? `event.${ref.eventId}.${ref.propertyId}` : `user.${ref.propertyId}`
}

/** The stored form of a checked filter (what the spec's JSON looks like). */
export function plainFilter(filter: CheckedFilter): Filter {
  return {
    conditions: filter.conditions.map((c) => ({ expression: c.expression, function: c.function, params: c.params })),
    relation: filter.relation,
  }
}


function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function onlyKeys(value: Record<string, unknown>, allowed: string[], path: string): void {
  ignoreUnknown(value, allowed, path)
}

/**
 * Checks a filter and returns it normalised: relation in upper case (default AND), property ids
 * folded, relative-time units in lower case. `path` prefixes every parameter name in a 400.
 */
export function validateFilter(filter: unknown, path: string, lookup: PropertyLookup): CheckedFilter {
  if (!isRecord(filter)) throw badParam(path, `${path} must be an object with conditions and relation`)
  onlyKeys(filter, ['conditions', 'relation'], path)
  const relation = filter.relation === undefined || filter.relation === null ? 'AND' : word(filter.relation, ['AND', 'OR'])
  if (relation !== 'AND' && relation !== 'OR') throw badParam(`${path}.relation`, `${path}.relation must be AND or OR (in any letter case)`)
  // an empty filter object, as the platform reads it: no filter
  if (filter.conditions === undefined || filter.conditions === null) return { conditions: [], relation }
  if (!Array.isArray(filter.conditions)) throw badParam(`${path}.conditions`, `${path}.conditions must be a list of conditions`)
  const conditions = filter.conditions.map((c, i) => checkCondition(c, `${path}.conditions[${i}]`, lookup))
  return { conditions, relation }
}

function checkCondition(condition: unknown, path: string, lookup: PropertyLookup): CheckedCondition {
  if (!isRecord(condition)) throw badParam(path, `${path} must be an object with expression, function and params`)
  onlyKeys(condition, ['expression', 'function', 'params'], path)
  const { expression, function: fn, params } = condition
  if (typeof expression !== 'string' || expression === '') throw badParam(`${path}.expression`, `${path}.expression is required`)
  const ref = parsePropertyExpression(expression)
  if (!ref) throw badParam(`${path}.expression`, `${path}.expression must be event.<eventId>.<propertyId> or user.<propertyId>`)
  const dataType = lookup(ref)
  if (!dataType) throw badParam(`${path}.expression`, `${path}.expression: ${expressionOf(ref)} is not a known property`)
  if (typeof fn !== 'string' || fn === '') throw badParam(`${path}.function`, `${path}.function is required`)
  const operator = OPERATORS[dataType].find((o) => o.function === fn.toUpperCase())
  if (!operator) {
    const allowed = OPERATORS[dataType].map((o) => o.function).join(', ')
    throw badParam(`${path}.function`, `${path}.function: ${fn} does not apply to ${dataType === 'array<string>' ? 'an' : 'a'} ${dataType} property (use ${allowed})`)
  }
  if (params !== undefined && !Array.isArray(params)) throw badParam(`${path}.params`, `${path}.params must be a list`)
  // numbers sent as decimal strings (and strings as numbers) where the property's type says which
  const lenient = ((params ?? []) as unknown[]).map((v) => (dataType === 'number' ? numeric(v) : dataType === 'string' || dataType === 'array<string>' ? textual(v) : v))
  const checked = checkParams(operator, lenient, `${path}.params`)
  return { expression: expressionOf(ref), function: operator.function, params: checked, ref, dataType, operator }
}

const TIME = /^(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2})(?::(\d{2}))?$/

/** A "yyyy/MM/dd HH:mm[:ss]" that names a real moment, as a sortable key; undefined otherwise. */
function timeKey(value: unknown): string | undefined {
  const m = typeof value === 'string' ? TIME.exec(value) : null
  if (!m) return undefined
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '00'].map(Number)
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s))
  const real = date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d && h < 24 && mi < 60 && s < 60
  return real ? date.toISOString() : undefined
}

const isWhole = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0
const isUnit = (v: unknown): boolean => typeof v === 'string' && (TIME_UNITS as readonly string[]).includes(v.toLowerCase())

function checkParams(operator: OperatorSpec, params: unknown[], path: string): ParamValue[] {
  const fail = (rule: string) => badParam(path, `${path}: ${operator.function} takes ${rule}`)
  const shape = operator.params
  switch (shape.kind) {
    case 'none':
      if (params.length > 0) throw fail('no params')
      return []
    case 'values': {
      const ok = shape.of === 'number' ? (v: unknown) => typeof v === 'number' : shape.of === 'text' ? (v: unknown) => typeof v === 'string' && v !== '' : (v: unknown) => typeof v === 'string'
      const what = shape.of === 'number' ? 'numbers' : shape.of === 'text' ? 'non-empty strings' : 'strings'
      if (params.length === 0 || !params.every(ok)) throw fail(`one or more ${what}`)
      return params as ParamValue[]
    }
    case 'one':
      if (params.length !== 1 || typeof params[0] !== 'number') throw fail('exactly one number')
      return params as number[]
    case 'range':
      if (params.length !== 2 || typeof params[0] !== 'number' || typeof params[1] !== 'number' || params[0] > params[1]) {
        throw fail('two numbers [low, high] with low <= high')
      }
      return params as number[]
    case 'absoluteTime': {
      const [from, to] = params.map(timeKey)
      if (params.length !== 2 || !from || !to || from > to) throw fail('two times "yyyy/MM/dd HH:mm" [from, to] with from <= to')
      return params as string[]
    }
    case 'relativeTime':
      // the counts may come as decimal strings ("7"), as the platform reads them
      params = [numeric(params[0]), ...params.slice(1)]
      if (params.length !== 3 || !isWhole(params[0]) || !isUnit(params[1]) || !(TIME_DIRECTIONS as readonly unknown[]).includes(params[2])) {
        throw fail(`[n, unit, "within" | "before"] with n a whole number >= 0 and unit one of ${TIME_UNITS.join(', ')}`)
      }
      return [params[0], (params[1] as string).toLowerCase(), params[2] as string]
    case 'relativeRange':
      params = [numeric(params[0]), numeric(params[1]), ...params.slice(2)]
      if (params.length !== 3 || !isWhole(params[0]) || !isWhole(params[1]) || params[0] < params[1] || !isUnit(params[2])) {
        throw fail(`[from, to, unit] with whole numbers from >= to >= 0 and unit one of ${TIME_UNITS.join(', ')}`)
      }
      return [params[0], params[1], (params[2] as string).toLowerCase()]
  }
}
