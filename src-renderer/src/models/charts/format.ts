/** Numbers as analysts read them: grouped thousands, at most two decimals, rates as percents. */

const NUMBER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 })
const COMPACT = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 })

export function formatNumber(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : NUMBER.format(value)
}

/** For axes: 12.5K. */
export function formatCompact(value: number): string {
  return Math.abs(value) < 1000 ? NUMBER.format(value) : COMPACT.format(value)
}

export function formatRate(rate: number | null | undefined, digits = 1): string {
  if (rate === null || rate === undefined || !Number.isFinite(rate)) return '—'
  return `${(rate * 100).toFixed(digits)}%`
}

export function rate(part: number | null | undefined, whole: number | null | undefined): number | null {
  if (part === null || part === undefined || !whole) return null
  return part / whole
}

/** Seconds as "45s", "3m 20s", "2h 05m", "3d 4h". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—'
  const s = Math.round(seconds)
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`
  if (s < 86400) return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`
}
