import { quoteString } from './literal'

/** IANA zone names as projects store them (Area/City, UTC, Etc/GMT+5 ...). */
const ZONE = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/

/** The project's time zone as a string literal for ClickHouse's calendar functions. */
export function zoneLiteral(timeZone: string): string {
  if (!ZONE.test(timeZone)) throw new RangeError(`not a time zone name: ${JSON.stringify(timeZone)}`)
  return quoteString(timeZone)
}

/** An instant of epoch milliseconds (event_vd.xwhen) as a DateTime: whole seconds, rounding down. */
export function seconds(instant: string): string {
  return `toDateTime(intDiv(${instant}, 1000))`
}

/**
 * The wall-clock time in zone `z` (a literal) of DateTime `t`, as a DateTime labelled UTC: its day
 * number, hour, minute and second read in the zone (exact on DST days: the fields are the zone's).
 */
export function wallClock(t: string, z: string): string {
  return `toDateTime(toUInt32(toDate(${t}, ${z})) * 86400 + toHour(${t}, ${z}) * 3600 + toMinute(${t}, ${z}) * 60 + toSecond(${t}, ${z}), 'UTC')`
}

/** Milliseconds 000-999 of epoch milliseconds, as three digits. */
export function millisText(instant: string): string {
  return `substring(toString(1000 + ${instant} % 1000), 2)`
}
