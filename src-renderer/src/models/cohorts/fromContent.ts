import type { CohortContent, CohortRule, EventRule } from '../../api/cohorts'
import type { DataType } from '../../api/schema'
import { emptyFilter, newKey, type CohortDraft, type FilterDraft, type PropertyRefDraft, type RuleDraft, type WindowDraft } from './draft'

/**
 * A stored cohort's rules back into a builder draft, for "Duplicate" (cohorts cannot be changed,
 * so changing one means making a new one from it). `typeOf` gives the data type of a property
 * expression; one it does not know is taken as a string (the server checks it again).
 */

type TypeOf = (expression: string) => DataType | undefined

function refOf(expression: string, typeOf: TypeOf): PropertyRefDraft {
  const parts = expression.split('.')
  const scope = parts[0] === 'user' ? 'user' : 'event'
  return { scope, id: parts[parts.length - 1], dataType: typeOf(expression) ?? 'string' }
}

function filterDraft(filter: EventRule['filter'], typeOf: TypeOf): FilterDraft {
  if (!filter) return emptyFilter()
  return {
    relation: filter.relation === 'OR' ? 'OR' : 'AND',
    conditions: (filter.conditions ?? []).map((c) => ({ key: newKey(), property: refOf(c.expression, typeOf), function: c.function, params: [...(c.params ?? [])] })),
  }
}

function windowDraft(rule: EventRule): WindowDraft {
  if (rule.eventAbsoluteTimeParams) return { kind: 'between', from: rule.eventAbsoluteTimeParams[0], to: rule.eventAbsoluteTimeParams[1] }
  const m = /^\s*(\d+)\s*(?:,\s*(\d+)\s*,)?\s*day\s*$/i.exec(rule.eventRelativeTimeParam ?? '')
  if (!m) return { kind: 'last', days: 30 }
  const from = Number(m[1])
  const to = m[2] === undefined ? 0 : Number(m[2])
  return to === 0 ? { kind: 'last', days: from + 1 } : { kind: 'ago', from, to }
}

function ruleDraft(rule: CohortRule, typeOf: TypeOf): RuleDraft {
  if (rule.type === 'user') return { key: newKey(), type: 'user', property: refOf(rule.expression, typeOf), function: rule.function, params: [...(rule.params ?? [])] }
  const [, eventId, propertyId] = rule.expression.split('.')
  return {
    key: newKey(),
    type: 'event',
    eventId,
    aggregator: rule.aggregator,
    property: propertyId ? refOf(rule.expression, typeOf) : null,
    function: rule.function,
    params: [...rule.params],
    window: windowDraft(rule),
    filter: filterDraft(rule.filter, typeOf),
  }
}

export function draftFromContent(source: { name: string; dynamic: 0 | 1; content: CohortContent }, typeOf: TypeOf): CohortDraft {
  return {
    name: `${source.name} (copy)`,
    dynamic: source.dynamic,
    groups: source.content.ruleGroup.map((g) => ({ key: newKey(), relation: g.relation, rules: g.rules.map((r) => ruleDraft(r, typeOf)) })),
    between: [...source.content.relations],
  }
}

/** The events whose properties the rules name, to load before typeOf can answer for them. */
export function eventsOf(content: CohortContent): string[] {
  return [...new Set(content.ruleGroup.flatMap((g) => g.rules.filter((r) => r.type === 'event').map((r) => r.expression.split('.')[1])))]
}
