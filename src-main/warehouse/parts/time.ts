import type { SqlParams } from '../dialect'

/** Calendar units of analyses and relative-time filters. */
export type TimeUnit = 'minute' | 'hour' | 'day' | 'week' | 'month'

/**
 * Time in the project's zone. Connections run in the project's time zone, so a local timestamp is
 * wall-clock time there; days, weeks (starting Monday) and months are read from it.
 */
export interface TimePart {
  /** The instant `ms` (epoch milliseconds) as a local timestamp. */
  localNow(ms: number): string
  /** An instant column (e.g. `e.xwhen`) as a local timestamp. */
  localTime(instant: string): string
  /** The start of the day/week/month (or minute/hour) that holds a local timestamp or date. */
  periodStart(unit: TimeUnit, local: string): string
  /** Whole days or months from date `from` to date `to`. */
  diff(unit: 'day' | 'month', from: string, to: string): string
  /** `n` units as an interval; `n` is SQL (usually a placeholder). */
  interval(n: string, unit: TimeUnit): string
  /** A date as its yyyyMMdd integer (event_vd.ds). */
  dayNumber(date: string): string
  /** A local timestamp as text yyyy-MM-dd HH:mm:ss. */
  formatStamp(local: string): string
  /** Text "yyyy/MM/dd HH:mm[:ss]" as a local timestamp (the text is bound in `p`). */
  parseStamp(p: SqlParams, text: string): string
  /** A relation `(d)` of the dates from `from` up to but excluding `to` (both dates, SQL). */
  days(from: string, to: string): string
  /** Microseconds since the epoch of an instant, as a number. */
  epochMicros(instant: string): string
}
