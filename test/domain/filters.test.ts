import { describe, expect, it } from 'vitest'
import { AppError } from '../../src-main/domain/errors'
import { OPERATORS, parsePropertyExpression, plainFilter, validateFilter } from '../../src-main/domain/expr/filters'
import type { PropertyLookup } from '../../src-main/domain/schema/lookup'
import type { DataType } from '../../src-main/domain/schema/types'

/** A plan with one property of each type on event `buy`, and two user properties. */
const types: Record<string, DataType> = {
  'event.buy.city': 'string',
  'event.buy.price': 'number',
  'event.buy.paid': 'boolean',
  'event.buy.paid_at': 'datetime',
  'event.buy.tags': 'array<string>',
  'user.vip': 'boolean',
  'user.$signup_time': 'datetime',
}
const lookup: PropertyLookup = (ref) => types[ref.kind === 'event' ? `event.${ref.eventId}.${ref.propertyId}` : `user.${ref.propertyId}`]

const one = (expression: string, fn: string, params?: unknown) => ({ conditions: [{ expression, function: fn, ...(params === undefined ? {} : { params }) }], relation: 'AND' })

function refusal(filter: unknown): { data: unknown; msg: string } {
  try {
    validateFilter(filter, 'filter', lookup)
  } catch (err) {
    expect(err).toBeInstanceOf(AppError)
    const e = err as AppError
    expect(e.status).toBe(400)
    return { data: e.data, msg: e.message }
  }
  throw new Error('the filter was accepted')
}

describe('operator catalogue', () => {
  it('is exactly the spec-notes list per data type', () => {
    const names = Object.fromEntries(Object.entries(OPERATORS).map(([type, ops]) => [type, ops.map((o) => o.function)]))
    expect(names).toEqual({
      string: ['EQ', 'NOT_EQ', 'CONTAIN', 'NOT_CONTAIN', 'NULL', 'NOT_NULL'],
      number: ['EQ', 'NOT_EQ', 'GT', 'GTE', 'LT', 'LTE', 'RANGE', 'NULL', 'NOT_NULL'],
      boolean: ['TRUE', 'FALSE', 'NULL', 'NOT_NULL'],
      datetime: ['ABSOLUTE_TIME', 'RELATIVE_TIME_OF_CUURENT', 'RELATIVE_TIME_RANGE_CUURENT', 'RELATIVE_TIME_OF_EVENT', 'NULL', 'NOT_NULL'],
      'array<string>': ['EQ', 'CONTAIN', 'NOT_CONTAIN', 'NULL', 'NOT_NULL'],
    })
  })
})

describe('expressions', () => {
  it('reads event and user property expressions, folding property ids only', () => {
    expect(parsePropertyExpression('event.PayOrder.Amount')).toEqual({ kind: 'event', eventId: 'PayOrder', propertyId: 'amount' })
    expect(parsePropertyExpression('event.$Anything.$os')).toEqual({ kind: 'event', eventId: '$Anything', propertyId: '$os' })
    expect(parsePropertyExpression('user.$City')).toEqual({ kind: 'user', propertyId: '$city' })
    expect(parsePropertyExpression('event.buy')).toBeUndefined()
    expect(parsePropertyExpression('user.a.b')).toBeUndefined()
    expect(parsePropertyExpression('cohort.x')).toBeUndefined()
  })
})

describe('validateFilter accepts', () => {
  it.each([
    ['event.buy.city', 'EQ', ['Paris']],
    ['event.buy.city', 'EQ', ['Paris', 'Lyon', '']],
    ['event.buy.city', 'NOT_EQ', ['Paris', 'Lyon']],
    ['event.buy.city', 'CONTAIN', ['ar']],
    ['event.buy.city', 'NOT_CONTAIN', ['ar', 'ly']],
    ['event.buy.city', 'NULL', []],
    ['event.buy.price', 'EQ', [1, 2.5]],
    ['event.buy.price', 'NOT_EQ', [0]],
    ['event.buy.price', 'GT', [-3]],
    ['event.buy.price', 'GTE', [0]],
    ['event.buy.price', 'LT', [10]],
    ['event.buy.price', 'LTE', [10]],
    ['event.buy.price', 'RANGE', [10, 10]],
    ['event.buy.price', 'NOT_NULL', []],
    ['event.buy.paid', 'TRUE', []],
    ['event.buy.paid', 'FALSE', []],
    ['user.vip', 'NULL', []],
    ['event.buy.paid_at', 'ABSOLUTE_TIME', ['2024/02/29 00:00', '2024/03/01 23:59']],
    ['event.buy.paid_at', 'ABSOLUTE_TIME', ['2024/01/01 10:00:00', '2024/01/01 10:00:30']],
    ['event.buy.paid_at', 'RELATIVE_TIME_OF_CUURENT', [7, 'day', 'within']],
    ['event.buy.paid_at', 'RELATIVE_TIME_OF_CUURENT', [0, 'month', 'before']],
    ['user.$signup_time', 'RELATIVE_TIME_RANGE_CUURENT', [6, 0, 'day']],
    ['user.$signup_time', 'RELATIVE_TIME_OF_EVENT', [2, 'hour', 'within']],
    ['event.buy.tags', 'EQ', ['red']],
    ['event.buy.tags', 'CONTAIN', ['re', 'bl']],
    ['event.buy.tags', 'NOT_CONTAIN', ['x']],
    ['event.buy.tags', 'NOT_NULL', []],
  ])('%s %s %j', (expression, fn, params) => {
    const checked = validateFilter(one(expression, fn, params), 'filter', lookup)
    expect(plainFilter(checked)).toEqual(one(expression, fn, params))
    expect(checked.conditions[0].dataType).toBe(types[expression])
  })

  it('normalises: relation in upper case (AND by default), property ids folded, units in lower case, omitted params as []', () => {
    const checked = validateFilter(
      { conditions: [{ expression: 'event.buy.PRICE', function: 'GT', params: [1] }, { expression: 'event.buy.paid_at', function: 'RELATIVE_TIME_OF_CUURENT', params: [3, 'DAY', 'within'] }, { expression: 'user.vip', function: 'TRUE' }], relation: 'or' },
      'filter',
      lookup,
    )
    expect(plainFilter(checked)).toEqual({
      conditions: [
        { expression: 'event.buy.price', function: 'GT', params: [1] },
        { expression: 'event.buy.paid_at', function: 'RELATIVE_TIME_OF_CUURENT', params: [3, 'day', 'within'] },
        { expression: 'user.vip', function: 'TRUE', params: [] },
      ],
      relation: 'OR',
    })
    expect(checked.conditions[0].ref).toEqual({ kind: 'event', eventId: 'buy', propertyId: 'price' })
    expect(validateFilter({ conditions: [] }, 'filter', lookup)).toEqual({ conditions: [], relation: 'AND' })
    expect(validateFilter({ conditions: [], relation: 'and' }, 'filter', lookup).relation).toBe('AND')
  })
})

describe('validateFilter reads a filter as the platform\'s server does', () => {
  it('ignores unknown keys, takes operators and relations in any case, numbers as decimal strings and strings as numbers', () => {
    const checked = validateFilter(
      {
        conditions: [
          { expression: 'event.buy.price', function: 'gt', params: ['1.5'], type: 'event' },
          { expression: 'event.buy.city', function: 'Eq', params: [1] },
        ],
        relation: 'Or',
        op: 1,
      },
      'filter',
      lookup,
    )
    expect(plainFilter(checked)).toEqual({
      conditions: [
        { expression: 'event.buy.price', function: 'GT', params: [1.5] },
        { expression: 'event.buy.city', function: 'EQ', params: ['1'] },
      ],
      relation: 'OR',
    })
  })

  it('reads an empty filter object, or one without conditions, as no filter', () => {
    expect(validateFilter({}, 'filter', lookup)).toEqual({ conditions: [], relation: 'AND' })
    expect(validateFilter({ relation: 'AND' }, 'filter', lookup)).toEqual({ conditions: [], relation: 'AND' })
  })
})

describe('validateFilter refuses with a 400 naming the parameter', () => {
  const at = (field: string) => [`filter.conditions[0].${field}`]
  it.each([
    ['a list instead of an object', [], ['filter'], 'filter must be an object with conditions and relation'],
    ['an unknown relation', { conditions: [], relation: 'NOT' }, ['filter.relation'], 'filter.relation must be AND or OR (in any letter case)'],
    ['a word for a number', one('event.buy.price', 'EQ', ['one']), at('params'), 'filter.conditions[0].params: EQ takes one or more numbers'],
    ['an operator of another type in lower case', one('event.buy.price', 'contain', ['1']), at('function'), 'filter.conditions[0].function: contain does not apply to a number property (use EQ, NOT_EQ, GT, GTE, LT, LTE, RANGE, NULL, NOT_NULL)'],
    ['a condition that is not an object', { conditions: ['x'] }, ['filter.conditions[0]'], 'filter.conditions[0] must be an object with expression, function and params'],
    ['a missing expression', { conditions: [{ function: 'TRUE' }] }, at('expression'), 'filter.conditions[0].expression is required'],
    ['an event expression without property', one('event.buy', 'NULL'), at('expression'), 'filter.conditions[0].expression must be event.<eventId>.<propertyId> or user.<propertyId>'],
    ['an unknown property', one('event.buy.nope', 'NULL'), at('expression'), 'filter.conditions[0].expression: event.buy.nope is not a known property'],
    ['an unknown event', one('event.sell.price', 'NULL'), at('expression'), 'filter.conditions[0].expression: event.sell.price is not a known property'],
    ['a missing function', { conditions: [{ expression: 'user.vip' }] }, at('function'), 'filter.conditions[0].function is required'],
    ['GT on a string', one('event.buy.city', 'GT', [1]), at('function'), 'filter.conditions[0].function: GT does not apply to a string property (use EQ, NOT_EQ, CONTAIN, NOT_CONTAIN, NULL, NOT_NULL)'],
    ['EQ on a boolean', one('user.vip', 'EQ', [true]), at('function'), 'filter.conditions[0].function: EQ does not apply to a boolean property (use TRUE, FALSE, NULL, NOT_NULL)'],
    ['NOT_EQ on a list', one('event.buy.tags', 'NOT_EQ', ['a']), at('function'), 'filter.conditions[0].function: NOT_EQ does not apply to an array<string> property (use EQ, CONTAIN, NOT_CONTAIN, NULL, NOT_NULL)'],
    ['RANGE on a datetime', one('event.buy.paid_at', 'RANGE', [1, 2]), at('function'), 'filter.conditions[0].function: RANGE does not apply to a datetime property (use ABSOLUTE_TIME, RELATIVE_TIME_OF_CUURENT, RELATIVE_TIME_RANGE_CUURENT, RELATIVE_TIME_OF_EVENT, NULL, NOT_NULL)'],
    ['params that are not a list', one('event.buy.price', 'GT', 1), at('params'), 'filter.conditions[0].params must be a list'],
    ['EQ without params', one('event.buy.city', 'EQ', []), at('params'), 'filter.conditions[0].params: EQ takes one or more strings'],
    ['an empty CONTAIN', one('event.buy.city', 'CONTAIN', ['']), at('params'), 'filter.conditions[0].params: CONTAIN takes one or more non-empty strings'],
    ['two params for GT', one('event.buy.price', 'GT', [1, 2]), at('params'), 'filter.conditions[0].params: GT takes exactly one number'],
    ['one param for RANGE', one('event.buy.price', 'RANGE', [1]), at('params'), 'filter.conditions[0].params: RANGE takes two numbers [low, high] with low <= high'],
    ['a reversed RANGE', one('event.buy.price', 'RANGE', [5, 1]), at('params'), 'filter.conditions[0].params: RANGE takes two numbers [low, high] with low <= high'],
    ['params for NULL', one('event.buy.price', 'NULL', [0]), at('params'), 'filter.conditions[0].params: NULL takes no params'],
    ['params for TRUE', one('user.vip', 'TRUE', [true]), at('params'), 'filter.conditions[0].params: TRUE takes no params'],
    ['a dashed date', one('event.buy.paid_at', 'ABSOLUTE_TIME', ['2024-01-01 00:00', '2024-01-02 00:00']), at('params'), 'filter.conditions[0].params: ABSOLUTE_TIME takes two times "yyyy/MM/dd HH:mm" [from, to] with from <= to'],
    ['a date that does not exist', one('event.buy.paid_at', 'ABSOLUTE_TIME', ['2023/02/29 00:00', '2023/03/01 00:00']), at('params'), 'filter.conditions[0].params: ABSOLUTE_TIME takes two times "yyyy/MM/dd HH:mm" [from, to] with from <= to'],
    ['an hour 24', one('event.buy.paid_at', 'ABSOLUTE_TIME', ['2023/02/01 24:00', '2023/03/01 00:00']), at('params'), 'filter.conditions[0].params: ABSOLUTE_TIME takes two times "yyyy/MM/dd HH:mm" [from, to] with from <= to'],
    ['reversed times', one('event.buy.paid_at', 'ABSOLUTE_TIME', ['2024/01/02 00:00', '2024/01/01 00:00']), at('params'), 'filter.conditions[0].params: ABSOLUTE_TIME takes two times "yyyy/MM/dd HH:mm" [from, to] with from <= to'],
    ['one time', one('event.buy.paid_at', 'ABSOLUTE_TIME', ['2024/01/01 00:00']), at('params'), 'filter.conditions[0].params: ABSOLUTE_TIME takes two times "yyyy/MM/dd HH:mm" [from, to] with from <= to'],
    ['a negative n', one('event.buy.paid_at', 'RELATIVE_TIME_OF_CUURENT', [-1, 'day', 'within']), at('params'), 'filter.conditions[0].params: RELATIVE_TIME_OF_CUURENT takes [n, unit, "within" | "before"] with n a whole number >= 0 and unit one of minute, hour, day, week, month'],
    ['a word for n', one('event.buy.paid_at', 'RELATIVE_TIME_OF_CUURENT', ['seven', 'day', 'within']), at('params'), 'filter.conditions[0].params: RELATIVE_TIME_OF_CUURENT takes [n, unit, "within" | "before"] with n a whole number >= 0 and unit one of minute, hour, day, week, month'],
    ['an unknown unit', one('event.buy.paid_at', 'RELATIVE_TIME_OF_EVENT', [7, 'fortnight', 'within']), at('params'), 'filter.conditions[0].params: RELATIVE_TIME_OF_EVENT takes [n, unit, "within" | "before"] with n a whole number >= 0 and unit one of minute, hour, day, week, month'],
    ['an unknown direction', one('event.buy.paid_at', 'RELATIVE_TIME_OF_CUURENT', [7, 'day', 'after']), at('params'), 'filter.conditions[0].params: RELATIVE_TIME_OF_CUURENT takes [n, unit, "within" | "before"] with n a whole number >= 0 and unit one of minute, hour, day, week, month'],
    ['a reversed relative range', one('event.buy.paid_at', 'RELATIVE_TIME_RANGE_CUURENT', [0, 6, 'day']), at('params'), 'filter.conditions[0].params: RELATIVE_TIME_RANGE_CUURENT takes [from, to, unit] with whole numbers from >= to >= 0 and unit one of minute, hour, day, week, month'],
    ['a fractional relative range', one('event.buy.paid_at', 'RELATIVE_TIME_RANGE_CUURENT', [1.5, 0, 'day']), at('params'), 'filter.conditions[0].params: RELATIVE_TIME_RANGE_CUURENT takes [from, to, unit] with whole numbers from >= to >= 0 and unit one of minute, hour, day, week, month'],
  ])('%s', (_case, filter, data, msg) => {
    expect(refusal(filter)).toEqual({ data, msg })
  })

  it('names the failing condition by its index under the given path', () => {
    const filter = { conditions: [{ expression: 'user.vip', function: 'TRUE' }, { expression: 'event.buy.price', function: 'TRUE' }], relation: 'AND' }
    try {
      validateFilter(filter, 'events[2].filter', lookup)
      throw new Error('accepted')
    } catch (err) {
      expect((err as AppError).data).toEqual(['events[2].filter.conditions[1].function'])
    }
  })
})
