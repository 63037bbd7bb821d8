import { exact } from '../common'
import { common } from './events'

/** Response schema of distribution (spec 4.10). */
export const distributionResponse = exact({
  type: 'object',
  properties: {
    measure: { type: 'string', description: 'The measure\'s name: "<event display name> · <aggregator>" (a property measure adds ".<property>" to the event).' },
    byField: { type: ['string', 'null'], description: 'The breakdown property expression, or null without a breakdown.' },
    series: {
      type: 'array',
      items: { type: 'string' },
      description: 'Interval labels "[a,b)" (lower bound included), the last possibly open "[a,+∞)"; the same intervals for every row. Empty when no user has a value.',
    },
    rows: {
      type: 'array',
      items: exact({
        type: 'object',
        properties: {
          sum: { type: 'integer', description: 'Users in this row (with a value of the measure).' },
          values: { type: 'array', items: { type: 'integer' }, description: 'Users per interval, by series index.' },
          byValue: { type: 'string', description: '"all" for the whole range (unit ""), the period start yyyy-MM-dd (unit DAY, WEEK, MONTH), or the breakdown value ("unknown" for a missing one, "a~b" for a number bucket).' },
        },
      } as const),
    },
    ...common,
  },
} as const, ['sql'])
