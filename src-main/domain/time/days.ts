import { badParam } from '../errors'

/** Calendar days of requests: checked yyyy-MM-dd, and how many days a range may cover. */

/** A calendar day as yyyy-MM-dd, checked to exist. */
export function day(value: unknown, field: string): string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) throw badParam(field, `${field} must be a date yyyy-MM-dd`)
  const [y, m, d] = value.split('-').map(Number)
  const date = new Date(Date.UTC(y, m - 1, d))
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) throw badParam(field, `${field}: ${value} is not a real date`)
  return value
}

/** The most days one analysis may cover: about ten years. */
export const MAX_RANGE_DAYS = 3700
