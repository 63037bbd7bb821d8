import type { SqlParams } from '../../warehouse/dialect'

/**
 * Intervals that read well for a distribution over users: labelled "[a,b)" (lower bound included),
 * with round edges, at most MAX_INTERVALS closed intervals and possibly one open "[a,+∞)" for a
 * long tail. The rule, from the per-user values (their minimum, maximum, 95th percentile and
 * whether all are whole numbers):
 * 1. Whole values spanning at most MAX_INTERVALS numbers: one interval per number, min..max
 *    ("[1,2)", "[2,3)" ... reads as "1 time", "2 times").
 * 2. Otherwise the intervals end at the maximum, unless the tail is long (the maximum lies more
 *    than twice as far from the minimum as the 95th percentile does): then they end at the 95th
 *    percentile and the values above it share the open interval.
 * 3. The width is the smallest of 1, 2, 5 × 10^n (at least 1 for whole values) that covers
 *    min..end in at most MAX_INTERVALS intervals starting at a multiple of the width. Values on or
 *    past the last edge go to the open interval "[last,+∞)"; without a long tail, when the
 *    maximum falls exactly on the last edge and there is room, it gets one more closed interval.
 */

export const MAX_INTERVALS = 10

/** What the choice needs to know about the per-user values. */
export interface ValueStats {
  min: number
  max: number
  /** The 95th percentile (one of the values). */
  top: number
  /** Every value is a whole number. */
  whole: boolean
}

export interface Interval {
  low: number
  /** null for the open last interval. */
  high: number | null
  label: string
}

const STEPS = [1, 2, 5]

/** A nice width: STEPS[i % 3] × 10^floor(i / 3), as an exact decimal. */
function widthAt(i: number): { width: number; decimals: number } {
  const exponent = Math.floor(i / 3)
  return { width: Number(`${STEPS[((i % 3) + 3) % 3]}e${exponent}`), decimals: Math.max(0, -exponent) }
}

/** The index of the largest nice width not above `raw` (raw > 0). */
function indexBelow(raw: number): number {
  const exponent = Math.floor(Math.log10(raw))
  const mantissa = raw / 10 ** exponent
  const step = mantissa >= 5 ? 2 : mantissa >= 2 ? 1 : 0
  return exponent * 3 + step
}

function edge(index: number, w: { width: number; decimals: number }): number {
  return Number((index * w.width).toFixed(w.decimals))
}

function label(low: number, high: number | null): string {
  return `[${low},${high === null ? '+∞' : high})`
}

/** The intervals for values described by `stats` (none when there are no values). */
export function niceIntervals(stats: ValueStats | null): Interval[] {
  if (!stats) return []
  const { min, max, top, whole } = stats
  if (whole && max - min + 1 <= MAX_INTERVALS) {
    return Array.from({ length: max - min + 1 }, (_, k) => ({ low: min + k, high: min + k + 1, label: label(min + k, min + k + 1) }))
  }
  const longTail = max - min > 2 * (top - min)
  const end = longTail ? top : max
  const span = end - min
  const raw = span > 0 ? span / MAX_INTERVALS : Math.abs(min) > 0 ? Math.abs(min) / MAX_INTERVALS : 1
  // tiny slack so that 0.3 / 0.1 counts as 3, not 2.9999999999999996
  const slack = 1e-9
  for (let i = Math.max(indexBelow(raw), whole ? 0 : -Infinity); ; i++) {
    const w = widthAt(i)
    const first = Math.floor(min / w.width + slack)
    const count = Math.max(1, Math.ceil(end / w.width - first - slack))
    if (count > MAX_INTERVALS) continue
    const intervals: Interval[] = []
    for (let k = 0; k < count; k++) {
      const low = edge(first + k, w)
      const high = edge(first + k + 1, w)
      intervals.push({ low, high, label: label(low, high) })
    }
    const last = edge(first + count, w)
    if (max >= last) {
      // without a long tail only the maximum itself lands on the last edge: give it a closed interval when there is room
      const high = !longTail && count < MAX_INTERVALS ? edge(first + count + 1, w) : null
      intervals.push({ low: last, high, label: label(last, high) })
    }
    return intervals
  }
}

/** SQL giving the index of the interval that holds `value` (edges bound). */
export function intervalIndexSql(value: string, intervals: Interval[], p: SqlParams): string {
  const arms = intervals.slice(0, -1).map((iv, k) => `WHEN ${value} < ${p.add(iv.high as number)} THEN ${k}`)
  return arms.length === 0 ? '0' : `CASE ${arms.join(' ')} ELSE ${intervals.length - 1} END`
}
