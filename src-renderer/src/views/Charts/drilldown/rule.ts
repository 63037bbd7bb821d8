import type { ByField, PeriodUnit } from '../../../api/analysis'
import type { CohortContent, CohortRule, EventRule, UserRule } from '../../../api/cohorts'
import type { DataType, Filter, FilterCondition } from '../../../api/schema'

/**
 * The users behind one point of an event chart, written as cohort rule content (spec 2.6): one
 * event rule "did <event> at least once in <days>" whose filter is the measure's filter, the
 * global filter and the breakdown value. A rule filter holds one AND or one OR list, so the
 * filters are multiplied out into alternatives (an OR of AND lists); "did at least once an event
 * matching A or B" is "did at least once A" or "did at least once B", so each alternative becomes
 * one event rule of an OR group. Whatever cannot be written exactly is refused with the reason.
 */

/** An OR of AND lists of conditions; [[]] matches everything. */
export type Alternatives = FilterCondition[][]

/** The most rules a group holds (the server's RULE_LIMITS.rulesPerGroup). */
export const MAX_RULES = 20

/** The label an analysis gives a missing breakdown value (domain/analysis/breakdown.ts). */
export const UNKNOWN = 'unknown'

export class Refusal extends Error {}

export function alternativesOf(filter: Filter | undefined): Alternatives {
  if (!filter || filter.conditions.length === 0) return [[]]
  return filter.relation.toUpperCase() === 'OR' ? filter.conditions.map((c) => [c]) : [filter.conditions]
}

/** (a1 OR a2) AND (b1 OR b2) = a1b1 OR a1b2 OR a2b1 OR a2b2. */
export function multiply(a: Alternatives, b: Alternatives): Alternatives {
  return a.flatMap((x) => b.map((y) => [...x, ...y]))
}

/** The bucket labels the server gives a number breakdown cut at `edges`: "-∞~600", "600~800", "800~+∞". */
export function bucketLabels(edges: number[]): string[] {
  return [`-∞~${edges[0]}`, ...edges.slice(1).map((e, i) => `${edges[i]}~${e}`), `${edges[edges.length - 1]}~+∞`]
}

/** The conditions selecting the events (or profiles) a breakdown labelled `label`. */
export function breakdownAlternatives(by: ByField, dataType: DataType, label: string): Alternatives {
  const expression = by.expression
  const condition = (fn: string, params: (string | number)[] = []): FilterCondition => ({ expression, function: fn, params })
  if (by.buckets && by.buckets.length > 0) {
    if (label === UNKNOWN) return [[condition('NULL')]]
    const edges = by.buckets
    const index = bucketLabels(edges).indexOf(label)
    if (index < 0) throw new Refusal(`“${label}” is not one of this breakdown's intervals.`)
    if (index === 0) return [[condition('LT', [edges[0]])]]
    if (index === edges.length) return [[condition('GTE', [edges[index - 1]])]]
    return [[condition('GTE', [edges[index - 1]]), condition('LT', [edges[index]])]]
  }
  if (label === UNKNOWN) {
    // a text value may also read "unknown" itself: the row holds both
    if (dataType === 'string') return [[condition('NULL')], [condition('EQ', [UNKNOWN])]]
    if (dataType === 'array<string>') throw new Refusal('“unknown” of a list property also counts empty lists, which no cohort rule can select.')
    return [[condition('NULL')]]
  }
  switch (dataType) {
    case 'number': {
      const n = Number(label)
      if (label.trim() === '' || !Number.isFinite(n)) throw new Refusal(`The value “${label}” cannot be compared exactly.`)
      return [[condition('EQ', [n])]]
    }
    case 'boolean':
      if (label !== 'true' && label !== 'false') throw new Refusal(`The value “${label}” is not true or false.`)
      return [[condition(label === 'true' ? 'TRUE' : 'FALSE')]]
    case 'datetime':
      throw new Refusal('A date-time breakdown value is one exact second; cohort rules compare times to the minute, so the users cannot be listed exactly.')
    default:
      return [[condition('EQ', [label])]]
  }
}

/** The days [from, to] of period `index` of an answer's `series` (period starts), within the chart's range. */
export function periodDays(series: string[], index: number | null, unit: PeriodUnit, fromDate: string, toDate: string): [string, string] {
  if (index === null) return [fromDate, toDate]
  const start = series[index]
  const next = new Date(`${start}T00:00:00Z`)
  if (unit === 'DAY') next.setUTCDate(next.getUTCDate() + 1)
  else if (unit === 'WEEK') next.setUTCDate(next.getUTCDate() + 7)
  else next.setUTCMonth(next.getUTCMonth() + 1)
  next.setUTCDate(next.getUTCDate() - 1)
  const end = next.toISOString().slice(0, 10)
  return [start < fromDate ? fromDate : start, end > toDate ? toDate : end]
}

export interface PointRule {
  /** event.<eventId> (tracked, virtual or $Anything). */
  event: string
  days: [string, string]
  /** Conditions on the events: the measure's filter, the global filter, an event-property breakdown. */
  events: Alternatives
  /** A user-property breakdown, read from the profile; null without one. */
  users: Alternatives | null
}

function eventRule(event: string, days: [string, string], conditions: FilterCondition[]): EventRule {
  const rule: EventRule = { type: 'event', expression: event, aggregator: 'TOTAL_COUNT', function: 'GTE', params: [1], eventAbsoluteTimeParams: days }
  return conditions.length > 0 ? { ...rule, filter: { conditions, relation: 'AND' } } : rule
}

function userRule(c: FilterCondition): UserRule {
  return { type: 'user', expression: c.expression, function: c.function, params: c.params }
}

/** The rule content of a point; a Refusal when it does not fit the rule format. */
export function contentOf(point: PointRule): CohortContent {
  if (point.events.length > MAX_RULES) {
    throw new Refusal(`The filters of this point multiply out into ${point.events.length} alternatives; a cohort group holds at most ${MAX_RULES} rules.`)
  }
  const events: CohortRule[] = point.events.map((conditions) => eventRule(point.event, point.days, conditions))
  const users = point.users
  if (!users) return { ruleGroup: [{ relation: events.length > 1 ? 'OR' : 'AND', rules: events }], relations: [] }
  // the user-property breakdown joins the event rule in one AND group when both are single
  if (events.length === 1 && users.length === 1) return { ruleGroup: [{ relation: 'AND', rules: [...events, ...users[0].map(userRule)] }], relations: [] }
  if (users.length > 1 && users.some((alternative) => alternative.length !== 1)) throw new Refusal('This breakdown value cannot be written as user rules.')
  const userGroup = users.length === 1 ? { relation: 'AND' as const, rules: users[0].map(userRule) } : { relation: 'OR' as const, rules: users.map((a) => userRule(a[0])) }
  return { ruleGroup: [{ relation: events.length > 1 ? 'OR' : 'AND', rules: events }, userGroup], relations: ['AND'] }
}
