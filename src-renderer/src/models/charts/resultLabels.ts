import type { AnalysisKind } from '../../api/analysis'
import type { BreakdownDraft, Definitions, MeasureDraft } from './definitions'
import { aggregatorOf, DISTRIBUTION_AGGREGATORS, type AggregatorOption } from './labels'

/**
 * The names a result is drawn with, taken when its request is sent: the chart then depends on
 * its answer alone, and later edits of the builder (or metadata loading) do not redraw it.
 */
export interface ResultLabels {
  /** Events: one per measure; distribution and user attributes: the one measure. */
  measures: string[]
  /** Funnel steps; retention: the initial and the return event. */
  steps: string[]
  /** The breakdown properties' names. */
  breakdowns: string[]
  unit: string
  /** The days the answer covers (absent for user attributes). */
  range?: { fromDate: string; toDate: string }
  /** The last period runs up to today: its figures are still growing. */
  partial?: boolean
  /** Today in the project's time zone when the request was sent: which periods are not over (results/periods.ts). */
  today?: string
  /** Who was counted: "All users" or the cohort's name. */
  crowd?: string
  /** The applied filter in words ("City is Beijing and Age > 30"); '' for none. */
  filters?: string
  /** Retention: how returns were counted (the "All users" row explains it). */
  retentionMode?: 'on' | 'onOrAfter'
}

export interface Names {
  event(eventId: string): string
  userProperty(id: string): string
  /** A property of an event, by the event's metadata. */
  eventProperty(eventId: string, id: string): string
}

/** "Pay · Unique users", "Pay · Sum of Order amount"; `options` names the aggregators of the analysis. */
export function measureLabel(m: MeasureDraft, names: Names, options?: AggregatorOption[]): string {
  const aggregator = options?.find((a) => a.value === m.aggregator) ?? aggregatorOf(m.aggregator)
  const event = names.event(m.eventId)
  if (!aggregator || aggregator.property === 'none') return `${event} · ${aggregator?.label ?? m.aggregator}`
  return `${event} · ${aggregator.label} ${names.eventProperty(m.eventId, m.propertyId)}`
}

function breakdownLabel(b: BreakdownDraft | null, eventId: string, names: Names): string[] {
  if (!b) return []
  return [b.property.scope === 'user' ? names.userProperty(b.property.id) : names.eventProperty(eventId, b.property.id)]
}

export function labelsFor(kind: AnalysisKind, defs: Definitions, names: Names): ResultLabels {
  switch (kind) {
    case 'events': {
      const d = defs.events
      return { measures: d.measures.map((m) => measureLabel(m, names)), steps: [], breakdowns: breakdownLabel(d.breakdown, d.measures[0]?.eventId ?? '', names), unit: d.unit }
    }
    case 'funnels': {
      const d = defs.funnels
      const byEvent = d.steps[Math.min(d.byStepIndex, d.steps.length - 1)]?.eventId ?? ''
      return { measures: [], steps: d.steps.map((s) => names.event(s.eventId)), breakdowns: breakdownLabel(d.breakdown, byEvent, names), unit: 'DAY' }
    }
    case 'retention': {
      const d = defs.retention
      const byEvent = d.breakdownEvent === 1 ? d.first.eventId : d.second.eventId
      return { measures: [], steps: [names.event(d.first.eventId), names.event(d.second.eventId)], breakdowns: breakdownLabel(d.breakdown, byEvent, names), unit: d.unit, retentionMode: d.mode }
    }
    case 'distribution': {
      const d = defs.distribution
      return { measures: [measureLabel(d.measure, names, DISTRIBUTION_AGGREGATORS)], steps: [], breakdowns: breakdownLabel(d.breakdown, d.measure.eventId, names), unit: d.unit }
    }
    default: {
      const d = defs.userAttributes
      const aggregator = aggregatorOf(d.aggregator)
      const measure = aggregator?.property === 'none' ? 'Users' : `${aggregator?.label ?? d.aggregator} ${names.userProperty(d.propertyId)}`
      return { measures: [measure], steps: [], breakdowns: d.breakdowns.map((b) => names.userProperty(b.property.id)), unit: '' }
    }
  }
}

/** The events whose property names a result's labels use (their listings are loaded first). */
export function eventsWithNamedProperties(kind: AnalysisKind, defs: Definitions): string[] {
  const byEvent = (b: BreakdownDraft | null, eventId: string): string[] => (b?.property.scope === 'event' && eventId ? [eventId] : [])
  switch (kind) {
    case 'events': {
      const d = defs.events
      return [...d.measures.filter((m) => m.propertyId && m.eventId).map((m) => m.eventId), ...byEvent(d.breakdown, d.measures[0]?.eventId ?? '')]
    }
    case 'funnels': {
      const d = defs.funnels
      return byEvent(d.breakdown, d.steps[Math.min(d.byStepIndex, d.steps.length - 1)]?.eventId ?? '')
    }
    case 'retention': {
      const d = defs.retention
      return byEvent(d.breakdown, d.breakdownEvent === 1 ? d.first.eventId : d.second.eventId)
    }
    case 'distribution': {
      const d = defs.distribution
      return [...(d.measure.propertyId ? [d.measure.eventId] : []), ...byEvent(d.breakdown, d.measure.eventId)]
    }
    default:
      return []
  }
}
