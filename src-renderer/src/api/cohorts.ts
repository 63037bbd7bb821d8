import type { Answer, RequestBody } from '../../../src-shared/contract'
import { request, requestStream, type ProjectAuth, type RequestOptions } from './http'
import type { Filter, FilterFunction } from './schema'
import type { ExportFormat } from './people'

/** Cohorts (spec 2.6, 3.3, 4.5): rule and file cohorts, their computation and their members. The file upload is in cohortFiles.ts. */

type CohortBody = RequestBody<'/uba/api/cohort'>
type ContractGroup = CohortBody['content']['ruleGroup'][number]
type ContractRule = ContractGroup['rules'][number]

/**
 * `T`, checked to be one of the contract's `Base`: the renderer's view of a contract type where the
 * route schema is looser than what the server sends or the builder writes (every answer field
 * optional, one rule shape for user and event rules).
 */
type Narrows<T extends Base, Base> = T

export type CohortStatus = NonNullable<Answer<'/uba/api/cohort'>[number]['status']>
export type GroupRelation = NonNullable<ContractGroup['relation']>
export type BetweenRelation = NonNullable<CohortBody['content']['relations']>[number]
export type CountAggregator = NonNullable<ContractRule['aggregator']>

/** A rule on a user property: `user.<propertyId>`, an operator of its data type and its params. */
export type UserRule = Narrows<
  {
    type: 'user'
    expression: string
    function: FilterFunction
    params: (string | number)[]
  },
  ContractRule
>

/**
 * A rule on what users did: events counted (or distinct values of one of their properties) over a
 * window of days, compared with a numeric operator. The absolute window wins when both are sent.
 */
export type EventRule = Narrows<
  {
    type: 'event'
    /** event.<eventId> with TOTAL_COUNT; event.<eventId>.<propertyId> with REMOVE_DUMPLICATE. */
    expression: string
    aggregator: CountAggregator
    function: FilterFunction
    params: number[]
    /** Two yyyy-MM-dd days, both included. */
    eventAbsoluteTimeParams?: [string, string]
    /** "<n>,<m>,day": from n days ago to m days ago. */
    eventRelativeTimeParam?: string
    filter?: Filter
  },
  ContractRule
>

export type CohortRule = UserRule | EventRule

export type CohortContent = Narrows<
  {
    ruleGroup: { relation: GroupRelation; rules: CohortRule[] }[]
    /** Between groups, left to right: groups - 1 values. */
    relations: BetweenRelation[]
  },
  CohortBody['content']
>

type CohortAnswer = Answer<'/uba/api/cohort'>[number]

/**
 * A cohort as GET /uba/api/cohort?needMore=true answers it: every field present (the schema marks
 * the needMore ones optional), the flag 0 or 1 and the content as the builder reads it.
 */
export type Cohort = Narrows<Required<Omit<CohortAnswer, 'dynamic' | 'content'>> & { dynamic: 0 | 1; content: CohortContent | '' }, CohortAnswer>

/** The body of POST /uba/api/cohort (the builder writes a CohortContent in it). */
export type NewCohort = CohortBody

export type CreatedCohort = Required<Pick<Answer<'/uba/api/cohort', 'post'>, 'id' | 'code' | 'name'>>

/** A file cohort, computed before the answer: matched and unmatched count the file's distinct values with and without a user. */
export type FileCohort = Answer<'/uba/api/cohort/byfile', 'post'>

/** One member: the requested user properties, then distinct_id and xwho. */
export type CohortMember = Record<string, unknown> & { xwho: string; distinct_id: number }

export type MembersPage = Omit<Answer<'/uba/api/cohort/users', 'post'>, 'users'> & { users: CohortMember[] }

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
