import type { AnalysisKind, PeriodUnit } from '../../api/analysis'
import { emptyFilter, newKey, type FilterDraft, type PropertyRefDraft } from '../../filters/draft'
import { ANY_EVENT } from '../../stores/meta'
import type { MeasureAggregator } from './labels'
import type { UserAggregator } from '../../api/analysis'

export { emptyFilter, newKey, type ConditionDraft, type FilterDraft, type PropertyRefDraft, type PropertyScope } from '../../filters/draft'

/**
 * What the builder edits: one definition per analysis, kept while the user switches between
 * them, and saved as reports. Property references keep their scope and id; the request builders
 * write the expression for the event they apply to (a filter on a step names that step's event).
 */

export interface BreakdownDraft {
  property: PropertyRefDraft
  /** Edges cutting a number property into intervals; empty: one row per value. */
  buckets: number[]
}

export interface MeasureDraft {
  key: string
  eventId: string
  aggregator: MeasureAggregator
  /** The property a property aggregator reads (event property id), '' for event aggregators. */
  propertyId: string
  filter: FilterDraft
}

export interface StepDraft {
  key: string
  eventId: string
  filter: FilterDraft
}

export type ChartStyle = 'line' | 'bar'

/** How a retention answer is drawn: the triangle of cells, or the percentage by offset as lines. */
export type RetentionView = 'heatmap' | 'curve'
/** '' none; else the earlier range the answer is compared with (server: analysis/compare.ts). */
export type CompareChoice = '' | 'previous' | 'week' | 'year'

/** The funnel's answer as steps (bars), as the time-to-convert histogram, or as the conversion trend by entry day. */
export type FunnelView = 'steps' | 'time' | 'trend'

export type FunnelOrder = 'ORDERED' | 'STRICT' | 'ANY'

/** An exclusion step: a user who does this event between steps fromStep and toStep (0-based) does not convert past them. */
export interface ExclusionDraft extends StepDraft {
  fromStep: number
  toStep: number
}

export interface EventsDefinition {
  measures: MeasureDraft[]
  filter: FilterDraft
  breakdown: BreakdownDraft | null
  unit: PeriodUnit
  chart: ChartStyle
  /** Between the measures lettered A, B ... ("A/B"); '' for none. */
  formula: string
  compare: CompareChoice
}

export interface FunnelsDefinition {
  steps: StepDraft[]
  filter: FilterDraft
  breakdown: BreakdownDraft | null
  /** Which step's event an event-property breakdown reads (0-based). */
  byStepIndex: number
  convertTime: number
  convertTimeUnit: 'DAY' | 'HOUR' | 'MINUTE'
  compare: CompareChoice
  order: FunnelOrder
  exclusions: ExclusionDraft[]
  view: FunnelView
}

export interface RetentionDefinition {
  first: StepDraft
  second: StepDraft
  filter: FilterDraft
  breakdown: BreakdownDraft | null
  /** 1 an initial event property, 2 a return event property (user properties need neither). */
  breakdownEvent: 1 | 2
  duration: number
  unit: PeriodUnit
  /** on: back in period +k exactly; onOrAfter: in +k or any later period followed. */
  mode: 'on' | 'onOrAfter'
  /** Only each user's first-ever initial event starts a cohort. */
  firstTime: boolean
  view: RetentionView
}

export interface DistributionDefinition {
  measure: MeasureDraft
  filter: FilterDraft
  breakdown: BreakdownDraft | null
  unit: PeriodUnit | ''
}

export interface UserAttributesDefinition {
  aggregator: UserAggregator
  propertyId: string
  filter: FilterDraft
  breakdowns: BreakdownDraft[]
}

export interface Definitions {
  events: EventsDefinition
  funnels: FunnelsDefinition
  retention: RetentionDefinition
  distribution: DistributionDefinition
  userAttributes: UserAttributesDefinition
}

export type RangePreset = 'last7' | 'last30' | 'last90' | 'custom'

export interface RangeDraft {
  preset: RangePreset
  /** yyyy-MM-dd; used with the custom preset (the others are counted back from today). */
  from: string
  to: string
}

export function newMeasure(eventId = ANY_EVENT, aggregator: MeasureAggregator = 'TRIGGER_USER_COUNT'): MeasureDraft {
  return { key: newKey(), eventId, aggregator, propertyId: '', filter: emptyFilter() }
}

export function newStep(eventId = ''): StepDraft {
  return { key: newKey(), eventId, filter: emptyFilter() }
}

export function defaultDefinitions(): Definitions {
  return {
    events: { measures: [newMeasure()], filter: emptyFilter(), breakdown: null, unit: 'DAY', chart: 'line', formula: '', compare: '' },
    funnels: { steps: [newStep(), newStep()], filter: emptyFilter(), breakdown: null, byStepIndex: 0, convertTime: 7, convertTimeUnit: 'DAY', compare: '', order: 'ORDERED', exclusions: [], view: 'steps' },
    retention: { first: newStep(ANY_EVENT), second: newStep(ANY_EVENT), filter: emptyFilter(), breakdown: null, breakdownEvent: 1, duration: 7, unit: 'DAY', mode: 'on', firstTime: false, view: 'heatmap' },
    distribution: { measure: newMeasure(ANY_EVENT, 'TOTAL_COUNT'), filter: emptyFilter(), breakdown: null, unit: '' },
    userAttributes: { aggregator: 'USER_COUNT', propertyId: '', filter: emptyFilter(), breakdowns: [] },
  }
}

export const KIND_LABELS: Record<AnalysisKind, string> = {
  events: 'Events',
  funnels: 'Funnels',
  retention: 'Retention',
  distribution: 'Distribution',
  userAttributes: 'User attributes',
}

export const KINDS: AnalysisKind[] = ['events', 'funnels', 'retention', 'distribution', 'userAttributes']
