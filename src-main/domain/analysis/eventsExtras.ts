import type { ComparedRange } from './compare'
import { evaluate, type Formula } from './formula'

/**
 * What `formula` and `compare` add to an event analysis's rows, computed from the measures'
 * answers (no second pass over the events):
 * - `formula`: the formula over the row's measure values, per period and over the whole range
 *   (from the whole-range values, not a sum of periods). It adds to the measures' series.
 * - `previous`: the row's measures (and formula) over the compared range, period k holding the
 *   value of series[k]'s counterpart (null where it has none). A row whose value did not occur
 *   in the compared range gets its empty values (0 for counts and sums, else null).
 */

export interface Series {
  sum: (number | null)[]
  values: (number | null)[][]
}

export interface FormulaSeries {
  sum: number | null
  values: (number | null)[]
}

export interface PreviousSeries extends Series {
  formula?: FormulaSeries
}

function rounded(value: number | null): number | null {
  return value === null ? null : Math.round(value * 1e6) / 1e6
}

/** The formula over a row's measures: per period and over the whole range. */
export function formulaOf(f: Formula, row: Series): FormulaSeries {
  const periods = row.values[0]?.length ?? 0
  return {
    sum: rounded(evaluate(f, row.sum)),
    values: Array.from({ length: periods }, (_, k) => rounded(evaluate(f, row.values.map((v) => v[k])))),
  }
}

/**
 * The compared row aligned on the answer's periods: `earlier` holds its values by the compared
 * range's own periods (`earlierSeries`), or is undefined when the row's value did not occur there.
 */
export function previousOf(
  compare: ComparedRange,
  periods: string[],
  earlierSeries: string[],
  earlier: Series | undefined,
  empty: (number | null)[],
  f: Formula | null,
): PreviousSeries {
  const position = new Map(earlierSeries.map((s, i) => [s, i]))
  const at = periods.map((s) => {
    const c = compare.counterpart(s)
    return c === null ? undefined : position.get(c)
  })
  const values = empty.map((blank, m) => at.map((i) => (i === undefined ? null : earlier ? earlier.values[m][i] : blank)))
  const previous: PreviousSeries = { sum: earlier ? earlier.sum : [...empty], values }
  if (f) previous.formula = formulaOf(f, previous)
  return previous
}

/** The counterpart of each period start, as the response names them (null for none). */
export function counterparts(compare: ComparedRange, periods: string[], earlierSeries: string[]): (string | null)[] {
  const known = new Set(earlierSeries)
  return periods.map((s) => {
    const c = compare.counterpart(s)
    return c !== null && known.has(c) ? c : null
  })
}
