import type { CohortRule, EventRule, UserRule } from '../../api/cohorts'
import type { DataType } from '../../api/schema'
import { operatorOf } from '../../filters/operators'
import { COUNT_OPERATORS } from './draft'

/** A cohort's rules in words, for its page: "Gender is female", "Pay: count of events ≥ 1, in the last 30 days". */

export interface Names {
  event(id: string): string
  /** The display name of event.<e>.<p> or user.<p>. */
  property(expression: string): string
  /** The data type of a property expression, when known. */
  typeOf(expression: string): DataType | undefined
}

export interface RuleWords {
  /** The event or the property the rule reads. */
  subject: string
  /** The rest of the sentence. */
  text: string
  /** Event rules: the conditions on the counted events. */
  where: string[]
}

function valuesOf(fn: string, params: (string | number)[]): string {
  const [a, b, c] = params
  switch (fn) {
    case 'RANGE':
      return `${a} and ${b}`
    case 'ABSOLUTE_TIME':
      return `${a} – ${b}`
    case 'RELATIVE_TIME_OF_CUURENT':
    case 'RELATIVE_TIME_OF_EVENT':
      return c === 'before' ? `more than ${a} ${b}s ago` : `in the last ${a} ${b}s`
    case 'RELATIVE_TIME_RANGE_CUURENT':
      return `${a} to ${b} ${c}s ago`
    default:
      return params.map((p) => (typeof p === 'string' ? `“${p}”` : String(p))).join(', ')
  }
}

/** "is “female”", "≥ 3", "in the last 7 days". */
function comparison(type: DataType | undefined, fn: string, params: (string | number)[]): string {
  const label = type ? (operatorOf(type, fn)?.label ?? fn) : fn
  if (fn === 'RELATIVE_TIME_OF_CUURENT' || fn === 'RELATIVE_TIME_OF_EVENT') return valuesOf(fn, params)
  const values = params.length > 0 ? valuesOf(fn, params) : ''
  return values ? `${label} ${values}` : label
}

export function filterWords(filter: EventRule['filter'], names: Names): string[] {
  return (filter?.conditions ?? []).map((c, i) => {
    const joiner = i === 0 ? '' : filter!.relation === 'OR' ? 'or ' : 'and '
    return `${joiner}${names.property(c.expression)} ${comparison(names.typeOf(c.expression), c.function, c.params ?? [])}`
  })
}

function windowWords(rule: EventRule): string {
  if (rule.eventAbsoluteTimeParams) return `between ${rule.eventAbsoluteTimeParams[0]} and ${rule.eventAbsoluteTimeParams[1]}`
  const m = /^\s*(\d+)\s*(?:,\s*(\d+)\s*,)?\s*day\s*$/i.exec(rule.eventRelativeTimeParam ?? '')
  if (!m) return rule.eventRelativeTimeParam ?? ''
  const from = Number(m[1])
  const to = m[2] === undefined ? 0 : Number(m[2])
  if (to === 0) return from === 0 ? 'today' : `in the last ${from + 1} days`
  return `${from} to ${to} days ago`
}

function userWords(rule: UserRule, names: Names): RuleWords {
  return { subject: names.property(rule.expression), text: comparison(names.typeOf(rule.expression), rule.function, rule.params ?? []), where: [] }
}

function eventWords(rule: EventRule, names: Names): RuleWords {
  const [, eventId, propertyId] = rule.expression.split('.')
  const label = COUNT_OPERATORS.find((o) => o.function === rule.function)?.label ?? rule.function
  const [low, high] = rule.params
  const threshold = rule.function === 'RANGE' ? `between ${low} and ${high}` : `${label} ${low}`
  const last = rule.function === 'RANGE' ? high : low
  const unit = propertyId ? `distinct ${names.property(rule.expression)} ${last === 1 ? 'value' : 'values'}` : last === 1 ? 'time' : 'times'
  return { subject: names.event(eventId), text: `${threshold} ${unit} ${windowWords(rule)}`, where: filterWords(rule.filter, names) }
}

export function ruleWords(rule: CohortRule, names: Names): RuleWords {
  return rule.type === 'user' ? userWords(rule, names) : eventWords(rule, names)
}
