import type { TimePart, TimeUnit } from '../../parts/time'
import { seconds, wallClock, zoneLiteral } from '../zone'

const START: Record<TimeUnit, string> = {
  minute: 'toStartOfMinute',
  hour: 'toStartOfHour',
  day: 'toStartOfDay',
  week: 'toMonday',
  month: 'toStartOfMonth',
}

const INTERVAL: Record<TimeUnit, string> = {
  minute: 'toIntervalMinute',
  hour: 'toIntervalHour',
  day: 'toIntervalDay',
  week: 'toIntervalWeek',
  month: 'toIntervalMonth',
}

const STAMP = /^(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2})(?::(\d{2}))?$/

/**
 * Time in the project's zone. 18.16 has no session time zone, so the zone is written into the
 * SQL. A local timestamp is the wall-clock time as a DateTime labelled UTC (see names.ts): its
 * day, week (toMonday: weeks start Monday; toStartOfWeek is current-only), month, interval
 * arithmetic and text are then those of the wall clock, as DuckDB's TIMESTAMP. Whole seconds: the
 * milliseconds of an instant are dropped (18.16 has no DateTime64).
 */
export function time(timeZone: string): TimePart {
  const z = zoneLiteral(timeZone)
  return {
    localNow: (ms) => wallClock(`toDateTime(${Math.floor(ms / 1000)})`, z),
    localTime: (instant) => wallClock(seconds(instant), z),
    // week and month starts are Dates; as a DateTime labelled UTC they compare with local timestamps
    periodStart: (unit, local) => (unit === 'week' || unit === 'month' ? `toDateTime(${START[unit]}(${local}), 'UTC')` : `${START[unit]}(${local})`),
    // both sides as Dates: a DateTime labelled UTC gives its wall-clock day
    diff: (unit, from, to) => `dateDiff('${unit}', toDate(${from}), toDate(${to}))`,
    interval: (n, unit) => `${INTERVAL[unit]}(toInt32(${n}))`,
    // Int32 as event_vd.ds: 18.16 joins only columns of one type (toYYYYMMDD gives UInt32)
    dayNumber: (date) => `toInt32(toYYYYMMDD(${date}))`,
    // toString, not formatDateTime: %M is the minute on 18.16 but the month's name on current versions
    formatStamp: (local) => `toString(${local})`,
    parseStamp(p, text) {
      // the domain checked the text's shape; a text of another shape fails in toDateTime as DuckDB's strptime does
      const m = STAMP.exec(text)
      const iso = m ? `${m[1]}-${m[2]}-${m[3]} ${m[4]}:${m[5]}:${m[6] ?? '00'}` : text
      return `toDateTime(${p.add(iso)}, 'UTC')`
    },
    days: (from, to) => `(SELECT arrayJoin(arrayMap(_uba_i -> toDate(${from}) + _uba_i, range(toUInt32(greatest(0, dateDiff('day', toDate(${from}), toDate(${to}))))))) AS d)`,
    epochMicros: (instant) => `(${instant} * 1000)`,
  }
}
