import type { MetaDb } from '../../store/meta'
import { jsonValue } from '../../warehouse/values'

/**
 * How property values look in user details, sequences and their exports: a masked property (plan
 * item `masking` 1) shows MASKED_VALUE instead of any value it has; a datetime shows as
 * yyyy-MM-dd HH:mm:ss; booleans, numbers, strings and lists as JSON has them.
 */

/** The text that stands in for the value of a masked property. */
export const MASKED_VALUE = '******'

export function maskedUserProperties(meta: MetaDb, appKey: string): Set<string> {
  return new Set(meta.prepare('SELECT id FROM plan_user_properties WHERE app_key = ? AND masking = 1').pluck().all(appKey) as string[])
}

export function maskedEventProperties(meta: MetaDb, appKey: string): Set<string> {
  return new Set(meta.prepare('SELECT id FROM plan_event_properties WHERE app_key = ? AND masking = 1').pluck().all(appKey) as string[])
}

/**
 * A warehouse value as shown. Datetime properties are stored as local times of the project
 * (TIMESTAMP without zone), which the driver hands over as a Date at that wall-clock time in UTC;
 * its UTC fields are therefore the local ones.
 */
export function shownValue(value: unknown, masked: boolean): unknown {
  if (value === null || value === undefined) return null
  if (masked) return MASKED_VALUE
  if (value instanceof Date) return value.toISOString().slice(0, 19).replace('T', ' ')
  return jsonValue(value)
}
