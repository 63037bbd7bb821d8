/** Days as the API writes them (yyyy-MM-dd) and the time stamps of a behaviour sequence. */

export interface DayRange {
  /** yyyy-MM-dd, both included. */
  from: string
  to: string
}

export const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/

/** Today in the browser's calendar, yyyy-MM-dd. */
export function today(): string {
  const now = new Date()
  return toDay(new Date(Date.UTC(now.getFullYear(), now.getMonth(), now.getDate())))
}

function toDay(date: Date): string {
  return date.toISOString().slice(0, 10)
}

/** The day `n` days before `day` (n may be negative). */
export function daysBefore(day: string, n: number): string {
  const date = new Date(`${day}T00:00:00Z`)
  date.setUTCDate(date.getUTCDate() - n)
  return toDay(date)
}

/** The range of the last `days` days that end on `end`. */
export function lastDays(end: string, days: number): DayRange {
  return { from: daysBefore(end, days - 1), to: end }
}

const dayLabel = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' })

/** "2026/11/20 22:31:07" (a sequence eventTime) → its day, "2026/11/20". */
export function dayOf(eventTime: string): string {
  return eventTime.slice(0, 10)
}

/** "2026/11/20 22:31:07" → "22:31:07". */
export function timeOf(eventTime: string): string {
  return eventTime.slice(11)
}

/** "2026/11/20" → "Fri, 20 Nov 2026" in the reader's language (the day is the project's, not shifted). */
export function formatDay(day: string): string {
  const date = new Date(`${day.replaceAll('/', '-')}T00:00:00Z`)
  return Number.isNaN(date.getTime()) ? day : dayLabel.format(date)
}
