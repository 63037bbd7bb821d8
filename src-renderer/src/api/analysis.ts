import type { Answer, paths, RequestBody } from '../../../src-shared/contract'
import { request, type ProjectAuth } from './http'

/** The analyses (spec 4.10) and what they answer; `sql` comes with explain=true. */

export type AnalysisKind = 'events' | 'funnels' | 'retention' | 'distribution' | 'userAttributes'

export const ANALYSIS_PATHS = {
  events: '/uba/api/events/analyze',
  funnels: '/uba/api/funnels/analyze',
  retention: '/uba/api/retentions/analyze',
  distribution: '/uba/api/distributions/analyze',
  userAttributes: '/uba/api/userAttributes/analyze',
} as const satisfies Record<AnalysisKind, keyof paths>

/** The five analysis requests, as the route schemas describe them. */
export type AnalysisRequests = { [K in AnalysisKind]: RequestBody<(typeof ANALYSIS_PATHS)[K]> }
export type EventsRequest = AnalysisRequests['events']
export type FunnelsRequest = AnalysisRequests['funnels']
export type RetentionRequest = AnalysisRequests['retention']
export type DistributionRequest = AnalysisRequests['distribution']
export type UserAttributesRequest = AnalysisRequests['userAttributes']

export type MeasureRequest = EventsRequest['measures'][number]
export type ByField = NonNullable<EventsRequest['byFields']>[number]
export type PeriodUnit = NonNullable<EventsRequest['unit']>
export type CompareMode = NonNullable<EventsRequest['compare']>

/** What each analysis may aggregate (the measure's `aggregator`). */
export type EventsAggregator = MeasureRequest['aggregator']
export type DistributionAggregator = DistributionRequest['measure']['aggregator']
export type UserAggregator = UserAttributesRequest['measure']['aggregator']

export type AnalysisResponses = { [K in AnalysisKind]: Answer<(typeof ANALYSIS_PATHS)[K], 'post'> }
export type EventsResponse = AnalysisResponses['events']
export type FunnelsResponse = AnalysisResponses['funnels']
export type RetentionResponse = AnalysisResponses['retention']
export type DistributionResponse = AnalysisResponses['distribution']
export type UserAttributesResponse = AnalysisResponses['userAttributes']

/** With compare: the earlier range, and the counterpart of each period (null for none). */
export type Compared = Omit<NonNullable<EventsResponse['compare']>, 'series'>
export type ExplainedSql = NonNullable<EventsResponse['sql']>[number]

/** Runs one analysis; explain=true brings the SQL that ran, which the "Show SQL" panel shows. */
export function analyze<K extends AnalysisKind>(
  auth: ProjectAuth,
  kind: K,
  body: AnalysisRequests[K],
  options: { explain?: boolean; signal?: AbortSignal; runId?: string } = {},
): Promise<AnalysisResponses[K]> {
  // runId: a name under which its progress is read and it can be cancelled (api/analysisRuns.ts)
  const query = [options.explain ? 'explain=true' : '', options.runId ? `runId=${encodeURIComponent(options.runId)}` : ''].filter(Boolean).join('&')
  return request<AnalysisResponses[K]>(auth, 'POST', ANALYSIS_PATHS[kind] + (query ? `?${query}` : ''), body, { signal: options.signal })
}
