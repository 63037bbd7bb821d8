/** Response schema of event analysis (spec 4.10), and the fields every analysis adds. */

import { exact } from '../common'

const explained = {
  type: 'array',
  description: 'With explain=true: the SQL that ran, with its bound values.',
  items: exact({ type: 'object', properties: { sql: { type: 'string' }, params: { type: 'array' } } } as const),
} as const

export const common = {
  reportUpdateTime: { type: 'string', description: 'When the result was computed, yyyy-MM-dd HH:mm:ss in the project time zone.' },
  samplingFactor: { type: 'number' },
  sql: explained,
} as const

export const numbers = { type: 'array', items: { type: ['number', 'null'] } } as const

const formulaSeries = exact({
  type: 'object',
  description: 'With formula: its value over the whole range (from the measures\' sums) and per period; null where a measure has no value or a divisor is 0.',
  properties: { sum: { type: ['number', 'null'] }, values: numbers },
} as const)

/** With compare: which range was compared, and the counterpart of each period. */
export const compared = (list: string, about: string) =>
  exact({
    type: 'object',
    description: `With compare: the compared range and, by index of ${list}, the ${about} compared with it (null where none has a counterpart: 29 February a year later).`,
    properties: {
      mode: { type: 'string', enum: ['previous', 'week', 'year'] },
      fromDate: { type: 'string', format: 'date' },
      toDate: { type: 'string', format: 'date' },
      [list]: { type: 'array', items: { type: ['string', 'null'] } },
    },
  } as const)

export const eventsResponse = exact({
    type: 'object',
    properties: {
      measures: { type: 'array', items: { type: 'string' } },
      byFields: { type: 'array', items: { type: 'string' } },
      series: { type: 'array', items: { type: 'string' }, description: 'Period starts, yyyy-MM-dd.' },
      rows: {
        type: 'array',
        items: exact({
          type: 'object',
          properties: {
            sum: numbers,
            values: { type: 'array', items: numbers, description: 'values[measure][series].' },
            byValue: { type: 'array', items: { type: 'string' } },
            formula: formulaSeries,
            previous: exact({
              type: 'object',
              description: 'With compare: the row over the compared range; values[measure][k] is the value of the counterpart of series[k] (null where none), sum the whole compared range. A value that did not occur there has 0 for counts and sums, null otherwise.',
              properties: { sum: numbers, values: { type: 'array', items: numbers }, formula: formulaSeries },
            } as const, ['formula']),
          },
        } as const, ['formula', 'previous']),
      },
      numRows: { type: 'integer' },
      formula: { type: 'string', description: 'With formula: the formula as read (upper-case letters, no spaces).' },
      compare: compared('series', 'period start'),
      ...common,
    },
  } as const, ['formula', 'compare', 'sql'])
