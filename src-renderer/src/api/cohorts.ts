import type { Answer, RequestBody } from '../../../src-shared/contract'
import { request, requestStream, type ProjectAuth, type RequestOptions } from './http'
import type { ExportFormat } from './people'

/** Cohorts (spec 2.6, 3.3, 4.5): rule and file cohorts, their computation and their members. The file upload is in cohortFiles.ts. */

type CohortBody = RequestBody<'/uba/api/cohort'>
type CohortAnswer = Answer<'/uba/api/cohort'>[number]

/** Rule content as the server stores and answers it (every relation written out); the builder writes it so too. */
export type CohortContent = Exclude<NonNullable<CohortAnswer['content']>, ''>
type Group = CohortContent['ruleGroup'][number]

/** A rule: on a user property (`user.<propertyId>`, an operator of its data type) or on what users did. */
export type CohortRule = Group['rules'][number]
export type UserRule = Extract<CohortRule, { type: 'user' }>
/**
 * Events counted (or distinct values of one of their properties) over a window of days, compared
 * with a numeric operator. The absolute window wins when both are sent.
 */
export type EventRule = Extract<CohortRule, { type: 'event' }>

export type CohortStatus = NonNullable<CohortAnswer['status']>
export type GroupRelation = Group['relation']
/** Between groups, left to right: groups - 1 values. */
export type BetweenRelation = CohortContent['relations'][number]
export type CountAggregator = EventRule['aggregator']

/** A cohort as GET /uba/api/cohort?needMore=true answers it: the needMore fields (optional in the schema) are all there. */
export type Cohort = Required<CohortAnswer>

/** The body of POST /uba/api/cohort (the builder writes a CohortContent in it). */
export type NewCohort = CohortBody

export type CreatedCohort = Required<Pick<Answer<'/uba/api/cohort', 'post'>, 'id' | 'code' | 'name'>>

/** A file cohort, computed before the answer: matched and unmatched count the file's distinct values with and without a user. */
export type FileCohort = Answer<'/uba/api/cohort/byfile', 'post'>

export type MembersPage = Answer<'/uba/api/cohort/users', 'post'>

/** One member: the requested user properties, then distinct_id and xwho. */
export type CohortMember = MembersPage['users'][number]

export type MembersQuery = Required<Pick<RequestBody<'/uba/api/cohort/users'>, 'cohortCode' | 'page' | 'pageSize' | 'properties'>>

export type ExportQuery = Required<Pick<RequestBody<'/uba/api/cohort/users/export'>, 'cohortCode' | 'properties'>>

export const listCohorts = (auth: ProjectAuth, options?: RequestOptions) => request<Cohort[]>(auth, 'GET', '/uba/api/cohort?needMore=true', undefined, options)
export const createCohort = (auth: ProjectAuth, cohort: NewCohort) => request<CreatedCohort>(auth, 'POST', '/uba/api/cohort', cohort)
export const recalculateCohort = (auth: ProjectAuth, id: number) => request<Required<Answer<'/uba/api/cohort/{id}/recalculate', 'post'>>>(auth, 'POST', `/uba/api/cohort/${id}/recalculate`)
export const deleteCohort = (auth: ProjectAuth, id: number) => request<Answer<'/uba/api/cohort/{id}', 'delete'>>(auth, 'DELETE', `/uba/api/cohort/${id}`)

export function cohortMembers(auth: ProjectAuth, query: MembersQuery, options?: RequestOptions): Promise<MembersPage> {
  return request<MembersPage>(auth, 'POST', '/uba/api/cohort/users', query, options)
}

/** Every member, streamed: JSON lines, or CSV with a byte-order mark (for spreadsheets). */
export function exportCohortMembers(auth: ProjectAuth, query: ExportQuery, format: ExportFormat, options?: RequestOptions): Promise<Response> {
  const path = format === 'csv' ? '/uba/api/cohort/users/export?csvUtfEncoding=0' : '/uba/api/cohort/users/export'
  return requestStream(auth, 'POST', path, { ...query, format }, options)
}
