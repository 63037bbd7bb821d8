import { common, compared, numbers } from './events'

/** Response schema of funnel (spec 4.10, spec-notes "Analysis responses"). */
export const funnelsResponse = {
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
      items: {
        type: 'object',
        properties: {
          byValue: { type: ['number', 'string'], description: '-1 for the total, else the breakdown value ("unknown" for none).' },
          stepsDetail: {
            type: 'array',
            description: 'One entry per step.',
            items: {
              type: 'object',
              properties: {
                expression: { type: 'string' },
                convertedUser: { type: 'array', items: { type: 'integer' }, description: 'Users who reached at least this step, by dateList index.' },
              },
            },
          },
          medianConvertedTime: {
            type: 'array',
            description: 'One entry per pair of consecutive steps (one fewer than steps).',
            items: {
              type: 'object',
              properties: {
                stepsExpress: { type: 'string', description: '"<step a expression>~<step b expression>".' },
                median: { ...numbers, description: 'Median seconds from step a to step b over the users who reached step b, by dateList index; null where nobody did.' },
              },
            },
          },
          previous: {
            type: 'object',
            description: 'With compare: the row over the compared range, by index of dateList: $ALL the whole compared range, a day its counterpart (null where none). A breakdown value absent there counts 0.',
            properties: {
              stepsDetail: { type: 'array', items: { type: 'object', properties: { expression: { type: 'string' }, convertedUser: { type: 'array', items: { type: ['integer', 'null'] } } } } },
              medianConvertedTime: { type: 'array', items: { type: 'object', properties: { stepsExpress: { type: 'string' }, median: numbers } } },
            },
          },
        },
      },
    },
    compare: compared('dateList', 'day'),
    ...common,
  },
} as const
