import type { DataType } from '../../api/schema'

/**
 * The filter operators per data type (spec-notes, "Operators per data type") and the shape of
 * their params, as the filter editor offers them. The server checks the same catalogue.
 */

export type ParamKind = 'none' | 'values' | 'numbers' | 'one' | 'range' | 'absoluteTime' | 'relativeTime' | 'relativeRange'

export interface Operator {
  fn: string
  label: string
  params: ParamKind
}

const NULLS: Operator[] = [
  { fn: 'NULL', label: 'is empty', params: 'none' },
  { fn: 'NOT_NULL', label: 'is not empty', params: 'none' },
]

export const OPERATORS: Record<DataType, Operator[]> = {
  string: [
    { fn: 'EQ', label: 'is', params: 'values' },
    { fn: 'NOT_EQ', label: 'is not', params: 'values' },
    { fn: 'CONTAIN', label: 'contains', params: 'values' },
    { fn: 'NOT_CONTAIN', label: 'does not contain', params: 'values' },
    ...NULLS,
  ],
  number: [
    { fn: 'EQ', label: '=', params: 'numbers' },
    { fn: 'NOT_EQ', label: '≠', params: 'numbers' },
    { fn: 'GT', label: '>', params: 'one' },
    { fn: 'GTE', label: '≥', params: 'one' },
    { fn: 'LT', label: '<', params: 'one' },
    { fn: 'LTE', label: '≤', params: 'one' },
    { fn: 'RANGE', label: 'between', params: 'range' },
    ...NULLS,
  ],
  boolean: [{ fn: 'TRUE', label: 'is true', params: 'none' }, { fn: 'FALSE', label: 'is false', params: 'none' }, ...NULLS],
  datetime: [
    { fn: 'ABSOLUTE_TIME', label: 'between', params: 'absoluteTime' },
    { fn: 'RELATIVE_TIME_OF_CUURENT', label: 'relative to now', params: 'relativeTime' },
    { fn: 'RELATIVE_TIME_RANGE_CUURENT', label: 'in the range (units ago)', params: 'relativeRange' },
    { fn: 'RELATIVE_TIME_OF_EVENT', label: 'relative to the event', params: 'relativeTime' },
    ...NULLS,
  ],
  'array<string>': [
    { fn: 'EQ', label: 'has an element', params: 'values' },
    { fn: 'CONTAIN', label: 'has an element containing', params: 'values' },
    { fn: 'NOT_CONTAIN', label: 'has no element containing', params: 'values' },
    ...NULLS,
  ],
}

export const TIME_UNITS = ['minute', 'hour', 'day', 'week', 'month'] as const

export function operatorOf(type: DataType, fn: string): Operator | undefined {
  return OPERATORS[type].find((o) => o.fn === fn)
}

/** The params a new condition of this operator starts with. */
export function defaultParams(kind: ParamKind): (string | number)[] {
  switch (kind) {
    case 'relativeTime':
      return [7, 'day', 'within']
    case 'relativeRange':
      return [7, 0, 'day']
    case 'range':
      return [0, 100]
    case 'absoluteTime':
      return ['', '']
    default:
      return []
  }
}

/** Several values typed as one text, separated by commas. */
export function splitValues(text: string, numbers: boolean): (string | number)[] {
  const parts = text.split(',').map((s) => s.trim()).filter((s) => s !== '')
  return numbers ? parts.map(Number) : parts
}

/** "yyyy-MM-ddTHH:mm" (a datetime-local input) as the API writes times, "yyyy/MM/dd HH:mm", and back. */
export const toApiTime = (local: string) => local.replace(/-/g, '/').replace('T', ' ')
export const fromApiTime = (api: string) => String(api).slice(0, 16).replace(/\//g, '-').replace(' ', 'T')
