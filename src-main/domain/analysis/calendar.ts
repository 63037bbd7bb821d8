import type { Unit } from './request'
import type { Dialect, SqlParams } from '../../warehouse/dialect'

/**
 * Periods in the project's time zone: DAY, WEEK (starting Monday) and MONTH. A period is named by
 * its first day, yyyy-MM-dd. Days of a range are the `ds` values (yyyyMMdd integers) of event_vd.
 */

export function dsOf(day: string): number {
  return Number(day.replaceAll('-', ''))
}

export function dayOfDs(ds: number): string {
  const s = String(ds)
  return `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}`
}

function utc(day: string): Date {
  const [y, m, d] = day.split('-').map(Number)
  return new Date(Date.UTC(y, m - 1, d))
}

function iso(date: Date): string {
  return date.toISOString().slice(0, 10)
}

export function addDays(day: string, n: number): string {
  const d = utc(day)
  d.setUTCDate(d.getUTCDate() + n)
  return iso(d)
}

/** The first day of the period that holds `day`. */
export function periodStart(day: string, unit: Unit): string {
  const d = utc(day)
  if (unit === 'WEEK') d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7))
  if (unit === 'MONTH') d.setUTCDate(1)
  return iso(d)
}

/** The first day of the period `k` periods after the one starting on `start`. */
export function periodAfter(start: string, unit: Unit, k: number): string {
  if (unit === 'DAY') return addDays(start, k)
  if (unit === 'WEEK') return addDays(start, 7 * k)
  const d = utc(start)
  d.setUTCMonth(d.getUTCMonth() + k)
  return iso(d)
}

/** The periods that the days fromDate..toDate fall in, in order (the first may start earlier). */
export function series(fromDate: string, toDate: string, unit: Unit): string[] {
  const out: string[] = []
  for (let p = periodStart(fromDate, unit); p <= toDate; p = periodAfter(p, unit, 1)) out.push(p)
  return out
}

/**
 * A SQL relation `cal(ds, period)` mapping every day of fromDate..toDate to the index of its
 * period in `series` (0-based): joined on `ds`, it buckets events without formatting a timestamp
 * per row.
 */
export function calendarSql(fromDate: string, toDate: string, unit: Unit, p: SqlParams, d: Dialect): string {
  const first = periodStart(fromDate, unit)
  const trunc = unit === 'DAY' ? 'd' : d.periodStart(unit === 'WEEK' ? 'week' : 'month', 'd')
  const since = (part: 'day' | 'month') => d.cast(d.diff(part, d.cast(p.add(first), 'date'), trunc), 'integer')
  const index = unit === 'MONTH' ? since('month') : d.intDiv(since('day'), unit === 'WEEK' ? 7 : 1)
  return `(SELECT ${d.dayNumber('d')} AS ds, ${index} AS period
           FROM ${d.days(d.cast(p.add(fromDate), 'date'), d.cast(p.add(addDays(toDate, 1)), 'date'))})`
}
