/**
 * The aggregators of event-based measures (spec 4.10), shared by event analysis and ad tracking.
 * Rows carry a match flag `m<i>` per measure and, for property measures, the value `v<i>`.
 */

export const EVENT_AGGREGATORS = ['TRIGGER_USER_COUNT', 'TOTAL_COUNT', 'AVG_COUNT'] as const
export const PROPERTY_AGGREGATORS = ['REMOVE_DUMPLICATE', 'SUM', 'AVG', 'MAX', 'MIN', 'AVG_PER'] as const

export const AGGREGATOR_LABELS: Record<string, string> = {
  TRIGGER_USER_COUNT: 'users',
  TOTAL_COUNT: 'total count',
  AVG_COUNT: 'count per user',
  REMOVE_DUMPLICATE: 'distinct values',
  SUM: 'sum',
  AVG: 'average',
  MAX: 'maximum',
  MIN: 'minimum',
  AVG_PER: 'sum per user',
}

/** The aggregate of measure `i` over the rows where it matched. */
export function aggregateSql(aggregator: string, i: number): string {
  const hit = `FILTER (WHERE m${i})`
  const v = `v${i}`
  switch (aggregator) {
    case 'TOTAL_COUNT':
      return `count(*) ${hit}`
    case 'TRIGGER_USER_COUNT':
      return `count(DISTINCT distinct_id) ${hit}`
    case 'AVG_COUNT':
      return `count(*) ${hit} / nullif(count(DISTINCT distinct_id) ${hit}, 0)`
    case 'REMOVE_DUMPLICATE':
      return `count(DISTINCT ${v}) ${hit}`
    case 'SUM':
      return `sum(${v}) ${hit}`
    case 'AVG':
      return `avg(${v}) ${hit}`
    case 'MAX':
      return `max(${v}) ${hit}`
    case 'MIN':
      return `min(${v}) ${hit}`
    default:
      return `sum(${v}) ${hit} / nullif(count(DISTINCT distinct_id) FILTER (WHERE m${i} AND ${v} IS NOT NULL), 0)`
  }
}

/** Counts and sums are 0 where nothing happened; averages and extremes are null there. */
export function emptyValue(aggregator: string): number | null {
  return ['TOTAL_COUNT', 'TRIGGER_USER_COUNT', 'REMOVE_DUMPLICATE', 'SUM'].includes(aggregator) ? 0 : null
}
