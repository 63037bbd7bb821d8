import { formatRate, rate } from '../../../models/charts/format'

/**
 * Periods that are not over. The rule: in the project's time zone, the period holding today (the
 * current day, the week from Monday, the month) is in progress: its figures are still growing, so
 * the chart draws the segment into it dotted and its tooltip says "in progress". Periods starting
 * after today have not begun: they are left out of the line (no point, no drop to zero), while the
 * table still lists their figures.
 */
export interface PeriodState {
  /** Index of the period in progress, -1 when today is in none. */
  current: number
  /** Index of the first period after today, series.length when none is. */
  future: number
}

/** The start of the period after the one starting on `start` (no imports: node-side tests read this file). */
function nextStart(start: string, unit: string): string {
  const d = new Date(`${start}T00:00:00Z`)
  if (unit === 'MONTH') d.setUTCMonth(d.getUTCMonth() + 1)
  else d.setUTCDate(d.getUTCDate() + (unit === 'WEEK' ? 7 : 1))
  return d.toISOString().slice(0, 10)
}

export function periodState(series: string[], unit: string, today: string | undefined): PeriodState {
  if (!today) return { current: -1, future: series.length }
  const current = series.findIndex((s) => s <= today && today < nextStart(s, unit))
  const after = series.findIndex((s) => s > today)
  return { current, future: after === -1 ? series.length : after }
}

/**
 * A line's points as drawn: `line` up to the period before the one in progress, `tail` (dotted)
 * from there into it (null when no period is in progress after a first one); periods not begun in
 * neither.
 */
export function splitLine(data: (number | null)[], state: PeriodState): { line: (number | null)[]; tail: (number | null)[] | null } {
  const k = state.current
  if (k <= 0) return { line: data.map((v, i) => (i < state.future ? v : null)), tail: null }
  return { line: data.map((v, i) => (i < k ? v : null)), tail: data.map((v, i) => (i === k - 1 || i === k ? v : null)) }
}

/** The change from `before` to `now` as a share of before (null when before is 0 or missing). */
export function change(now: number | null | undefined, before: number | null | undefined): number | null {
  if (now === null || now === undefined || before === null || before === undefined || before === 0) return null
  return rate(now - before, Math.abs(before))
}

export function changeText(value: number | null): string {
  return value === null ? '—' : `${value > 0 ? '+' : ''}${formatRate(value)}`
}
