import { addDays, periodStart, type Unit } from '../time/calendar'
import type { Dialect, SqlParams } from '../../warehouse/dialect'

/**
 * A SQL relation `cal(ds, period)` mapping every day of fromDate..toDate to the index of its
 * period in `series` (0-based): joined on `ds`, it buckets events without formatting a timestamp
 * per row.
 */
export function calendarSql(fromDate: string, toDate: string, unit: Unit, p: SqlParams, d: Dialect): string {
  const first = periodStart(fromDate, unit)
  const trunc = unit === 'DAY' ? 'd' : d.periodStart(unit === 'WEEK' ? 'week' : 'month', 'd')
  const since = (part: 'day' | 'month') => d.cast(d.diff(part, d.cast(p.add(first), 'date'), trunc), 'integer')
  const index = unit === 'MONTH' ? since('month') : d.intDiv(since('day'), unit === 'WEEK' ? 7 : 1)
  return `(SELECT ${d.dayNumber('d')} AS ds, ${index} AS period
           FROM ${d.days(d.cast(p.add(fromDate), 'date'), d.cast(p.add(addDays(toDate, 1)), 'date'))})`
}
