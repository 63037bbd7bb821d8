import { exact } from '../common'
import { common, compared, numbers } from './events'

/** Response schema of funnel (spec 4.10, spec-notes "Analysis responses"). */
export const funnelsResponse = exact({
  type: 'object',
  properties: {
    dateList: {
      type: 'array',
      items: { type: 'string' },
      description: 'Columns of every number list: "$ALL" (the whole range, each user once), then each day of the range as "yyyy/MM/dd 00:00:00" (the entry day).',
    },
    byField: { type: ['string', 'null'], description: 'The breakdown expression, or null.' },
    byValues: {
      type: 'array',
      items: { type: ['number', 'string'] },
      description: 'The rows\' byValue in order: -1 (the total), then the breakdown values.',
    },
    stepEvents: { type: 'array', items: { type: 'string' }, description: 'The step expressions, in order.' },
    rows: {
      type: 'array',
      description: 'The total row (byValue -1) first, then one row per breakdown value.',
      items: exact({
        type: 'object',
        properties: {
          byValue: { type: ['number', 'string'], description: '-1 for the total, else the breakdown value ("unknown" for none).' },
          stepsDetail: {
            type: 'array',
            description: 'One entry per step.',
            items: exact({
              type: 'object',
              properties: {
                expression: { type: 'string' },
                convertedUser: { type: 'array', items: { type: 'integer' }, description: 'Users who reached at least this step, by dateList index.' },
              },
            } as const),
          },
          medianConvertedTime: {
            type: 'array',
            description: 'One entry per pair of consecutive steps (one fewer than steps).',
            items: exact({
              type: 'object',
              properties: {
                stepsExpress: { type: 'string', description: '"<step a expression>~<step b expression>".' },
                median: { ...numbers, description: 'Median seconds from step a to step b over the users who reached step b, by dateList index; null where nobody did.' },
              },
            } as const),
          },
          previous: exact({
            type: 'object',
            description: 'With compare: the row over the compared range, by index of dateList: $ALL the whole compared range, a day its counterpart (null where none). A breakdown value absent there counts 0.',
            properties: {
              stepsDetail: { type: 'array', items: exact({ type: 'object', properties: { expression: { type: 'string' }, convertedUser: { type: 'array', items: { type: ['integer', 'null'] } } } } as const) },
              medianConvertedTime: { type: 'array', items: exact({ type: 'object', properties: { stepsExpress: { type: 'string' }, median: numbers } } as const) },
            },
          } as const),
        },
      } as const, ['previous']),
    },
    compare: compared('dateList', 'day'),
    timeToConvert: exact({
      type: 'object',
      description:
        'Only with the request\'s timeToConvert: the users of the total\'s $ALL column who reached toStep, by the seconds from fromStep to toStep on their counted path (in order ANY: from when steps 1..fromStep+1 were all done to when steps 1..toStep+1 were). Buckets start at 0, 10, 30, 60, 300, 900, 1800, 3600, 10800, 21600, 43200 s, 1, 2, 3, 7, 14 and 30 days, up to the one holding the window\'s end; the last has no end.',
      properties: {
        fromStep: { type: 'integer' },
        toStep: { type: 'integer' },
        buckets: {
          type: 'array',
          items: exact({
            type: 'object',
            properties: {
              from: { type: 'number', description: 'Seconds, inclusive.' },
              to: { type: ['number', 'null'], description: 'Seconds, exclusive; null for the last bucket.' },
              users: { type: 'integer' },
            },
          } as const),
        },
      },
    } as const),
    ...common,
  },
} as const, ['compare', 'timeToConvert', 'sql'])
