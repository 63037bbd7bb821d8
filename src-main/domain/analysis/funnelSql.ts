import type { CheckedFilter } from '../expr/filters'
import { breakdownSql, readsProfile, UNKNOWN, type Breakdown } from './breakdown'
import { addDays, dsOf } from './calendar'
import type { EventRef } from './eventRefs'
import { filterSql, needsProfile, type Columns } from './filterSql'
import { crowdSql, samplingSql } from './request'
import type { SqlParams } from './sqlParams'

/**
 * The funnel as one statement: one sort of the users' events, then steps followed by keyed lookups
 * (never a join on user and time per step):
 * 1. `cand`: the events that match any step, read from fromDate to toDate + the window, each with
 *    its steps as a bit mask `m` (bit k: matches step k) and its row id (unique, so equal events
 *    stay apart).
 * 2. `linked`: each user's events in time order. Among events at the same moment, the one that can
 *    be an earlier step comes first (so a step at the same time as the previous one counts), then
 *    by the set of steps it matches and its breakdown value: events still tied are alike in every
 *    way the result sees, so they may come in any order. For every event and every step k > 0: the
 *    row id (the last step: the time) of the next event after it (never itself) that matches step
 *    k, by `lead(... IGNORE NULLS)` over that one ordering; and its place in it (`pos`).
 * 3. `paths`: from each entry (a first-step event inside the range), step k+1 is the next match
 *    after step k's event: the earliest, hence deepest, path. Following it reads `linked` by row
 *    id (a keyed lookup of the step's own events). Steps later than entry + window end it.
 * 4. `ranked` / `picked`: per user and entry day, and per user over the range (`col` 0), the
 *    deepest path, the first entry (in that order) among equals, with its step-to-step times and
 *    breakdown value. One sort of the paths by user, day and rank finds both (the first of each
 *    day; the smallest rank of the user): cheaper than hashing millions of (user, day) groups.
 * 5. per column and breakdown value: the users at each depth and the median time of each pair.
 * Why this shape (measured on the 10M-event bench, bench/analysis.ts): the window's sort is the
 * largest cost, and it grows with every column and sort key it carries, hence one mask column
 * instead of a flag per step, the table's rowid instead of a numbering pass, and two sort keys
 * (time, first step and mask folded into one integer) instead of four. Each lead(IGNORE NULLS)
 * costs about as much as first_value over a following frame and less than min() over one. The
 * sorted pick costs about a quarter less than arg_min of a struct over GROUPING SETS.
 */

export interface FunnelStep {
  expression: string
  event: EventRef
  filter?: CheckedFilter
}

export interface FunnelQuery {
  steps: FunnelStep[]
  filter?: CheckedFilter
  fromDate: string
  toDate: string
  sampling: number
  /** Cohort codes, or $ALL (request.ts crowdSql). */
  crowds: string[]
  byField: Breakdown | null
  /** The step whose event gives the breakdown value (event properties), 0-based. */
  byStep: number
  /** The conversion window in seconds. */
  windowSeconds: number
}

/** Times are whole microseconds: a conversion on the window's last moment counts. */
const MICROS = 1_000_000
/** A path's rank (smallest first): deeper, then the earlier entry. A step of depth outweighs any entry's place. */
const DEPTH_WEIGHT = 2n ** 40n
/** Bits above the step mask for the index of an event's first step (MAX_STEPS <= 20). */
const MAX_STEP_BITS = 20

/** The label of one event row for an event breakdown; a list for array properties, unnested last. */
function rowLabel(b: Breakdown, p: SqlParams): string {
  if (b.property.dataType !== 'array<string>' || b.buckets) return breakdownSql(b, p)
  const v = b.property.sql
  return `list_transform(CASE WHEN len(${v}) > 0 THEN ${v} ELSE [NULL::VARCHAR] END, x -> COALESCE(x, ${p.add(UNKNOWN)}))`
}

/**
 * The steps an event matches as a bit mask (bit k: step k), by one CASE on the event name: on 10M
 * events, one comparison per step cost more than reading the rows (a CASE tests the name once per
 * branch until one matches). Inside each event's branch, a step's filter and a virtual event's
 * member filters gate the step's bit; $Anything steps apply to every row. Same bits as
 * COALESCE(eventSql(step) AND filterSql(step), false) for each step.
 */
function maskSql(steps: FunnelStep[], columns: Columns, p: SqlParams, nowLocal: string): string {
  const bit = (condition: string, k: number) => (condition === 'true' ? String(2 ** k) : `(COALESCE(${condition}, false)::INTEGER << ${k})`)
  const both = (a: string, b: string) => (a === 'true' ? b : b === 'true' ? a : `(${a}) AND (${b})`)
  const branches = new Map<string, string[]>()
  const anywhere: string[] = []
  steps.forEach((step, k) => {
    const own = filterSql(step.filter, columns, p, nowLocal)
    if (step.event.kind === 'any') {
      anywhere.push(bit(own, k))
      return
    }
    // a virtual event's members naming the same event are alternatives
    const members = new Map<string, string[]>()
    for (const m of step.event.members) members.set(m.eventId, [...(members.get(m.eventId) ?? []), filterSql(m.filter, columns, p, nowLocal)])
    for (const [eventId, filters] of members) {
      const member = filters.includes('true') ? 'true' : filters.map((f) => `(${f})`).join(' OR ')
      branches.set(eventId, [...(branches.get(eventId) ?? []), bit(both(member, own), k)])
    }
  })
  const named = [...branches].map(([eventId, bits]) => `WHEN ${p.add(eventId)} THEN ${bits.join(' | ')}`)
  return [named.length ? `CASE e.xwhat ${named.join(' ')} ELSE 0 END` : '0', ...anywhere].join(' | ')
}

export function funnelSql(q: FunnelQuery, columns: Columns, p: SqlParams, nowLocal: string): string {
  const all = q.steps.map((_, k) => k)
  const later = all.slice(1)
  const last = q.steps.length - 1
  const profileLabel = !!q.byField && readsProfile([q.byField])
  const rowLabels = !!q.byField && !profileLabel
  const listLabel = rowLabels && q.byField!.property.dataType === 'array<string>' && !q.byField!.buckets
  const profile = needsProfile(q.filter) || q.steps.some((s) => needsProfile(s.filter))
  const has = (k: number, row = '') => `${row}m & ${2 ** k} <> 0`

  const from = p.add(dsOf(q.fromDate))
  const to = p.add(dsOf(q.toDate))
  const readTo = p.add(dsOf(addDays(q.toDate, Math.ceil(q.windowSeconds / 86400) + 1)))
  const window = p.add(q.windowSeconds * MICROS)
  const unknown = rowLabels ? (listLabel ? `[${p.add(UNKNOWN)}]` : p.add(UNKNOWN)) : ''
  // the index of the lowest step an event matches, above its mask: "can be an earlier step" first
  const tie = `(bit_count((m & -m) - 1)::INTEGER << ${MAX_STEP_BITS}) | m`

  // step k's event is l{k-1}'s next match (n{k}); l{k} is its row, read for its time and for the
  // step after it. The last step needs only its time (u{last}), or its row for a breakdown on it.
  const needsRow = (k: number) => k < last || (rowLabels && q.byStep === last)
  const next = (k: number) => [...(needsRow(k) ? [`n${k}`] : []), ...(k === last ? [`u${k}`] : [])]
  const leads = later.flatMap((k) => [
    ...(needsRow(k) ? [`lead(CASE WHEN ${has(k)} THEN rid END IGNORE NULLS) OVER w AS n${k}`] : []),
    ...(k === last ? [`lead(CASE WHEN ${has(k)} THEN t END IGNORE NULLS) OVER w AS u${k}`] : []),
  ])
  const joins = later.filter(needsRow).map((k) => {
    const read = ['rid', 't', ...(k < last ? next(k + 1) : []), ...(rowLabels ? ['lab'] : [])]
    return `LEFT JOIN (SELECT ${read.join(', ')} FROM linked WHERE ${has(k)}) l${k} ON l${k}.rid = l${k - 1}.n${k}`
  })
  const times = ['l0.t AS t0', ...later.map((k) => (k < last ? `l${k}.t AS t${k}` : `l${k - 1}.u${k} AS t${k}`))]
  const reached = later.map((k) => `COALESCE(t${k} <= t0 + ${window}, false)::INTEGER`)
  const label = rowLabels ? `,\n             CASE WHEN depth > ${q.byStep} THEN l${q.byStep}.lab END AS lab` : ''
  const kept = ['depth', ...later.map((k) => `d${k}`), ...(rowLabels ? [`COALESCE(lab, ${unknown}) AS lab`] : [])].join(', ')

  const counts = all.map((k) => `count(*) FILTER (WHERE depth > ${k}) AS c${k}`)
  const medians = later.map((k) => `median(d${k}) AS m${k}`)
  const measures = [...counts, ...medians].join(', ')
  const breakdownLabel = profileLabel ? breakdownSql(q.byField!, p) : listLabel ? 'unnest(e.lab)' : 'e.lab'

  return `
    WITH cand AS (
      SELECT e.distinct_id AS uid, epoch_us(e.xwhen) AS t, e.ds, e.rowid AS rid, ${maskSql(q.steps, columns, p, nowLocal)} AS m
             ${rowLabels ? `, ${rowLabel(q.byField!, p)} AS lab` : ''}
      FROM event_vd e
      ${profile ? 'LEFT JOIN profile_vd u ON u.distinct_id = e.distinct_id' : ''}
      WHERE e.ds BETWEEN ${from} AND ${readTo}
        AND ${samplingSql(q.sampling)}
        AND ${crowdSql(q.crowds)}
        AND ${filterSql(q.filter, columns, p, nowLocal)}
    ),
    linked AS MATERIALIZED (
      SELECT uid, rid, t, ds, m${rowLabels ? ', lab' : ''}, row_number() OVER w AS pos,
             ${leads.join(',\n             ')}
      FROM cand WHERE m <> 0
      WINDOW w AS (PARTITION BY uid ORDER BY t, ${tie}${rowLabels ? ', lab' : ''})
    ),
    paths AS (
      SELECT l0.uid, l0.ds, ${times.join(', ')},
             1 + ${reached.join(' + ')} AS depth,
             ${later.map((k) => `CASE WHEN depth > ${k} THEN (t${k} - t${k - 1}) / ${MICROS}.0 END AS d${k}`).join(', ')}${label},
             l0.pos - depth * ${DEPTH_WEIGHT} AS rank
      FROM linked l0
      ${joins.join('\n      ')}
      WHERE ${has(0, 'l0.')} AND l0.ds BETWEEN ${from} AND ${to}
    ),
    ranked AS (
      SELECT uid, ds, ${kept},
             ds IS DISTINCT FROM lag(ds) OVER w AS day_best,
             rank = min(rank) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS all_best
      FROM paths WINDOW w AS (PARTITION BY uid ORDER BY ds, rank)
    ),
    -- a path that is both its day's and its user's best counts in both columns; one scan, no union
    picked AS ${q.byField ? 'MATERIALIZED ' : ''}(
      SELECT uid AS distinct_id, unnest(CASE WHEN NOT day_best THEN [0] WHEN all_best THEN [ds, 0] ELSE [ds] END) AS col, ${['depth', ...later.map((k) => `d${k}`), ...(rowLabels ? ['lab'] : [])].join(', ')}
      FROM ranked WHERE day_best OR all_best
    )
    SELECT col, NULL AS label, ${measures} FROM picked GROUP BY col
    ${
      q.byField
        ? `UNION ALL
    SELECT col, label, ${measures}
    FROM (SELECT e.*, ${breakdownLabel} AS label FROM picked e ${profileLabel ? 'LEFT JOIN profile_vd u ON u.distinct_id = e.distinct_id' : ''})
    GROUP BY col, label`
        : ''
    }`
}
