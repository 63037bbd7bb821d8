import type { BetweenRelation, CohortContent, CohortRule, CountAggregator, EventRule, GroupRelation, UserRule } from '../../api/cohorts'
import type { Filter, FilterFunction } from '../../api/schema'
import { emptyFilter, newKey, type FilterDraft, type PropertyRefDraft } from '../../filters/draft'
import { OPERATORS, operatorOf, paramsComplete, type Operator } from '../../filters/operators'

export { emptyFilter, newKey, type ConditionDraft, type FilterDraft, type PropertyRefDraft } from '../../filters/draft'

/**
 * The cohort builder's state, and its way to the request body of POST /uba/api/cohort (spec 2.6).
 * Drafts may be incomplete while they are written; `checkDraft` says what is missing, and where,
 * before anything is sent.
 */

export interface UserRuleDraft {
  key: string
  type: 'user'
  property: PropertyRefDraft | null
  /** '' until an operator is picked. */
  function: FilterFunction | ''
  params: (string | number)[]
}

/** Days of an event rule: the last n days (today included), n to m days ago, or two dates. */
export type WindowDraft =
  | { kind: 'last'; days: number | '' }
  | { kind: 'ago'; from: number | ''; to: number | '' }
  | { kind: 'between'; from: string; to: string }

export interface EventRuleDraft {
  key: string
  type: 'event'
  eventId: string
  aggregator: CountAggregator
  /** REMOVE_DUMPLICATE: the event property whose distinct values are counted. */
  property: PropertyRefDraft | null
  /** One of COUNT_OPERATORS. */
  function: FilterFunction
  params: (number | '')[]
  window: WindowDraft
  filter: FilterDraft
}

export type RuleDraft = UserRuleDraft | EventRuleDraft

export interface GroupDraft {
  key: string
  relation: GroupRelation
  rules: RuleDraft[]
}

export interface CohortDraft {
  name: string
  dynamic: 0 | 1
  groups: GroupDraft[]
  /** between[i] joins the groups up to i with group i + 1. */
  between: BetweenRelation[]
}

/** Operators that compare an event count: the numeric ones (a count is never missing), in words. */
export const COUNT_OPERATORS: readonly Operator[] = [
  { function: 'GTE', label: 'at least', params: 'number' },
  { function: 'LTE', label: 'at most', params: 'number' },
  { function: 'EQ', label: 'exactly', params: 'number' },
  { function: 'NOT_EQ', label: 'not exactly', params: 'number' },
  { function: 'GT', label: 'more than', params: 'number' },
  { function: 'LT', label: 'fewer than', params: 'number' },
  { function: 'RANGE', label: 'between', params: 'range' },
]

/** A user rule has no event to be relative to. */
export function userOperators(property: PropertyRefDraft | null): readonly Operator[] {
  return property ? OPERATORS[property.dataType].filter((o) => o.function !== 'RELATIVE_TIME_OF_EVENT') : []
}

export function newUserRule(): UserRuleDraft {
  return { key: newKey(), type: 'user', property: null, function: '', params: [] }
}

export function newEventRule(eventId = ''): EventRuleDraft {
  return { key: newKey(), type: 'event', eventId, aggregator: 'TOTAL_COUNT', property: null, function: 'GTE', params: [1], window: { kind: 'last', days: 30 }, filter: emptyFilter() }
}

export function newGroup(rule: RuleDraft = newUserRule()): GroupDraft {
  return { key: newKey(), relation: 'AND', rules: [rule] }
}

export function newDraft(): CohortDraft {
  return { name: '', dynamic: 1, groups: [newGroup()], between: [] }
}

/** Where a problem is: a field of the form, a group, one rule of a group, a relation between groups. */
export interface Target {
  field?: 'name' | 'dynamic' | 'content'
  group?: number
  rule?: number
  between?: number
}

export interface Problem extends Target {
  message: string
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0
const DAY = /^\d{4}-\d{2}-\d{2}$/

function countProblem(rule: EventRuleDraft): string | null {
  if (!rule.eventId) return 'Pick an event.'
  if (rule.aggregator === 'REMOVE_DUMPLICATE' && !rule.property) return 'Pick the property whose distinct values are counted.'
  const [low, high] = rule.params
  if (typeof low !== 'number' || !Number.isFinite(low)) return 'Enter how many times.'
  if (rule.function === 'RANGE' && (typeof high !== 'number' || !Number.isFinite(high) || high < low)) return 'Enter a range whose second number is not smaller than the first.'
  const w = rule.window
  if (w.kind === 'last' && !(isCount(w.days) && w.days >= 1)) return 'Enter a number of days, 1 or more.'
  if (w.kind === 'ago' && !(isCount(w.from) && isCount(w.to) && w.from >= w.to)) return 'Enter days ago from the earlier to the later day (e.g. 14 to 7).'
  if (w.kind === 'between' && !(DAY.test(w.from) && DAY.test(w.to) && w.from <= w.to)) return 'Choose a first and a last day, in order.'
  return null
}

function userProblem(rule: UserRuleDraft): string | null {
  if (!rule.property) return 'Pick a user property.'
  const operator = userOperators(rule.property).find((o) => o.function === rule.function)
  if (!operator) return 'Pick how to compare the property.'
  return paramsComplete(operator.params, rule.params) ? null : 'Fill in the value to compare with.'
}

/** The first thing that keeps the draft from being sent, or null. */
export function checkDraft(draft: CohortDraft): Problem | null {
  if (draft.name.trim() === '') return { field: 'name', message: 'Give the cohort a name.' }
  for (const [g, group] of draft.groups.entries()) {
    for (const [r, rule] of group.rules.entries()) {
      const message = rule.type === 'user' ? userProblem(rule) : countProblem(rule)
      if (message) return { group: g, rule: r, message }
    }
  }
  return null
}

/** Where a server 400 points, from the parameter path it names (e.g. content.ruleGroup[1].rules[0].function). */
export function targetOf(path: string): Target {
  const rule = /^content\.ruleGroup\[(\d+)\](?:\.rules\[(\d+)\])?/.exec(path)
  if (rule) return { group: Number(rule[1]), ...(rule[2] !== undefined ? { rule: Number(rule[2]) } : {}) }
  const between = /^content\.relations(?:\[(\d+)\])?/.exec(path)
  if (between) return { between: between[1] !== undefined ? Number(between[1]) : 0 }
  if (path === 'name' || path === 'dynamic') return { field: path }
  return { field: 'content' }
}

/** The server's message without the path it starts with, for showing next to the rule itself. */
export function localMessage(message: string, path: string): string {
  const trimmed = message.startsWith(`${path}: `) ? message.slice(path.length + 2) : message.startsWith(path) ? message.slice(path.length).trim() : message
  return trimmed.charAt(0).toUpperCase() + trimmed.slice(1)
}

/** The complete conditions of an event rule's filter; one still being written is left out (the editor says "not applied"). */
function filterOf(draft: FilterDraft, eventId: string): Filter | undefined {
  const conditions = draft.conditions.flatMap((c) => {
    const operator = c.property ? operatorOf(c.property.dataType, c.function) : undefined
    if (!c.property || !operator || !paramsComplete(operator.params, c.params)) return []
    const expression = c.property.scope === 'user' ? `user.${c.property.id}` : `event.${eventId}.${c.property.id}`
    return [{ expression, function: operator.function, params: c.params }]
  })
  return conditions.length > 0 ? { conditions, relation: draft.relation } : undefined
}

function windowOf(w: WindowDraft): Pick<EventRule, 'eventAbsoluteTimeParams' | 'eventRelativeTimeParam'> {
  if (w.kind === 'between') return { eventAbsoluteTimeParams: [w.from, w.to] }
  if (w.kind === 'ago') return { eventRelativeTimeParam: `${w.from},${w.to},day` }
  return { eventRelativeTimeParam: `${Number(w.days) - 1},0,day` }
}

/** The operators a user rule takes: those of filters but RELATIVE_TIME_OF_EVENT (it needs an event). */
const isUserFunction = (f: FilterFunction | ''): f is UserRule['function'] => f !== '' && f !== 'RELATIVE_TIME_OF_EVENT'
const isCountFunction = (f: FilterFunction): f is EventRule['function'] => COUNT_OPERATORS.some((o) => o.function === f)

function ruleOf(rule: RuleDraft): CohortRule {
  if (rule.type === 'user') {
    // checkDraft has asked for the operator; a rule without one is a mistake of the caller, never sent
    if (!isUserFunction(rule.function)) throw new Error('contentOf: a user rule without an operator it takes (checkDraft first)')
    return { type: 'user', expression: `user.${rule.property?.id ?? ''}`, function: rule.function, params: rule.params }
  }
  // the builder offers COUNT_OPERATORS only
  if (!isCountFunction(rule.function)) throw new Error(`contentOf: an event rule compares a count, not with ${rule.function}`)
  const counted = rule.aggregator === 'REMOVE_DUMPLICATE' && rule.property ? `.${rule.property.id}` : ''
  const filter = filterOf(rule.filter, rule.eventId)
  return {
    type: 'event',
    expression: `event.${rule.eventId}${counted}`,
    aggregator: rule.aggregator,
    function: rule.function,
    params: (rule.function === 'RANGE' ? rule.params.slice(0, 2) : rule.params.slice(0, 1)) as number[],
    ...windowOf(rule.window),
    ...(filter ? { filter } : {}),
  }
}

/** The rule content as the API takes it (checkDraft first). */
export function contentOf(draft: CohortDraft): CohortContent {
  return {
    ruleGroup: draft.groups.map((g) => ({ relation: g.relation, rules: g.rules.map(ruleOf) })),
    relations: draft.groups.slice(1).map((_, i) => draft.between[i] ?? 'AND'),
  }
}
