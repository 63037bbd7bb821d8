import { exact } from '../common'
import { common, numbers } from './events'

/** Response schema of retention (spec 4.10). */
export const retentionResponse = exact({
  type: 'object',
  properties: {
    byField: { type: ['string', 'null'], description: 'The breakdown expression, or null without one.' },
    rows: {
      type: 'array',
      description: 'First the $ALL row (all users, de-duplicated across periods); then one row per initial period (no breakdown) or per breakdown value.',
      items: exact({
        type: 'object',
        properties: {
          byValue: { type: 'string', description: '$ALL, a period start "yyyy/MM/dd HH:mm:ss", or a breakdown value (interval labels like "-∞~600"; "unknown" for a missing value).' },
          totalPeople: { type: 'integer', description: 'Users who did the initial event.' },
          retentionPeoples: { ...numbers, description: 'Index k: of those users, the ones who did the return event in period +k (0 = the same period); null where period +k starts after the latest day with data.' },
          measures: {
            type: ['array', 'null'],
            items: { type: ['number', 'null'] },
            description: 'With a measure: its value over the counted return events, aligned with retentionPeoples; else null.',
          },
        },
      } as const),
    },
    ...common,
  },
} as const, ['sql'])
