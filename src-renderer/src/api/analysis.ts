import type { Answer } from '../../../src-shared/contract'
import { request, type ProjectAuth } from './http'
import type { Filter } from './schema'

/** The analyses (spec 4.10) and what they answer; `sql` comes with explain=true. */

export type AnalysisKind = 'events' | 'funnels' | 'retention' | 'distribution' | 'userAttributes'

export const ANALYSIS_PATHS: Record<AnalysisKind, string> = {
  events: '/uba/api/events/analyze',
  funnels: '/uba/api/funnels/analyze',
  retention: '/uba/api/retentions/analyze',
  distribution: '/uba/api/distributions/analyze',
  userAttributes: '/uba/api/userAttributes/analyze',
}

export type PeriodUnit = 'DAY' | 'WEEK' | 'MONTH'

export interface ByField {
  expression: string
  buckets?: number[]
}

export interface MeasureRequest {
  expression: string
  aggregator: string
  filter?: Filter
}

interface Common {
  crowds: string[]
  useCache?: boolean
  filter?: Filter
}

interface Dated extends Common {
  fromDate: string
  toDate: string
}

export interface EventsRequest extends Dated {
  measures: MeasureRequest[]
  unit: PeriodUnit
  byFields?: ByField[]
  /** Between the measures lettered A, B ... in order, e.g. "A/B". */
  formula?: string
  compare?: CompareMode
}

export type CompareMode = 'previous' | 'week' | 'year'

export interface FunnelsRequest extends Dated {
  steps: { expression: string; filter?: Filter }[]
  byField?: ByField
  byStepIndex?: number
  convertTime?: number
  convertTimeUnit?: 'DAY' | 'HOUR' | 'MINUTE'
  compare?: CompareMode
  order?: 'ORDERED' | 'STRICT' | 'ANY'
  exclusions?: { expression: string; filter?: Filter; fromStep?: number; toStep?: number }[]
  timeToConvert?: boolean | { fromStep?: number; toStep?: number }
}

export interface RetentionRequest extends Dated {
  firstEvent: { expression: string; filter?: Filter }
  secondEvent: { expression: string; filter?: Filter }
  duration: number
  unit: PeriodUnit
  byField?: ByField
  byFieldIndex?: 1 | 2 | -1
  retentionMode?: 'on' | 'onOrAfter'
  firstTime?: boolean
}

export interface DistributionRequest extends Dated {
  measure: MeasureRequest
  unit: PeriodUnit | ''
  byField?: ByField
}

export interface UserAttributesRequest extends Common {
  measure: { aggregator: string; expression?: string }
  byFields: ByField[]
}

export interface AnalysisRequests {
  events: EventsRequest
  funnels: FunnelsRequest
  retention: RetentionRequest
  distribution: DistributionRequest
  userAttributes: UserAttributesRequest
}

export type EventsResponse = Answer<'/uba/api/events/analyze', 'post'>
export type FunnelsResponse = Answer<'/uba/api/funnels/analyze', 'post'>
export type RetentionResponse = Answer<'/uba/api/retentions/analyze', 'post'>
export type DistributionResponse = Answer<'/uba/api/distributions/analyze', 'post'>
export type UserAttributesResponse = Answer<'/uba/api/userAttributes/analyze', 'post'>

/** With compare: the earlier range, and the counterpart of each period (null for none). */
export type Compared = Omit<NonNullable<EventsResponse['compare']>, 'series'>
export type ExplainedSql = NonNullable<EventsResponse['sql']>[number]

export interface AnalysisResponses {
  events: EventsResponse
  funnels: FunnelsResponse
  retention: RetentionResponse
  distribution: DistributionResponse
  userAttributes: UserAttributesResponse
}

/** Runs one analysis; explain=true brings the SQL that ran, which the "Show SQL" panel shows. */
export function analyze<K extends AnalysisKind>(
  auth: ProjectAuth,
  kind: K,
  body: AnalysisRequests[K],
  options: { explain?: boolean; signal?: AbortSignal } = {},
): Promise<AnalysisResponses[K]> {
  const query = options.explain ? '?explain=true' : ''
  return request<AnalysisResponses[K]>(auth, 'POST', ANALYSIS_PATHS[kind] + query, body, { signal: options.signal })
}
