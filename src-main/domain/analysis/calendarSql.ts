import { addDays, periodStart, type Unit } from '../time/calendar'
import type { SqlParams } from '../../warehouse/dialect'

/**
 * A SQL relation `cal(ds, period)` mapping every day of fromDate..toDate to the index of its
 * period in `series` (0-based): joined on `ds`, it buckets events without formatting a timestamp
 * per row.
 */
export function calendarSql(fromDate: string, toDate: string, unit: Unit, p: SqlParams): string {
  const first = periodStart(fromDate, unit)
  const trunc = unit === 'DAY' ? 'd' : `date_trunc('${unit.toLowerCase()}', d)`
  const index =
    unit === 'MONTH'
      ? `CAST(datediff('month', CAST(${p.add(first)} AS DATE), ${trunc}) AS INTEGER)`
      : `CAST(datediff('day', CAST(${p.add(first)} AS DATE), ${trunc}) AS INTEGER) // ${unit === 'WEEK' ? 7 : 1}`
  return `(SELECT CAST(strftime(d, '%Y%m%d') AS INTEGER) AS ds, ${index} AS period
           FROM (SELECT CAST(range AS DATE) AS d FROM range(CAST(${p.add(fromDate)} AS DATE), CAST(${p.add(addDays(toDate, 1))} AS DATE), INTERVAL 1 DAY)))`
}
