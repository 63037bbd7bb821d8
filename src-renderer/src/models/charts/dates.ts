import type { RangeDraft, RangePreset } from './definitions'

/** Date ranges in the project's time zone: presets count back from today there. */

export const PRESETS: { value: RangePreset; label: string; days: number }[] = [
  { value: 'last7', label: '7D', days: 7 },
  { value: 'last30', label: '30D', days: 30 },
  { value: 'last90', label: '90D', days: 90 },
]

export const PRESET_TITLES: Record<RangePreset, string> = {
  last7: 'Last 7 days',
  last30: 'Last 30 days',
  last90: 'Last 90 days',
  custom: 'Custom range',
}

/** Today as yyyy-MM-dd in a time zone (the machine's when the zone is unknown). */
export function today(timeZone?: string): string {
  const options: Intl.DateTimeFormatOptions = { year: 'numeric', month: '2-digit', day: '2-digit' }
  try {
    return new Intl.DateTimeFormat('en-CA', { ...options, timeZone }).format(new Date())
  } catch {
    return new Intl.DateTimeFormat('en-CA', options).format(new Date())
  }
}

export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() + n)
  return d.toISOString().slice(0, 10)
}

export function isDay(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value)
}

/** The inclusive days a range covers, or null while a custom range is incomplete or reversed. */
export function resolveRange(range: RangeDraft, timeZone?: string): { fromDate: string; toDate: string } | null {
  const preset = PRESETS.find((p) => p.value === range.preset)
  if (preset) {
    const toDate = today(timeZone)
    return { fromDate: addDays(toDate, 1 - preset.days), toDate }
  }
  if (!isDay(range.from) || !isDay(range.to) || range.from > range.to) return null
  return { fromDate: range.from, toDate: range.to }
}

const SHORT = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' })
const LONG = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' })

/** "Nov 14" for a yyyy-MM-dd (or a "yyyy/MM/dd HH:mm:ss" the funnel and retention answer with). */
export function shortDay(value: string, withYear = false): string {
  const day = value.slice(0, 10).replaceAll('/', '-')
  if (!isDay(day)) return value
  return (withYear ? LONG : SHORT).format(new Date(`${day}T00:00:00Z`))
}

/** A period label for a unit: "Nov 14", "Week of Nov 10", "Nov 2026". */
export function periodLabel(start: string, unit: string): string {
  if (unit === 'WEEK') return `Wk of ${shortDay(start)}`
  if (unit === 'MONTH') {
    const day = start.slice(0, 10)
    return isDay(day) ? new Intl.DateTimeFormat('en-US', { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`)) : start
  }
  return shortDay(start)
}

/**
 * A period as an export writes it, readable without the screen around it: "2026-11-14", or
 * "2026-11-14 13:00" when it starts within a day; a value that is no date stays as it is.
 */
export function fullPeriod(value: string): string {
  const day = value.slice(0, 10).replaceAll('/', '-')
  if (!isDay(day)) return value
  const time = /^[ T](\d{2}:\d{2})/.exec(value.slice(10))?.[1]
  return time && time !== '00:00' ? `${day} ${time}` : day
}

/** "Oct 23 – Nov 21, 2026" */
export function rangeText(fromDate: string, toDate: string): string {
  return fromDate === toDate ? shortDay(fromDate, true) : `${shortDay(fromDate)} – ${shortDay(toDate, true)}`
}
