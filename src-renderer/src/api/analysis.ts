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

/** With compare: the earlier range, and the counterpart of each period (null for none). */
export interface Compared {
  mode: CompareMode
  fromDate: string
  toDate: string
}

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

export interface ExplainedSql {
  sql: string
  params: unknown[]
}

interface Answered {
  reportUpdateTime: string
  sql?: ExplainedSql[]
}

export interface EventsResponse extends Answered {
  measures: string[]
  byFields: string[]
  series: string[]
  rows: {
    sum: (number | null)[]
    values: (number | null)[][]
    byValue: string[]
    formula?: { sum: number | null; values: (number | null)[] }
    previous?: { sum: (number | null)[]; values: (number | null)[][]; formula?: { sum: number | null; values: (number | null)[] } }
  }[]
  numRows: number
  formula?: string
  compare?: Compared & { series: (string | null)[] }
}

export interface FunnelsResponse extends Answered {
  dateList: string[]
  byField: string | null
  byValues: (number | string)[]
  stepEvents: string[]
  rows: {
    byValue: number | string
    stepsDetail: { expression: string; convertedUser: number[] }[]
    medianConvertedTime: { stepsExpress: string; median: (number | null)[] }[]
    previous?: { stepsDetail: { expression: string; convertedUser: (number | null)[] }[]; medianConvertedTime: { stepsExpress: string; median: (number | null)[] }[] }
  }[]
  compare?: Compared & { dateList: (string | null)[] }
  /** With the request's timeToConvert: converted users by seconds between two steps (from inclusive, to exclusive or null). */
  timeToConvert?: { fromStep: number; toStep: number; buckets: { from: number; to: number | null; users: number }[] }
}

export interface RetentionResponse extends Answered {
  byField: string | null
  rows: { byValue: string; totalPeople: number; retentionPeoples: (number | null)[]; measures: (number | null)[] | null }[]
}

export interface DistributionResponse extends Answered {
  measure: string
  byField: string | null
  series: string[]
  rows: { sum: number; values: number[]; byValue: string }[]
}

export interface UserAttributesResponse extends Answered {
  measure: string
  byFields: string[]
  rows: { value: number | null; byValue: string[] }[]
}

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
