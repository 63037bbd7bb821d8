import type { DataType, FilterFunction } from '../api/schema'

/**
 * The filter operators per data type (spec-notes "Operators per data type"), with the words the
 * UI shows: the one catalogue of every filter editor (charts, cohorts, virtual events). The server
 * keeps the same catalogue (domain/expr/filters.ts OPERATORS); a test checks that the two agree.
 */

/** How an operator's params are entered. */
export type ParamKind = 'none' | 'strings' | 'texts' | 'numbers' | 'number' | 'range' | 'absoluteTime' | 'relativeTime' | 'relativeRange'

export interface Operator {
  function: FilterFunction
  label: string
  params: ParamKind
}

const isNull: Operator = { function: 'NULL', label: 'is not set', params: 'none' }
const notNull: Operator = { function: 'NOT_NULL', label: 'is set', params: 'none' }

export const OPERATORS: Readonly<Record<DataType, readonly Operator[]>> = {
  string: [
    { function: 'EQ', label: 'is', params: 'strings' },
    { function: 'NOT_EQ', label: 'is not', params: 'strings' },
    { function: 'CONTAIN', label: 'contains', params: 'texts' },
    { function: 'NOT_CONTAIN', label: 'does not contain', params: 'texts' },
    isNull,
    notNull,
  ],
  number: [
    { function: 'EQ', label: '=', params: 'numbers' },
    { function: 'NOT_EQ', label: '≠', params: 'numbers' },
    { function: 'GT', label: '>', params: 'number' },
    { function: 'GTE', label: '≥', params: 'number' },
    { function: 'LT', label: '<', params: 'number' },
    { function: 'LTE', label: '≤', params: 'number' },
    { function: 'RANGE', label: 'between', params: 'range' },
    isNull,
    notNull,
  ],
  boolean: [
    { function: 'TRUE', label: 'is true', params: 'none' },
    { function: 'FALSE', label: 'is false', params: 'none' },
    isNull,
    notNull,
  ],
  datetime: [
    { function: 'RELATIVE_TIME_OF_CUURENT', label: 'relative to now', params: 'relativeTime' },
    { function: 'RELATIVE_TIME_RANGE_CUURENT', label: 'between … ago', params: 'relativeRange' },
    { function: 'ABSOLUTE_TIME', label: 'between dates', params: 'absoluteTime' },
    { function: 'RELATIVE_TIME_OF_EVENT', label: 'relative to the event', params: 'relativeTime' },
    isNull,
    notNull,
  ],
  'array<string>': [
    { function: 'EQ', label: 'has', params: 'strings' },
    { function: 'CONTAIN', label: 'has one containing', params: 'texts' },
    { function: 'NOT_CONTAIN', label: 'has none containing', params: 'texts' },
    isNull,
    notNull,
  ],
}

export const TIME_UNITS = ['minute', 'hour', 'day', 'week', 'month'] as const

export function operatorOf(dataType: DataType, fn: string): Operator | undefined {
  return OPERATORS[dataType].find((o) => o.function === fn)
}

/** The params an operator starts with, so that a fresh condition is close to complete. */
export function defaultParams(kind: ParamKind): (string | number)[] {
  switch (kind) {
    case 'relativeTime':
      return [7, 'day', 'within']
    case 'relativeRange':
      return [7, 0, 'day']
    default:
      return []
  }
}

const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && v >= 0
const TIME = /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}$/

/** Whether the params are complete for the operator (an incomplete condition is not applied). */
export function paramsComplete(kind: ParamKind, params: (string | number)[]): boolean {
  switch (kind) {
    case 'none':
      return true
    case 'strings':
      return params.length > 0 && params.every((p) => typeof p === 'string')
    case 'texts':
      return params.length > 0 && params.every((p) => typeof p === 'string' && p !== '')
    case 'numbers':
      return params.length > 0 && params.every((p) => typeof p === 'number' && Number.isFinite(p))
    case 'number':
      return params.length === 1 && typeof params[0] === 'number' && Number.isFinite(params[0])
    case 'range':
      return params.length === 2 && typeof params[0] === 'number' && typeof params[1] === 'number' && params[0] <= params[1]
    case 'absoluteTime':
      return params.length === 2 && params.every((p) => typeof p === 'string' && TIME.test(p)) && params[0] <= params[1]
    case 'relativeTime':
      return params.length === 3 && isCount(params[0]) && typeof params[1] === 'string' && (params[2] === 'within' || params[2] === 'before')
    case 'relativeRange':
      return params.length === 3 && isCount(params[0]) && isCount(params[1]) && (params[0] as number) >= (params[1] as number) && typeof params[2] === 'string'
  }
}
