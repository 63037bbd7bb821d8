import type { Answer, RequestBody } from '../../../src-shared/contract'
import { request, type ProjectAuth } from './http'

/** The analyses (spec 4.10) and what they answer; `sql` comes with explain=true. */

export type AnalysisKind = 'events' | 'funnels' | 'retention' | 'distribution' | 'userAttributes'

export const ANALYSIS_PATHS: Record<AnalysisKind, string> = {
  events: '/uba/api/events/analyze',
  funnels: '/uba/api/funnels/analyze',
  retention: '/uba/api/retentions/analyze',
  distribution: '/uba/api/distributions/analyze',
  userAttributes: '/uba/api/userAttributes/analyze',
}

/** The five analysis requests, as the route schemas describe them. */
export type EventsRequest = RequestBody<'/uba/api/events/analyze'>
export type FunnelsRequest = RequestBody<'/uba/api/funnels/analyze'>
export type RetentionRequest = RequestBody<'/uba/api/retentions/analyze'>
export type DistributionRequest = RequestBody<'/uba/api/distributions/analyze'>
export type UserAttributesRequest = RequestBody<'/uba/api/userAttributes/analyze'>

export interface AnalysisRequests {
  events: EventsRequest
  funnels: FunnelsRequest
  retention: RetentionRequest
  distribution: DistributionRequest
  userAttributes: UserAttributesRequest
}

export type MeasureRequest = EventsRequest['measures'][number]
export type ByField = NonNullable<EventsRequest['byFields']>[number]
export type PeriodUnit = NonNullable<EventsRequest['unit']>
export type CompareMode = NonNullable<EventsRequest['compare']>

/** What each analysis may aggregate (the measure's `aggregator`). */
export type EventsAggregator = MeasureRequest['aggregator']
export type DistributionAggregator = DistributionRequest['measure']['aggregator']
export type UserAggregator = UserAttributesRequest['measure']['aggregator']

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
