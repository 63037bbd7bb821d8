import type { CheckedFilter } from '../expr/filters'
import { breakdownSql, readsProfile, UNKNOWN, type Breakdown } from './breakdown'
import { addDays, dsOf } from './calendar'
import { eventSql, type EventRef } from './eventRefs'
import { filterSql, needsProfile, type Columns } from './filterSql'
import { crowdSql, samplingSql } from './request'
import type { SqlParams } from './sqlParams'

/**
 * The funnel as one statement: one sort of the users' events, then steps followed by keyed lookups
 * (never a join on user and time per step):
 * 1. `cand`: the events that match any step, read from fromDate to toDate + the window, each with
 *    a flag per step and a row number (unique, so equal events stay apart).
 * 2. `linked`: each user's events in time order. Among events at the same moment, the one that can
 *    be an earlier step comes first (so a step at the same time as the previous one counts), then
 *    by the set of steps it matches and its breakdown value: events still tied are alike in every
 *    way the result sees, so their row numbers may come in any order. For every event and every
 *    step k > 0: the row number (the last step: the time) of the next event after it (never
 *    itself) that matches step k, by window functions over that one ordering; and its place in
 *    that ordering (`pos`).
 * 3. `paths`: from each entry (a first-step event inside the range), step k+1 is the next match
 *    after step k's event: the earliest, hence deepest, path. Following it reads `linked` by row
 *    number (a keyed lookup of the step's own events). Steps later than entry + window end it.
 * 4. `picked`: per user and entry day, and per user over the range (`col` 0), the deepest path, the
 *    first entry (in that order) among equals, with its step-to-step times and breakdown value.
 * 5. per column and breakdown value: the users at each depth and the median time of each pair.
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

/** The label of one event row for an event breakdown; a list for array properties, unnested last. */
function rowLabel(b: Breakdown, p: SqlParams): string {
  if (b.property.dataType !== 'array<string>' || b.buckets) return breakdownSql(b, p)
  const v = b.property.sql
  return `list_transform(CASE WHEN len(${v}) > 0 THEN ${v} ELSE [NULL::VARCHAR] END, x -> COALESCE(x, ${p.add(UNKNOWN)}))`
}

export function funnelSql(q: FunnelQuery, columns: Columns, p: SqlParams, nowLocal: string): string {
  const all = q.steps.map((_, k) => k)
  const later = all.slice(1)
  const last = q.steps.length - 1
  const profileLabel = !!q.byField && readsProfile([q.byField])
  const rowLabels = !!q.byField && !profileLabel
  const listLabel = rowLabels && q.byField!.property.dataType === 'array<string>' && !q.byField!.buckets
  const profile = needsProfile(q.filter) || q.steps.some((s) => needsProfile(s.filter))

  const matches = q.steps.map((s, k) => `COALESCE(${eventSql(s.event, columns, p, nowLocal)} AND ${filterSql(s.filter, columns, p, nowLocal)}, false) AS s${k}`)
  const from = p.add(dsOf(q.fromDate))
  const to = p.add(dsOf(q.toDate))
  const readTo = p.add(dsOf(addDays(q.toDate, Math.ceil(q.windowSeconds / 86400) + 1)))
  const window = p.add(q.windowSeconds * MICROS)
  const unknown = rowLabels ? (listLabel ? `[${p.add(UNKNOWN)}]` : p.add(UNKNOWN)) : ''

  // step k's event is l{k-1}'s next match (n{k}); l{k} is its row, read for its time and for the
  // step after it. The last step needs only its time (u{last}), or its row for a breakdown on it.
  const needsRow = (k: number) => k < last || (rowLabels && q.byStep === last)
  const next = (k: number) => [...(needsRow(k) ? [`n${k}`] : []), ...(k === last ? [`u${k}`] : [])]
  const aggregates = later.flatMap((k) => [
    ...(needsRow(k) ? [`first_value(CASE WHEN s${k} THEN rid END IGNORE NULLS) OVER following AS n${k}`] : []),
    ...(k === last ? [`first_value(CASE WHEN s${k} THEN t END IGNORE NULLS) OVER following AS u${k}`] : []),
  ])
  const joins = later.filter(needsRow).map((k) => {
    const read = ['rid', 't', ...(k < last ? next(k + 1) : []), ...(rowLabels ? ['lab'] : [])]
    return `LEFT JOIN (SELECT ${read.join(', ')} FROM linked WHERE s${k}) l${k} ON l${k}.rid = l${k - 1}.n${k}`
  })
  const times = ['l0.t AS t0', ...later.map((k) => (k < last ? `l${k}.t AS t${k}` : `l${k - 1}.u${k} AS t${k}`))]
  const reached = later.map((k) => `COALESCE(t${k} <= t0 + ${window}, false)::INTEGER`)
  const order = `t, first_step, step_mask${rowLabels ? ', lab' : ''}, rid`
  const label = rowLabels ? `,\n             CASE WHEN depth > ${q.byStep} THEN l${q.byStep}.lab END AS lab` : ''

  const counts = all.map((k) => `count(*) FILTER (WHERE best.depth > ${k}) AS c${k}`)
  const medians = later.map((k) => `median(best.d${k}) AS m${k}`)
  const measures = [...counts, ...medians].join(', ')
  const breakdownLabel = profileLabel ? breakdownSql(q.byField!, p) : listLabel ? 'unnest(best.lab)' : 'best.lab'

  return `
    WITH cand AS (
      SELECT e.distinct_id AS uid, epoch_us(e.xwhen) AS t, e.ds, ${matches.join(', ')},
             CASE ${all.map((k) => `WHEN s${k} THEN ${k}`).join(' ')} END AS first_step,
             ${all.map((k) => `(s${k}::INTEGER << ${k})`).join(' | ')} AS step_mask
             ${rowLabels ? `, ${rowLabel(q.byField!, p)} AS lab` : ''}
      FROM event_vd e
      ${profile ? 'LEFT JOIN profile_vd u ON u.distinct_id = e.distinct_id' : ''}
      WHERE e.ds BETWEEN ${from} AND ${readTo}
        AND ${samplingSql(q.sampling)}
        AND ${crowdSql(q.crowds)}
        AND ${filterSql(q.filter, columns, p, nowLocal)}
    ),
    linked AS MATERIALIZED (
      SELECT uid, rid, t, ds, ${all.map((k) => `s${k}`).join(', ')}${rowLabels ? ', lab' : ''}, row_number() OVER ordered AS pos,
             ${aggregates.join(',\n             ')}
      -- numbered after the filter: a window over all rows would keep the filter from the scan
      FROM (SELECT *, row_number() OVER () AS rid FROM cand WHERE first_step IS NOT NULL)
      WINDOW ordered AS (PARTITION BY uid ORDER BY ${order}),
             following AS (PARTITION BY uid ORDER BY ${order} ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)
    ),
    paths AS (
      SELECT l0.uid, l0.ds, ${times.join(', ')},
             1 + ${reached.join(' + ')} AS depth,
             ${later.map((k) => `CASE WHEN depth > ${k} THEN (t${k} - t${k - 1}) / ${MICROS}.0 END AS d${k}`).join(', ')}${label},
             l0.pos - depth * ${DEPTH_WEIGHT} AS rank
      FROM linked l0
      ${joins.join('\n      ')}
      WHERE l0.s0 AND l0.ds BETWEEN ${from} AND ${to}
    ),
    picked AS MATERIALIZED (
      SELECT uid AS distinct_id, COALESCE(ds, 0) AS col,
             arg_min({'depth': depth, ${later.map((k) => `'d${k}': d${k}`).join(', ')}${rowLabels ? `, 'lab': COALESCE(lab, ${unknown})` : ''}}, rank) AS best
      FROM paths GROUP BY GROUPING SETS ((uid, ds), (uid))
    )
    SELECT col, NULL AS label, ${measures} FROM picked GROUP BY col
    ${
      q.byField
        ? `UNION ALL
    SELECT col, label, ${measures}
    FROM (SELECT col, best, ${breakdownLabel} AS label FROM picked e ${profileLabel ? 'LEFT JOIN profile_vd u ON u.distinct_id = e.distinct_id' : ''})
    GROUP BY col, label`
        : ''
    }`
}
