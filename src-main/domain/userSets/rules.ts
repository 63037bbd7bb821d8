import type { MetaDb } from '../../store/meta'
import { word } from '../lenient'
import { ignoreUnknown } from '../ignored'
import { resolveEvent, resolveProperty, type EventRef, type PropertyExpr } from '../expr/eventRefs'
import type { Columns } from '../expr/filterSql'
import { day, MAX_RANGE_DAYS } from '../time/days'
import { AppError, badParam } from '../errors'
import { OPERATORS, plainFilter, validateFilter, type CheckedCondition, type CheckedFilter } from '../expr/filters'
import type { PropertyLookup } from '../schema/lookup'
import { ANY_EVENT } from '../schema/lookup'

/**
 * Cohort rule content (spec 2.6, spec-notes "Cohorts"), checked against the plan. Every refusal is
 * a 400 naming the exact path, e.g. `content.ruleGroup[1].rules[0].function`. User rules reuse the
 * filter checks of expr/filters.ts (the same operator catalogue); event rules count events (or
 * distinct values of one of their properties) in a window of days and compare the count.
 */

export type GroupRelation = 'AND' | 'OR'
export type BetweenRelation = 'AND' | 'AND_NOT'

/** Days of an event rule: absolute yyyy-MM-dd, or counted back from today (n days ago .. m days ago). */
export type EventWindow = { kind: 'absolute'; from: string; to: string } | { kind: 'relative'; from: number; to: number }

export interface UserRule {
  type: 'user'
  condition: CheckedCondition
}

export interface EventRule {
  type: 'event'
  event: EventRef
  /** REMOVE_DUMPLICATE: the property whose distinct values are counted. */
  property: PropertyExpr | null
  aggregator: 'TOTAL_COUNT' | 'REMOVE_DUMPLICATE'
  function: string
  params: number[]
  window: EventWindow
  filter?: CheckedFilter
}

export type Rule = UserRule | EventRule

export interface RuleGroup {
  relation: GroupRelation
  rules: Rule[]
}

export interface CheckedContent {
  groups: RuleGroup[]
  /** Exactly groups - 1 relations: the i-th joins the result so far with group i + 1. */
  between: BetweenRelation[]
  /** The content as stored and returned: relations upper case, property ids folded. */
  plain: Record<string, unknown>
}

export interface RuleEnv {
  meta: MetaDb
  appKey: string
  lookup: PropertyLookup
  columns: Columns
}

export const RULE_LIMITS = { groups: 20, rulesPerGroup: 20 } as const

const USER_KEYS = ['type', 'expression', 'function', 'params']
const EVENT_KEYS = ['type', 'expression', 'aggregator', 'function', 'params', 'eventAbsoluteTimeParams', 'eventRelativeTimeParam', 'filter']
/** The numeric operators of the catalogue; an event count is never missing, so NULL and NOT_NULL do not apply. */
export const COUNT_OPERATORS = OPERATORS.number.filter((o) => o.function !== 'NULL' && o.function !== 'NOT_NULL').map((o) => o.function)

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function onlyKeys(value: Record<string, unknown>, allowed: string[], path: string): void {
  ignoreUnknown(value, allowed, path)
}

/** An error of the filter checks, re-addressed from the stand-in filter path to the rule's own path. */
function readdressed(err: unknown, from: string, to: string): unknown {
  if (!(err instanceof AppError) || !Array.isArray(err.data)) return err
  const data = (err.data as string[]).map((d) => (d.startsWith(from) ? to + d.slice(from.length) : d))
  return new AppError(err.status, err.code, err.message.split(from).join(to), data)
}

/** One condition checked exactly as a filter condition is, its errors naming `path`. */
function asCondition(value: Record<string, unknown>, path: string, lookup: PropertyLookup): CheckedCondition {
  const standIn = 'rule'
  try {
    return validateFilter({ conditions: [value], relation: 'AND' }, standIn, lookup).conditions[0]
  } catch (err) {
    throw readdressed(err, `${standIn}.conditions[0]`, path)
  }
}

function userRule(rule: Record<string, unknown>, path: string, env: RuleEnv): UserRule {
  onlyKeys(rule, USER_KEYS, path)
  if (typeof rule.expression === 'string' && rule.expression.startsWith('event.')) {
    throw badParam(`${path}.expression`, `${path}.expression: a user rule reads a user property, user.<propertyId>; use type event for events`)
  }
  const { type: _type, ...condition } = rule
  const checked = asCondition(condition, path, env.lookup)
  if (checked.function === 'RELATIVE_TIME_OF_EVENT') {
    throw badParam(`${path}.function`, `${path}.function: RELATIVE_TIME_OF_EVENT needs an event; a user rule has none (use RELATIVE_TIME_OF_CUURENT)`)
  }
  return { type: 'user', condition: checked }
}

const RELATIVE = /^\s*(\d{1,4})\s*,\s*(\d{1,4})\s*,\s*day\s*$/i
const RELATIVE_SHORT = /^\s*(\d{1,4})\s+day\s*$/i

function windowOf(rule: Record<string, unknown>, path: string): EventWindow {
  const absolute = rule.eventAbsoluteTimeParams
  const relative = rule.eventRelativeTimeParam
  // both sent: the absolute one is used (spec 2.6)
  if (absolute !== undefined && absolute !== null) {
    const field = `${path}.eventAbsoluteTimeParams`
    if (!Array.isArray(absolute) || absolute.length !== 2) throw badParam(field, `${field} must be two dates [from, to], yyyy-MM-dd`)
    const from = day(absolute[0], `${field}[0]`)
    const to = day(absolute[1], `${field}[1]`)
    if (from > to) throw badParam(field, `${field}: the first date must not be after the second`)
    if ((Date.parse(to) - Date.parse(from)) / 86400000 > MAX_RANGE_DAYS) throw badParam(field, `${field}: a window covers at most ${MAX_RANGE_DAYS} days`)
    return { kind: 'absolute', from, to }
  }
  const field = `${path}.eventRelativeTimeParam`
  if (relative === undefined || relative === null) {
    throw badParam([`${path}.eventAbsoluteTimeParams`, field], `${path}: an event rule needs eventAbsoluteTimeParams or eventRelativeTimeParam`)
  }
  const long = typeof relative === 'string' ? RELATIVE.exec(relative) : null
  const short = typeof relative === 'string' ? RELATIVE_SHORT.exec(relative) : null
  if (!long && !short) throw badParam(field, `${field} must be "<n>,<m>,day" (from n days ago to m days ago) or "<n> day" (from n days ago to today)`)
  const from = Number((long ?? short)![1])
  const to = long ? Number(long[2]) : 0
  if (from < to) throw badParam(field, `${field}: n must not be smaller than m in "<n>,<m>,day"`)
  if (from > MAX_RANGE_DAYS) throw badParam(field, `${field}: a window reaches back at most ${MAX_RANGE_DAYS} days`)
  return { kind: 'relative', from, to }
}

/** A filter condition on an event property must name the rule's event (or $Anything on either side). */
function fitsEvent(eventId: string, ref: EventRef): boolean {
  return eventId === ANY_EVENT || ref.kind === 'any' || eventId === ref.eventId || ref.members.some((m) => m.eventId === eventId)
}

function eventRule(rule: Record<string, unknown>, path: string, env: RuleEnv): EventRule {
  onlyKeys(rule, EVENT_KEYS, path)
  const expression = rule.expression
  if (typeof expression !== 'string' || !/^event\.[^.\s]+(\.[^.\s]+)?$/.test(expression)) {
    throw badParam(`${path}.expression`, `${path}.expression must be event.<eventId> or event.<eventId>.<propertyId>`)
  }
  const parts = expression.split('.')
  const event = resolveEvent(env.meta, env.appKey, `event.${parts[1]}`, `${path}.expression`, env.lookup)
  const aggregator = word(rule.aggregator, ['TOTAL_COUNT', 'REMOVE_DUMPLICATE'])
  if (aggregator !== 'TOTAL_COUNT' && aggregator !== 'REMOVE_DUMPLICATE') throw badParam(`${path}.aggregator`, `${path}.aggregator must be TOTAL_COUNT or REMOVE_DUMPLICATE`)
  if (aggregator === 'TOTAL_COUNT' && parts.length === 3) {
    throw badParam(`${path}.expression`, `${path}.expression: TOTAL_COUNT counts events, so the expression is event.<eventId> (REMOVE_DUMPLICATE counts the distinct values of a property)`)
  }
  if (aggregator === 'REMOVE_DUMPLICATE' && parts.length === 2) {
    throw badParam(`${path}.expression`, `${path}.expression: REMOVE_DUMPLICATE counts the distinct values of a property, event.<eventId>.<propertyId>`)
  }
  const property = parts.length === 3 ? resolveProperty(expression, `${path}.expression`, env.lookup, env.columns) : null
  rule.function = word(rule.function, COUNT_OPERATORS)
  if (typeof rule.function === 'string' && !COUNT_OPERATORS.includes(rule.function)) {
    throw badParam(`${path}.function`, `${path}.function: an event rule compares a count: use ${COUNT_OPERATORS.join(', ')}`)
  }
  // the numeric operators and their params, checked as a number filter would be
  const numeric = asCondition({ expression: 'user.count', function: rule.function, params: rule.params }, path, () => 'number')
  const window = windowOf(rule, path)
  let filter: CheckedFilter | undefined
  if (rule.filter !== undefined && rule.filter !== null) {
    filter = validateFilter(rule.filter, `${path}.filter`, env.lookup)
    filter.conditions.forEach((c, i) => {
      if (c.ref.kind === 'event' && !fitsEvent(c.ref.eventId, event)) {
        throw badParam(`${path}.filter.conditions[${i}].expression`, `${path}.filter.conditions[${i}].expression: ${c.expression} is not a property of the rule's event ${event.expression}`)
      }
    })
  }
  return { type: 'event', event, property, aggregator, function: numeric.function, params: numeric.params as number[], window, filter }
}

function ruleOf(value: unknown, path: string, env: RuleEnv): Rule {
  if (!isRecord(value)) throw badParam(path, `${path} must be a rule object`)
  if (value.type === 'user') return userRule(value, path, env)
  if (value.type === 'event') return eventRule(value, path, env)
  throw badParam(`${path}.type`, `${path}.type must be user or event`)
}

function groupOf(value: unknown, path: string, env: RuleEnv): RuleGroup {
  if (!isRecord(value)) throw badParam(path, `${path} must be an object with rules and relation`)
  onlyKeys(value, ['rules', 'relation'], path)
  const relation = value.relation === undefined ? 'AND' : typeof value.relation === 'string' ? value.relation.toUpperCase() : null
  if (relation !== 'AND' && relation !== 'OR') throw badParam(`${path}.relation`, `${path}.relation must be AND or OR`)
  if (!Array.isArray(value.rules) || value.rules.length === 0) throw badParam(`${path}.rules`, `${path}.rules must be a non-empty list of rules`)
  if (value.rules.length > RULE_LIMITS.rulesPerGroup) throw badParam(`${path}.rules`, `${path}.rules holds at most ${RULE_LIMITS.rulesPerGroup} rules`)
  return { relation, rules: value.rules.map((r, i) => ruleOf(r, `${path}.rules[${i}]`, env)) }
}

/** Empty: AND everywhere; one value: between all groups; else exactly groups - 1 values. */
function betweenOf(value: unknown, groups: number, path: string): BetweenRelation[] {
  if (value === undefined || value === null) return new Array<BetweenRelation>(groups - 1).fill('AND')
  if (!Array.isArray(value)) throw badParam(path, `${path} must be a list of AND or AND_NOT`)
  const checked = value.map((v, i) => {
    const upper = typeof v === 'string' ? v.toUpperCase() : null
    if (upper !== 'AND' && upper !== 'AND_NOT') throw badParam(`${path}[${i}]`, `${path}[${i}] must be AND or AND_NOT`)
    return upper as BetweenRelation
  })
  if (checked.length === 0) return new Array<BetweenRelation>(groups - 1).fill('AND')
  if (checked.length === 1) return new Array<BetweenRelation>(groups - 1).fill(checked[0])
  if (checked.length !== groups - 1) {
    throw badParam(path, `${path} has ${checked.length} values for ${groups} groups: send none (AND), one (between all groups) or exactly ${groups - 1}`)
  }
  return checked
}

function plainRule(rule: Rule, raw: Record<string, unknown>): Record<string, unknown> {
  if (rule.type === 'user') return { type: 'user', expression: rule.condition.expression, function: rule.condition.function, params: rule.condition.params }
  const window = rule.window.kind === 'absolute' ? { eventAbsoluteTimeParams: [rule.window.from, rule.window.to] } : { eventRelativeTimeParam: String(raw.eventRelativeTimeParam).trim() }
  return {
    type: 'event',
    expression: rule.property ? `${rule.event.expression}.${rule.property.propertyId}` : rule.event.expression,
    aggregator: rule.aggregator,
    function: rule.function,
    params: rule.params,
    ...window,
    ...(rule.filter ? { filter: plainFilter(rule.filter) } : {}),
  }
}

/** Checks rule content; `path` (normally `content`) prefixes every parameter a 400 names. */
export function validateContent(content: unknown, path: string, env: RuleEnv): CheckedContent {
  if (!isRecord(content)) throw badParam(path, `${path} must be an object with ruleGroup and relations`)
  onlyKeys(content, ['ruleGroup', 'relations'], path)
  const raw = content.ruleGroup
  if (!Array.isArray(raw) || raw.length === 0) throw badParam(`${path}.ruleGroup`, `${path}.ruleGroup must be a non-empty list of groups`)
  if (raw.length > RULE_LIMITS.groups) throw badParam(`${path}.ruleGroup`, `${path}.ruleGroup holds at most ${RULE_LIMITS.groups} groups`)
  const groups = raw.map((g, i) => groupOf(g, `${path}.ruleGroup[${i}]`, env))
  const between = betweenOf(content.relations, groups.length, `${path}.relations`)
  const plain = {
    ruleGroup: groups.map((g, i) => ({
      relation: g.relation,
      rules: g.rules.map((r, j) => plainRule(r, (raw[i] as { rules: Record<string, unknown>[] }).rules[j])),
    })),
    relations: between,
  }
  return { groups, between, plain }
}
