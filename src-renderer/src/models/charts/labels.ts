/** The words for aggregators and units, the same in the pickers, the legends and the tables. */

export interface AggregatorOption {
  value: string
  label: string
  /** Reads a property (and which types it accepts). */
  property: 'none' | 'number' | 'any'
}

export const EVENT_AGGREGATORS: AggregatorOption[] = [
  { value: 'TRIGGER_USER_COUNT', label: 'Unique users', property: 'none' },
  { value: 'TOTAL_COUNT', label: 'Total events', property: 'none' },
  { value: 'AVG_COUNT', label: 'Events per user', property: 'none' },
]

export const PROPERTY_AGGREGATORS: AggregatorOption[] = [
  { value: 'SUM', label: 'Sum of', property: 'number' },
  { value: 'AVG', label: 'Average of', property: 'number' },
  { value: 'AVG_PER', label: 'Sum per user of', property: 'number' },
  { value: 'MAX', label: 'Maximum of', property: 'number' },
  { value: 'MIN', label: 'Minimum of', property: 'number' },
  { value: 'REMOVE_DUMPLICATE', label: 'Distinct values of', property: 'any' },
]

/** Distribution: per user, how many events, on how many days, or a property aggregate. */
export const DISTRIBUTION_AGGREGATORS: AggregatorOption[] = [
  { value: 'TOTAL_COUNT', label: 'Events per user', property: 'none' },
  { value: 'DISTRIBUTION_TIME', label: 'Active days per user', property: 'none' },
  ...PROPERTY_AGGREGATORS,
]

export const USER_AGGREGATORS: AggregatorOption[] = [
  { value: 'USER_COUNT', label: 'Users', property: 'none' },
  ...PROPERTY_AGGREGATORS.filter((a) => a.value !== 'AVG_PER'),
]

const ALL = [...EVENT_AGGREGATORS, ...DISTRIBUTION_AGGREGATORS, ...USER_AGGREGATORS]

export function aggregatorOf(value: string): AggregatorOption | undefined {
  return ALL.find((a) => a.value === value)
}

export const UNIT_LABELS = { DAY: 'Day', WEEK: 'Week', MONTH: 'Month' } as const
