import type { CheckedFilter } from '../expr/filters'
import { breakdownSql, readsProfile, UNKNOWN, type Breakdown } from './breakdown'
import { addDays, dsOf } from '../time/calendar'
import type { EventRef } from '../expr/eventRefs'
import { filterSql, needsProfile, type ExprScope } from '../expr/filterSql'
import { crowdFilter, samplingSql } from './request'
import { HOLD_CONSTANT } from './funnelPaths'
import { MAX_SLOTS, SPAN_AT, STEP_BITS } from './funnelRows'
import type { Dialect, SqlParams } from '../../warehouse/dialect'
import { spanMask, type FunnelExclusion, type FunnelOrder } from './funnelOptions'

/**
 * The funnel's SQL: the warehouse reads the candidate events, the path following runs over them in
 * funnelPaths.ts. Why the split (measured on the 10M-event bench, bench/analysis.ts): following
 * paths in SQL needs a window sorting every candidate event per user with a lookahead per step, a
 * keyed join per step and a second sort of the paths: 4 s there. Grouping the same rows by a
 * counting sort on the dense user ids and one pass per user take about a third of that; DuckDB
 * still does the reading, filtering, cohorts, sampling and labels.
 *
 * The scan returns, for each event that matches any step: `uid` (distinct_id - the part's first
 * id), `t` (epoch microseconds as DOUBLE, exact below 2^53) and `md`: the steps it matches as a
 * bit mask (bit k: step k) plus, above STEP_BITS, its day when it can be an entry: its key
 * (entryDays) - fromDate's key + 1, 0 past toDate (funnelPaths.ts maps it to a column; integer
 * arithmetic on ds costs less than date arithmetic on 10M rows). With a breakdown also `li`: the index of its label in the
 * label dictionary, -1 when the row carries none. Labels are read only for the rows that give a
 * path its label: rows of the breakdown step (an event property), entry rows (a user property),
 * or every row when the value is held constant over the steps (byStepIndex -1). The dictionary comes in the same result, as rows with uid -1, `li` and the label
 * (`lab`: VARCHAR, or a list for an array property broken down by element), numbered in label
 * order so that tied events sort by label.
 *
 * Exclusions (funnelOptions.ts) add the events they match, `md` carrying the spans they stop (bit
 * k: between steps k and k+1) above bit 32, from the same CASE as the steps' bits. With order STRICT every other event the filter keeps
 * comes too, with no steps: it interrupts. When the steps are events by name alone, md's low part is
 * the event's code instead (eventCodes), its bits and spans looked up by the path following.
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
  /** The step whose event gives the breakdown value (event properties), 0-based; HOLD_CONSTANT: every step's (byStepIndex -1). */
  byStep: number
  /** The conversion window in seconds. */
  windowSeconds: number
  order: FunnelOrder
  exclusions: FunnelExclusion[]
}

/** The label of one event row for an event breakdown; a list for array properties, unnested last. */
function rowLabel(b: Breakdown, d: Dialect, p: SqlParams): string {
  if (b.property.dataType !== 'array<string>' || b.buckets) return breakdownSql(b, d, p)
  return d.map(d.orNullElement(d.columnOf(b.property.column)), (x) => `COALESCE(${x}, ${p.add(UNKNOWN)})`)
}

/**
 * The steps an event matches as a bit mask (bit k: step k), by one CASE on the event name: on 10M
 * events, one comparison per step cost more than reading the rows (a CASE tests the name once per
 * branch until one matches). Inside each event's branch, a step's filter and a virtual event's
 * member filters gate the step's bit; $Anything steps apply to every row (d.caseOf: CASE x WHEN). Same bits as
 * COALESCE(eventSql(step) AND filterSql(step), false) for each step. `bits` gives each item's
 * value: 2^k for step k; an exclusion's spans above bit 32 (funnelRows.ts), in the same CASE.
 */
function maskSql(steps: FunnelStep[], bits: number[], scope: ExprScope, p: SqlParams): string {
  const d = scope.dialect
  const type = bits.some((b) => b >= 2 ** 31) ? 'bigint' : 'integer'
  const always = d.truth(true)
  const bit = (condition: string, k: number) => {
    if (condition === always) return String(bits[k])
    const shift = Math.log2(bits[k])
    const flag = d.cast(`COALESCE(${condition}, ${d.truth(false)})`, type)
    return Number.isInteger(shift) ? `(${d.shiftLeft(flag, shift)})` : `(${flag} * ${bits[k]})`
  }
  const both = (a: string, b: string) => (a === always ? b : b === always ? a : `(${a}) AND (${b})`)
  const branches = new Map<string, string[]>()
  const anywhere: string[] = []
  steps.forEach((step, k) => {
    const own = filterSql(step.filter, scope, p)
    if (step.event.kind === 'any') {
      anywhere.push(bit(own, k))
      return
    }
    // a virtual event's members naming the same event are alternatives
    const members = new Map<string, string[]>()
    for (const m of step.event.members) members.set(m.eventId, [...(members.get(m.eventId) ?? []), filterSql(m.filter, scope, p)])
    for (const [eventId, filters] of members) {
      const member = filters.includes(always) ? always : filters.map((f) => `(${f})`).join(' OR ')
      branches.set(eventId, [...(branches.get(eventId) ?? []), bit(both(member, own), k)])
    }
  })
  const named = [...branches].map(([eventId, ors]): [string, string] => [p.add(eventId), d.bitOr(ors)])
  return d.bitOr([named.length ? d.caseOf('e.xwhat', named, '0') : '0', ...anywhere])
}

/**
 * When the steps and exclusions are events by name alone (no filter, no $Anything) and no label is
 * read: the events' names, and per name's place in that list (1-based; 0: none of them) the steps
 * bits and exclusion spans it stands for, as md's low part (funnelRows.ts). The scan then returns
 * the place (Dialect.positionIn), a function of the name only that the engine computes once per
 * distinct name on a dictionary-compressed column; the path following maps it back (placeEvents).
 */
export function eventCodes(q: Pick<FunnelQuery, 'steps' | 'exclusions' | 'byField'>): { names: string[]; md: Float64Array } | null {
  if (q.byField) return null
  const unfiltered = (f: CheckedFilter | undefined) => !f || f.conditions.length === 0
  const steps = new Map<string, number>()
  const spans = new Map<string, number>()
  const items: [FunnelStep, Map<string, number>, number][] = [...q.steps.map((s, k): [FunnelStep, Map<string, number>, number] => [s, steps, 1 << k]), ...q.exclusions.map((x): [FunnelStep, Map<string, number>, number] => [x, spans, spanMask(x)])]
  for (const [item, into, bits] of items) {
    if (item.event.kind === 'any' || !unfiltered(item.filter) || item.event.members.some((m) => !unfiltered(m.filter))) return null
    for (const m of item.event.members) {
      into.set(m.eventId, (into.get(m.eventId) ?? 0) | bits)
      if (!steps.has(m.eventId)) steps.set(m.eventId, 0)
    }
  }
  const names = [...steps.keys()]
  return { names, md: Float64Array.from([0, ...names.map((n) => steps.get(n)! + (spans.get(n) ?? 0) * SPAN_AT)]) }
}

/**
 * A day's place in a calendar of 31-day months and 372-day years: monotone, from integer
 * arithmetic on ds (yyyyMMdd), and compact enough that the entry days of MAX_RANGE_DAYS (about 10
 * years) fit the 12 bits of md's day. A plain difference of ds jumps by 8870 at a new year: a
 * range across one overflowed the packing (a 500).
 */
export function dayIndex(ds: number): number {
  return Math.floor(ds / 10000) * 372 + (Math.floor(ds / 100) % 100) * 31 + (ds % 100)
}

/**
 * How the scan numbers an entry day in md's day field (funnelRows.ts): its key minus the key of
 * fromDate's ds, plus one. The key is ds itself (a subtraction) where the field holds the
 * difference: always without exclusions (placeEvents reads the whole number above the steps), and
 * with them (their spans sit at bit 32) while the range's ds differ by less than 2^12. Otherwise
 * dayIndex: its integer divisions cost about 0.4 s of CPU more per 10M events read than the
 * subtraction (measured on the bench's funnel).
 */
export interface EntryDays {
  key: (ds: number) => number
  keySql: (d: Dialect) => string
}

const byDs: EntryDays = { key: (ds) => ds, keySql: () => 'e.ds' }
const byDayIndex: EntryDays = { key: dayIndex, keySql: (d) => `((${d.intDiv('e.ds', 10000)}) * 372 + (${d.intDiv('e.ds', 100)}) % 100 * 31 + e.ds % 100)` }

export function entryDays(q: Pick<FunnelQuery, 'fromDate' | 'toDate' | 'exclusions'>): EntryDays {
  const spanned = q.exclusions.some((x) => spanMask(x) !== 0)
  return !spanned || dsOf(q.toDate) - dsOf(q.fromDate) + 1 < MAX_SLOTS ? byDs : byDayIndex
}

/** The distinct_ids of one part of the users: parts bound the memory of the path following. */
export interface UserRange {
  lo: number
  hi: number
}

/** The last day read: entries run to toDate, their steps up to the window past it. */
function readToDs(q: FunnelQuery): number {
  return dsOf(addDays(q.toDate, Math.ceil(q.windowSeconds / 86400) + 1))
}

/** How many events the funnel reads (an upper bound of the candidates) and the range of their users. */
export function funnelSizeSql(q: FunnelQuery, p: SqlParams): string {
  return `SELECT count(*) AS n, min(e.distinct_id) AS lo, max(e.distinct_id) AS hi FROM event_vd e
          WHERE e.ds BETWEEN ${p.add(dsOf(q.fromDate))} AND ${p.add(readToDs(q))}`
}

/** Which step's row gives a path its label: the breakdown step (or every step's: HOLD_CONSTANT), or the entry for a user property. */
export function labelStep(q: FunnelQuery): number {
  return q.byField && readsProfile([q.byField]) ? 0 : q.byStep
}

export function funnelScanSql(q: FunnelQuery, scope: ExprScope, p: SqlParams, users: UserRange): string {
  const d = scope.dialect
  const profile = needsProfile(q.filter) || q.steps.some((s) => needsProfile(s.filter)) || (!!q.byField && readsProfile([q.byField]))
  const spans = q.exclusions.length > 0
  const codes = eventCodes(q)
  const mask = codes ? d.positionIn(codes.names.map((n) => p.add(n)), 'e.xwhat') : maskSql([...q.steps, ...q.exclusions], [...q.steps.map((_, k) => 2 ** k), ...q.exclusions.map((x) => spanMask(x) * SPAN_AT)], scope, p)
  const step = q.byField ? labelStep(q) : null
  const list = !!q.byField && q.byField.property.dataType === 'array<string>' && !q.byField.buckets
  const label = step === null ? null : step === HOLD_CONSTANT ? rowLabel(q.byField!, d, p) : d.labelWhere(`${d.bitAnd(`(${mask})`, 2 ** step)} <> 0`, rowLabel(q.byField!, d, p), list)
  const fromDs = dsOf(q.fromDate)
  const days = entryDays(q)
  const column = `CASE WHEN e.ds <= ${p.add(dsOf(q.toDate))} THEN ${days.keySql(d)} - ${p.add(days.key(fromDs) - 1)} ELSE 0 END`
  const cand = `
      SELECT ${d.cast(`(e.distinct_id - ${p.add(users.lo)})`, 'integer')} AS uid, ${d.cast(d.epochMicros('e.xwhen'), 'number')} AS t, ${d.cast(`(${mask})`, spans && !codes ? 'bigint' : 'integer')} AS m, ${column} AS col
             ${label ? `, ${label} AS lab` : ''}
      FROM event_vd e
      ${profile ? 'LEFT JOIN profile_vd u ON u.distinct_id = e.distinct_id' : ''}
      WHERE e.ds BETWEEN ${p.add(fromDs)} AND ${p.add(readToDs(q))}
        AND e.distinct_id BETWEEN ${p.add(users.lo)} AND ${p.add(users.hi)}
        AND ${samplingSql(q.sampling, d)}
        AND ${crowdFilter(q.crowds, d)}
        AND ${filterSql(q.filter, scope, p)}`
  // in a strict order every other event comes too (no steps): it interrupts
  const md = `${d.cast(`(c.m + ${d.cast('c.col', 'bigint')} * ${2 ** STEP_BITS})`, 'number')} AS md`
  const keep = q.order === 'STRICT' ? d.truth(true) : 'c.m <> 0'
  if (!label) return `SELECT c.uid, c.t, ${md} FROM (${cand}) c WHERE ${keep}`
  const stepped = (m: string) => (spans ? `(${d.bitAnd(m, 2 ** STEP_BITS - 1)}) <> 0` : `${m} <> 0`)
  return d.labelledRows({ rows: cand, counted: (at) => stepped(`${at}m`), columns: `c.uid, c.t, ${md}`, keep, dictionary: '-1, 0, 0', list })
}
