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

/** The plan types of the project's event properties, by id. */
export function eventPropertyTypes(meta: MetaDb, appKey: string): Map<string, string> {
  const rows = meta.prepare('SELECT id, data_type FROM plan_event_properties WHERE app_key = ?').all(appKey) as { id: string; data_type: string }[]
  return new Map(rows.map((r) => [r.id, r.data_type]))
}

/**
 * A value as its plan type has it, whatever the engine: ClickHouse stores booleans as 1/0 and
 * datetimes as epoch ms of the local time (DuckDB's values pass unchanged).
 */
export function plannedValue(value: unknown, dataType: string | undefined): unknown {
  if (value === null || value === undefined) return value
  if (dataType === 'boolean' && typeof value === 'number') return value !== 0
  if (dataType === 'datetime' && (typeof value === 'bigint' || typeof value === 'number')) return new Date(Number(value))
  return value
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
