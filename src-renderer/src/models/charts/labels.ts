import type { DistributionAggregator, EventsAggregator, UserAggregator } from '../../api/analysis'

/** The words for aggregators and units, the same in the pickers, the legends and the tables. */

/** Any aggregator of the measures a chart draft holds (events, distribution, user attributes). */
export type Aggregator = EventsAggregator | DistributionAggregator | UserAggregator
/** What a measure draft (events or distribution) may hold. */
export type MeasureAggregator = EventsAggregator | DistributionAggregator

export interface AggregatorOption<A extends Aggregator = Aggregator> {
  value: A
  label: string
  /** Reads a property (and which types it accepts). */
  property: 'none' | 'number' | 'any'
}

export const EVENT_AGGREGATORS: AggregatorOption<EventsAggregator>[] = [
  { value: 'TRIGGER_USER_COUNT', label: 'Unique users', property: 'none' },
  { value: 'TOTAL_COUNT', label: 'Total events', property: 'none' },
  { value: 'AVG_COUNT', label: 'Events per user', property: 'none' },
]

/** Those every analysis with a measure takes. */
export const PROPERTY_AGGREGATORS: AggregatorOption<EventsAggregator & DistributionAggregator & UserAggregator>[] = [
  { value: 'SUM', label: 'Sum of', property: 'number' },
  { value: 'AVG', label: 'Average of', property: 'number' },
  { value: 'AVG_PER', label: 'Sum per user of', property: 'number' },
  { value: 'MAX', label: 'Maximum of', property: 'number' },
  { value: 'MIN', label: 'Minimum of', property: 'number' },
  { value: 'REMOVE_DUMPLICATE', label: 'Distinct values of', property: 'any' },
]

/** What the events analysis offers for a measure. */
export const EVENTS_MEASURE_AGGREGATORS: AggregatorOption<EventsAggregator>[] = [...EVENT_AGGREGATORS, ...PROPERTY_AGGREGATORS]

/** Distribution: per user, how many events, on how many days, or a property aggregate. */
export const DISTRIBUTION_AGGREGATORS: AggregatorOption<DistributionAggregator>[] = [
  { value: 'TOTAL_COUNT', label: 'Events per user', property: 'none' },
  { value: 'DISTRIBUTION_TIME', label: 'Active days per user', property: 'none' },
  ...PROPERTY_AGGREGATORS,
]

export const USER_AGGREGATORS: AggregatorOption<UserAggregator>[] = [
  { value: 'USER_COUNT', label: 'Users', property: 'none' },
  ...PROPERTY_AGGREGATORS.filter((a) => a.value !== 'AVG_PER'),
]

const ALL = [...EVENT_AGGREGATORS, ...DISTRIBUTION_AGGREGATORS, ...USER_AGGREGATORS]

export function aggregatorOf(value: string): AggregatorOption | undefined {
  return ALL.find((a) => a.value === value)
}

/** The aggregator `value` names among `options` (what a picker offers), undefined when it is none of them. */
export function aggregatorIn<A extends Aggregator>(options: readonly AggregatorOption<A>[], value: string): A | undefined {
  return options.find((a) => a.value === value)?.value
}

export const UNIT_LABELS = { DAY: 'Day', WEEK: 'Week', MONTH: 'Month' } as const
