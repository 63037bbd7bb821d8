import { series } from '../time/calendar'
import { counterparts } from './eventsExtras'
import type { ComparedRange } from './compare'
import type { FunnelRequest, FunnelResponse, FunnelRow } from './funnels'

/**
 * `compare` on a funnel: the same funnel (steps, window, breakdown) run again over the compared
 * range (compare.ts), each row getting `previous`: its counts and medians there, by the answer's
 * dateList. Column 0 ($ALL) is the whole compared range; the column of day d holds d's
 * counterpart (null where it has none: 29 February a year later). A breakdown value absent from
 * the compared range counts 0 users there; values only there are not listed.
 */

export interface FunnelTally {
  total: FunnelRow
  groups: Map<string, FunnelRow>
}

/** `earlier` is the funnel's tally over the compared range (funnels.ts). */
export function comparedFunnel(req: FunnelRequest, cmp: ComparedRange, days: string[], rows: FunnelRow[], earlier: FunnelTally): NonNullable<FunnelResponse['compare']> {
  const earlierDays = series(cmp.fromDate, cmp.toDate, 'DAY')
  const position = new Map(earlierDays.map((d, i) => [d, i + 1]))
  // column of the answer -> column of the compared tally (undefined: no counterpart)
  const columns = [0, ...days.map((d) => {
    const c = cmp.counterpart(d)
    return c === null ? undefined : position.get(c)
  })]
  for (const row of rows) {
    const from = row.byValue === -1 ? earlier.total : earlier.groups.get(String(row.byValue))
    row.previous = {
      stepsDetail: req.steps.map((s, k) => ({
        expression: s.expression,
        convertedUser: columns.map((c) => (c === undefined ? null : (from?.stepsDetail[k].convertedUser[c] ?? 0))),
      })),
      medianConvertedTime: row.medianConvertedTime.map((m, k) => ({
        stepsExpress: m.stepsExpress,
        median: columns.map((c) => (c === undefined ? null : (from?.medianConvertedTime[k].median[c] ?? null))),
      })),
    }
  }
  const named = counterparts(cmp, days, earlierDays).map((d) => (d === null ? null : `${d.replaceAll('-', '/')} 00:00:00`))
  return { mode: cmp.mode, fromDate: cmp.fromDate, toDate: cmp.toDate, dateList: ['$ALL', ...named] }
}
