/** How every view writes counts, sizes, durations and times. */

export const numbers = new Intl.NumberFormat()

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`
  const units = ['KB', 'MB', 'GB', 'TB']
  let value = n / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`
}

export function duration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`
  const s = ms / 1000
  if (s < 60) return `${s.toFixed(1)} s`
  const m = Math.floor(s / 60)
  return `${m} min ${Math.round(s - m * 60)} s`
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' })

/** "3 minutes ago" for recent times, else the date and time. */
export function when(ms: number, now = Date.now()): string {
  const seconds = Math.round((ms - now) / 1000)
  if (Math.abs(seconds) < 60) return relative.format(seconds, 'second')
  if (Math.abs(seconds) < 3600) return relative.format(Math.round(seconds / 60), 'minute')
  if (Math.abs(seconds) < 86400) return relative.format(Math.round(seconds / 3600), 'hour')
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
}

