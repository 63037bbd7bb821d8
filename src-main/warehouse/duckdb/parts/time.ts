import type { TimePart } from '../../parts/time'

/** Connections run in the project's time zone: a TIMESTAMPTZ cast to TIMESTAMP is its local time. */
export const time: TimePart = {
  localNow: (ms) => `CAST(to_timestamp(${ms / 1000}) AS TIMESTAMP)`,
  localTime: (instant) => `CAST(${instant} AS TIMESTAMP)`,
  periodStart: (unit, local) => `date_trunc('${unit}', ${local})`,
  diff: (unit, from, to) => `datediff('${unit}', ${from}, ${to})`,
  interval: (n, unit) => `to_${unit}s(CAST(${n} AS INTEGER))`,
  dayNumber: (date) => `CAST(strftime(${date}, '%Y%m%d') AS INTEGER)`,
  formatStamp: (local) => `strftime(${local}, '%Y-%m-%d %H:%M:%S')`,
  parseStamp(p, text) {
    return `strptime(${p.add(text)}, ${p.add(text.length > 16 ? '%Y/%m/%d %H:%M:%S' : '%Y/%m/%d %H:%M')})`
  },
  days: (from, to) => `(SELECT CAST(range AS DATE) AS d FROM range(${from}, ${to}, INTERVAL 1 DAY))`,
  epochMicros: (instant) => `epoch_us(${instant})`,
}
