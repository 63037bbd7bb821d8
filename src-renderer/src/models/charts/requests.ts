import type { AnalysisKind, AnalysisRequests, ByField, DistributionRequest, EventsRequest, FunnelsRequest, RetentionRequest, UserAttributesRequest } from '../../api/analysis'
import type { Filter, FilterCondition } from '../../api/schema'
import { operatorOf, paramsComplete } from '../../filters/operators'
import { ANY_EVENT } from '../../stores/meta'
import type { BreakdownDraft, ConditionDraft, Definitions, FilterDraft, MeasureDraft, PropertyRefDraft } from './definitions'
import { aggregatorIn, aggregatorOf, DISTRIBUTION_AGGREGATORS, EVENTS_MEASURE_AGGREGATORS, type AggregatorOption, type MeasureAggregator } from './labels'

/**
 * From the builder's definitions to the request bodies of spec 4.10. A definition that cannot be
 * asked yet (no event picked, too few steps) says what is missing instead. Conditions still being
 * written are left out (the builder marks them "not applied").
 */

export type Built<K extends AnalysisKind> = { body: AnalysisRequests[K] } | { missing: string }

export interface Context {
  /** null while a custom range is incomplete. */
  range: { fromDate: string; toDate: string } | null
  crowd: string
}

export function expressionOf(ref: PropertyRefDraft, eventId: string): string {
  return ref.scope === 'user' ? `user.${ref.id}` : `event.${eventId}.${ref.id}`
}

export function conditionApplies(c: ConditionDraft): boolean {
  return conditionOf(c, ANY_EVENT) !== undefined
}

/** The condition as sent, when its property has an operator of its type with complete params. */
function conditionOf(c: ConditionDraft, eventId: string): FilterCondition | undefined {
  if (!c.property) return undefined
  const operator = operatorOf(c.property.dataType, c.function)
  if (!operator || !paramsComplete(operator.params, c.params)) return undefined
  return { expression: expressionOf(c.property, eventId), function: operator.function, params: c.params }
}

/** The applicable conditions, written for the event they filter (`eventId`). */
export function filterOf(draft: FilterDraft, eventId: string): Filter | undefined {
  const conditions = draft.conditions.flatMap((c) => conditionOf(c, eventId) ?? [])
  return conditions.length > 0 ? { conditions, relation: draft.relation } : undefined
}

function byFieldOf(draft: BreakdownDraft, eventId: string): ByField {
  const expression = expressionOf(draft.property, eventId)
  return draft.buckets.length > 0 && draft.property.dataType === 'number' ? { expression, buckets: draft.buckets } : { expression }
}

/** A measure as sent, its aggregator one of those the analysis offers (`options`). */
function measureOf<A extends MeasureAggregator>(m: MeasureDraft, i: number, options: readonly AggregatorOption<A>[]): { expression: string; aggregator: A; filter?: Filter } | string {
  if (!m.eventId) return `Pick an event for measure ${i + 1}.`
  const aggregator = aggregatorIn(options, m.aggregator)
  if (!aggregator) return `Pick what to count for measure ${i + 1}.`
  const reads = aggregatorOf(aggregator)?.property ?? 'none'
  if (reads !== 'none' && !m.propertyId) return `Pick a property for measure ${i + 1}.`
  const expression = reads === 'none' ? `event.${m.eventId}` : `event.${m.eventId}.${m.propertyId}`
  const filter = filterOf(m.filter, m.eventId)
  return filter ? { expression, aggregator, filter } : { expression, aggregator }
}

/** Drops the undefined fields, so that equal requests are equal JSON (the key of a result). */
function compact<T extends object>(body: T): T {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as T
}

const NO_RANGE = 'Choose a start and an end date.'

export function buildRequest<K extends AnalysisKind>(kind: K, defs: Definitions, ctx: Context): Built<K> {
  const crowds = [ctx.crowd || '$ALL']
  const dated = ctx.range ? { ...ctx.range, crowds, useCache: true } : null
  switch (kind) {
    case 'events': {
      const d = defs.events
      if (!dated) return { missing: NO_RANGE }
      const measures = d.measures.map((m, i) => measureOf(m, i, EVENTS_MEASURE_AGGREGATORS))
      const problem = measures.find((m) => typeof m === 'string')
      if (typeof problem === 'string') return { missing: problem }
      const byFields = d.breakdown ? [byFieldOf(d.breakdown, ANY_EVENT)] : undefined
      const formula = d.formula?.trim() || undefined
      const compare = d.compare || undefined
      if (compare === 'week' && d.unit === 'MONTH') return { missing: 'Compare months with the previous ones or a year earlier: no month starts a week earlier.' }
      const body: EventsRequest = compact({ ...dated, measures: measures.filter((m) => typeof m !== 'string'), unit: d.unit, filter: filterOf(d.filter, ANY_EVENT), byFields, formula, compare })
      return { body } as Built<K>
    }
    case 'funnels': {
      const d = defs.funnels
      if (!dated) return { missing: NO_RANGE }
      const empty = d.steps.findIndex((s) => !s.eventId)
      if (empty >= 0) return { missing: `Pick an event for step ${empty + 1}.` }
      if (d.steps.length < 2) return { missing: 'A funnel needs at least two steps.' }
      if (!Number.isInteger(d.convertTime) || d.convertTime < 1) return { missing: 'Set the conversion window: a whole number of at least 1.' }
      const steps = d.steps.map((s) => compact({ expression: `event.${s.eventId}`, filter: filterOf(s.filter, s.eventId) }))
      const ordered = d.order !== 'ANY'
      const unpicked = ordered ? d.exclusions.findIndex((x) => !x.eventId) : -1
      if (unpicked >= 0) return { missing: `Pick an event for exclusion ${unpicked + 1}.` }
      // spans kept inside the steps when steps are removed
      const exclusions = ordered
        ? d.exclusions.map((x) => {
            const toStep = Math.min(Math.max(x.toStep, 1), d.steps.length - 1)
            return compact({ expression: `event.${x.eventId}`, filter: filterOf(x.filter, x.eventId), fromStep: Math.min(Math.max(x.fromStep, 0), toStep - 1), toStep })
          })
        : []
      const byStep = Math.min(d.byStepIndex, d.steps.length - 1)
      const eventBreakdown = d.breakdown?.property.scope === 'event'
      const body: FunnelsRequest = compact({
        ...dated,
        steps,
        filter: filterOf(d.filter, ANY_EVENT),
        byField: d.breakdown ? byFieldOf(d.breakdown, d.steps[byStep].eventId) : undefined,
        byStepIndex: eventBreakdown ? byStep : undefined,
        convertTime: d.convertTime,
        convertTimeUnit: d.convertTimeUnit,
        compare: d.compare || undefined,
        order: d.order === 'ORDERED' ? undefined : d.order,
        exclusions: exclusions.length > 0 ? exclusions : undefined,
        timeToConvert: true,
      })
      return { body } as Built<K>
    }
    case 'retention': {
      const d = defs.retention
      if (!dated) return { missing: NO_RANGE }
      if (!d.first.eventId) return { missing: 'Pick the initial event.' }
      if (!d.second.eventId) return { missing: 'Pick the return event.' }
      if (!Number.isInteger(d.duration) || d.duration < 1 || d.duration > 365) return { missing: 'Set how many periods to follow: a whole number from 1 to 365.' }
      const byEvent = d.breakdownEvent === 1 ? d.first.eventId : d.second.eventId
      const eventBreakdown = d.breakdown?.property.scope === 'event'
      const body: RetentionRequest = compact({
        ...dated,
        firstEvent: compact({ expression: `event.${d.first.eventId}`, filter: filterOf(d.first.filter, d.first.eventId) }),
        secondEvent: compact({ expression: `event.${d.second.eventId}`, filter: filterOf(d.second.filter, d.second.eventId) }),
        duration: d.duration,
        unit: d.unit,
        filter: filterOf(d.filter, ANY_EVENT),
        byField: d.breakdown ? byFieldOf(d.breakdown, byEvent) : undefined,
        byFieldIndex: d.breakdown ? (eventBreakdown ? d.breakdownEvent : -1) : undefined,
        // sent only when not the default, so earlier reports keep their request
        retentionMode: d.mode === 'onOrAfter' ? 'onOrAfter' : undefined,
        firstTime: d.firstTime === true ? true : undefined,
      })
      return { body } as Built<K>
    }
    case 'distribution': {
      const d = defs.distribution
      if (!dated) return { missing: NO_RANGE }
      const measure = measureOf(d.measure, 0, DISTRIBUTION_AGGREGATORS)
      if (typeof measure === 'string') return { missing: measure.replace(' for measure 1', '') }
      const body: DistributionRequest = compact({
        ...dated,
        measure,
        unit: d.breakdown ? '' : d.unit,
        filter: filterOf(d.filter, ANY_EVENT),
        byField: d.breakdown ? byFieldOf(d.breakdown, d.measure.eventId) : undefined,
      })
      return { body } as Built<K>
    }
    default: {
      const d = defs.userAttributes
      const reads = aggregatorOf(d.aggregator)?.property ?? 'none'
      if (reads !== 'none' && !d.propertyId) return { missing: 'Pick the user property to aggregate.' }
      const measure = reads === 'none' ? { aggregator: d.aggregator } : { aggregator: d.aggregator, expression: `user.${d.propertyId}` }
      const body: UserAttributesRequest = compact({
        crowds,
        useCache: true,
        measure,
        filter: filterOf(d.filter, ANY_EVENT),
        byFields: d.breakdowns.map((b) => byFieldOf(b, ANY_EVENT)),
      })
      return { body } as Built<K>
    }
  }
}
