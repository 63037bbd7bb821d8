import { badParam } from '../errors'
import { addDays, series } from '../time/calendar'
import type { Unit } from '../time/calendar'

/**
 * `compare` on events and funnels: the same analysis over an earlier range, and which earlier
 * period each period of the answer is compared with (its counterpart):
 * - "previous": just before, as long. With unit DAY the range moves back by its number of days;
 *   with WEEK or MONTH by as many weeks or months as it has periods (this month against the last
 *   one, whatever their lengths), a day past the end of a shorter month becoming its last day.
 * - "week": seven days earlier (unit DAY or WEEK; with MONTH no month starts a week earlier).
 * - "year": the same calendar days a year earlier; with unit WEEK the week 52 weeks earlier (the
 *   same weekdays). 29 February has no counterpart (its compared values are null); a range starting
 *   on it compares from 1 March, one ending on it to 28 February.
 * Period k is compared with the counterpart of its start; the whole-range figure with the whole
 * earlier range.
 */

export const COMPARE_MODES = ['previous', 'week', 'year'] as const
export type CompareMode = (typeof COMPARE_MODES)[number]

export interface ComparedRange {
  mode: CompareMode
  fromDate: string
  toDate: string
  /** The earlier period start compared with the period starting on `start`, or null for none. */
  counterpart: (start: string) => string | null
}

function parts(day: string): [number, number, number] {
  const [y, m, d] = day.split('-').map(Number)
  return [y, m, d]
}

function format(y: number, m: number, d: number): string {
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`
}

function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate()
}

/** `n` months earlier, a day past the end of the shorter month becoming its last day. */
export function monthsBefore(day: string, n: number): string {
  const [y, m, d] = parts(day)
  const index = y * 12 + (m - 1) - n
  const year = Math.floor(index / 12)
  const month = (index % 12) + 1
  return format(year, month, Math.min(d, daysInMonth(year, month)))
}

/** The same calendar day a year earlier; null for 29 February. */
export function yearBefore(day: string): string | null {
  const [y, m, d] = parts(day)
  return m === 2 && d === 29 ? null : format(y - 1, m, d)
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(to) - Date.parse(from)) / 86400000) + 1
}

/** Reads `compare` (absent or null: no comparison); a bad value is a 400 naming it. */
export function compareOf(raw: unknown, unit: Unit, fromDate: string, toDate: string): ComparedRange | null {
  if (raw === undefined || raw === null || raw === '') return null
  const mode = typeof raw === 'string' ? raw.toLowerCase() : raw
  if (typeof mode !== 'string' || !(COMPARE_MODES as readonly string[]).includes(mode)) throw badParam('compare', 'compare must be "previous", "week" or "year"')
  if (mode === 'week' && unit === 'MONTH') throw badParam('compare', 'compare "week" needs unit DAY or WEEK: no month starts a week earlier')
  let shift: (day: string) => string | null
  if (mode === 'previous') {
    const n = series(fromDate, toDate, unit).length
    shift = unit === 'DAY' ? (d) => addDays(d, -daysBetween(fromDate, toDate)) : unit === 'WEEK' ? (d) => addDays(d, -7 * n) : (d) => monthsBefore(d, n)
  } else if (mode === 'week' || unit === 'WEEK') {
    const days = mode === 'week' ? 7 : 364
    shift = (d) => addDays(d, -days)
  } else {
    shift = yearBefore
  }
  const from = shift(fromDate) ?? format(parts(fromDate)[0] - 1, 3, 1)
  const to = shift(toDate) ?? format(parts(toDate)[0] - 1, 2, 28)
  return { mode: mode as CompareMode, fromDate: from, toDate: to, counterpart: shift }
}
