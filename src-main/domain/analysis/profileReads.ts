import type { CheckedFilter } from '../expr/filters'
import type { EventRef } from '../expr/eventRefs'
import { needsProfile, propertyColumn, type Columns } from '../expr/filterSql'
import { readsProfile, type Breakdown } from './breakdown'

/**
 * Which user properties a query over the event rows reads from the profile row `u`: what the
 * dialect's `eventRows` joins (`profile`). An engine that nests its joins (ClickHouse 18.16: one
 * JOIN per SELECT) carries exactly these columns out of the profile join.
 */

/** The filters of some events: a virtual event's members may read user properties too. */
export function memberFilters(events: EventRef[]): (CheckedFilter | undefined)[] {
  return events.flatMap((e) => e.members.map((m) => m.filter))
}

/**
 * The profile_vd columns read by these filters and breakdowns, each once; null when none reads a
 * user property (then the profile is not joined). A property the plan knows but no data has made
 * a column for reads NULL without the profile: it is not listed, but the profile is still joined
 * (as DuckDB always did), so [] can be the answer.
 */
export function profileReads(filters: (CheckedFilter | undefined)[], breakdowns: Breakdown[], columns: Columns): string[] | null {
  if (!filters.some(needsProfile) && !readsProfile(breakdowns)) return null
  const read = new Set<string>()
  for (const f of filters) {
    for (const c of f?.conditions ?? []) {
      const ref = propertyColumn(c.ref, c.dataType, columns)
      if (ref.table === 'profile_vd' && ref.column !== null) read.add(ref.column)
    }
  }
  for (const b of breakdowns) if (b.property.column.table === 'profile_vd' && b.property.column.column !== null) read.add(b.property.column.column)
  return [...read]
}
