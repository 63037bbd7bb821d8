import { exact } from '../common'
import { common } from './events'

/** Response schema of user attribute analysis (spec 4.10); no sampling here, so no samplingFactor. */
export const userAttributesResponse = exact({
  type: 'object',
  properties: {
    measure: { type: 'string', description: '"users" for USER_COUNT, else "<property display name> · <aggregator>".' },
    byFields: { type: 'array', items: { type: 'string' }, description: 'The breakdown property expressions, in request order.' },
    rows: {
      type: 'array',
      items: exact({
        type: 'object',
        properties: {
          value: { type: ['number', 'null'], description: 'The measure over the users of the row; null for an average, maximum or minimum without any value.' },
          byValue: { type: 'array', items: { type: 'string' }, description: 'One label per byFields entry ("unknown" for a missing value, "a~b" for a number bucket); empty without byFields.' },
        },
      } as const),
    },
    reportUpdateTime: common.reportUpdateTime,
    sql: common.sql,
  },
} as const, ['sql'])
