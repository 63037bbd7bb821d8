import type { DuckDBConnection } from '@duckdb/node-api'

/**
 * The project-local date of an event time, as loads compute it for `ds`. DuckDB's own
 * `CAST(timestamptz AS DATE)` asks ICU for every row: about 0.5 s of CPU per 2M events, the
 * costliest value a load computes. A zone's offset from UTC changes only at its transitions, so
 * the date is computed here from the epoch plus the offset in force, the offset picked from the
 * zone's transitions by a balanced tree of comparisons (8 deep for a zone with daylight saving
 * since 1970). The transitions come from the same ICU, asked on the connection once per zone and
 * process, so `ds` agrees with what the analyses compute from `xwhen`. Outside the years the
 * transitions were listed for, the date is ICU's. A small load (a collector upload, a preview) keeps
 * ICU's cast: binding the tree costs ~15 ms per statement, and listing a zone's transitions the
 * first time ~0.25 s, more than ICU spends on a few thousand rows.
 */

const DAY_US = 86400000000
/**
 * Transitions are listed for [FROM_US, TO_US): 1970-01-02 to 2050-01-01 UTC. From the second day,
 * so that epoch plus offset stays positive and `//` (which truncates) gives the day.
 */
const FROM_US = DAY_US
const TO_US = 2524608000000000
/** Loads of fewer rows use ICU's cast (see above): ~25 ms of CPU at this size. */
export const TREE_FROM_ROWS = 100_000

interface Zone {
  /** Offset (µs) in force at FROM_US. */
  first: number
  /** When the offset changes (µs since the epoch) and to what, in time order. */
  transitions: [number, number][]
}

const zones = new Map<string, Promise<Zone>>()

/** Offsets from UTC in µs at the instants `us`, in the connection's zone, by ICU. */
async function offsets(conn: DuckDBConnection, zone: string, us: number[]): Promise<Map<number, number>> {
  const reader = await conn.runAndReadAll(`SELECT us, epoch_us(timezone($zone, make_timestamptz(us))) - us AS off
    FROM (SELECT unnest($us::BIGINT[]) AS us)`, { zone, us: `[${[...new Set(us)].join(',')}]` })
  return new Map(reader.getRows().map((r) => [Number(r[0]), Number(r[1])]))
}

/**
 * The zone's transitions in the window: the offset at every midnight UTC, then, inside each day
 * where it changes, at every hour, minute and second; a transition falls on a whole second. A
 * change undone within the same UTC day would not be seen; no zone ICU knows has had one in the
 * window (checked hour by hour).
 */
async function listTransitions(conn: DuckDBConnection, zone: string): Promise<Zone> {
  const midnights = Array.from({ length: (TO_US - FROM_US) / DAY_US + 1 }, (_, k) => FROM_US + k * DAY_US)
  const daily = await offsets(conn, zone, midnights)
  // spans [start, start + width] whose two ends have different offsets
  let spans: [number, number][] = midnights.slice(1).filter((u, k) => daily.get(u) !== daily.get(midnights[k])).map((u) => [u - DAY_US, DAY_US])
  for (const step of [3600e6, 60e6, 1e6]) {
    if (spans.length === 0) break
    const samples = spans.map(([u, width]) => Array.from({ length: width / step + 1 }, (_, k) => u + k * step))
    const off = await offsets(conn, zone, samples.flat())
    spans = samples.flatMap((s) => s.slice(1).filter((u, k) => off.get(u) !== off.get(s[k])).map((u): [number, number] => [u - step, step]))
  }
  const after = await offsets(conn, zone, spans.map(([u, width]) => u + width))
  return { first: daily.get(FROM_US)!, transitions: spans.map(([u, width]) => [u + width, after.get(u + width)!]) }
}

function zoneOf(conn: DuckDBConnection, zone: string): Promise<Zone> {
  let known = zones.get(zone)
  if (!known) {
    known = listTransitions(conn, zone)
    zones.set(zone, known)
    known.catch(() => zones.delete(zone))
  }
  return known
}

/**
 * Resolves to a function giving the SQL of the local DATE of a TIMESTAMPTZ expression (a column
 * name: it is repeated) in the connection's time zone, for a load of `rows` records.
 */
export async function localDateSql(conn: DuckDBConnection, rows: number): Promise<(xwhen: string) => string> {
  if (rows < TREE_FROM_ROWS) return (xwhen) => `CAST(${xwhen} AS DATE)`
  const zone = String((await conn.runAndReadAll("SELECT current_setting('TimeZone')")).getRows()[0][0])
  const { first, transitions } = await zoneOf(conn, zone)
  return (xwhen) => {
    const us = `epoch_us(${xwhen})`
    // offsets of transitions [lo, hi), `before` the offset in force before transitions[lo]
    const offset = (lo: number, hi: number, before: number): string => {
      if (lo >= hi) return String(before)
      const mid = (lo + hi) >> 1
      return `CASE WHEN ${us} < ${transitions[mid][0]} THEN ${offset(lo, mid, before)} ELSE ${offset(mid + 1, hi, transitions[mid][1])} END`
    }
    return `CASE WHEN ${us} >= ${FROM_US} AND ${us} < ${TO_US}
      THEN CAST(DATE '1970-01-01' + CAST((${us} + ${offset(0, transitions.length, first)}) // ${DAY_US} AS INTEGER) AS DATE)
      ELSE CAST(${xwhen} AS DATE) END`
  }
}
