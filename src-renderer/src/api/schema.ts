import type { Answer, RequestBody } from '../../../src-shared/contract'
import { request, type ProjectAuth } from './http'

/** The tracking plan (spec 4.3) and the metadata with virtual events (spec 4.4). */

/** The tracking plan's records (spec 2.8). */
export type PlanEvent = Answer<'/uba/api/schema/event'>[number]
export type PlanUserProperty = Answer<'/uba/api/schema/userProperties'>[number]
export type PlanEventProperty = Answer<'/uba/api/schema/eventProperties'>[number]

export type DataType = PlanUserProperty['dataType']
/** The data types in the order the pickers offer them. */
export const DATA_TYPES = ['string', 'number', 'boolean', 'datetime', 'array<string>'] as const satisfies readonly DataType[]

type ContractFilter = NonNullable<RequestBody<'/uba/api/events/analyze'>['filter']>
/** The filter operators the API knows (a condition's `function`). */
export type FilterFunction = NonNullable<ContractFilter['conditions']>[number]['function']

/** A condition of the contract's filter, as the renderer writes it: always with its params. */
export type FilterCondition = Required<NonNullable<ContractFilter['conditions']>[number]>

/** The contract's filter, as the renderer writes it: always with its conditions and relation. */
export type Filter = { conditions: FilterCondition[]; relation: NonNullable<ContractFilter['relation']> }

/** GET /uba/api/meta/event: tracked and virtual events for analysis; `content` is a virtual event's rule. */
export type MetaEvent = Answer<'/uba/api/meta/event'>[number]
/** A virtual event's rule as stored: member events, each maybe filtered, combined by OR. */
export type VirtualRule = NonNullable<MetaEvent['content']>

/** A property as analyses see it: what GET /uba/api/meta/eventProperties and userProperties both give. */
export type MetaProperty = Pick<Answer<'/uba/api/meta/eventProperties'>[number], 'id' | 'name' | 'enable' | 'preset' | 'dataType'>
export type MetaUserProperty = Answer<'/uba/api/meta/userProperties'>[number]

/** What a PUT may change; null or "" clears a name or remark. */
export type PlanChanges = RequestBody<'/uba/api/schema/eventProperties', 'put'>

/**
 * A virtual event as PUT /uba/api/meta/event/virtual takes it (only the fields sent change). A
 * POST takes the same with events, and without nulls: inputOf writes it so for a new one.
 */
export type VirtualEventInput = RequestBody<'/uba/api/meta/event/virtual', 'put'>

/** What the plan's and virtual events' writes answer. */
type Ok = Answer<'/uba/api/schema/event', 'post'>
const q = encodeURIComponent

export const listEvents = (auth: ProjectAuth) => request<PlanEvent[]>(auth, 'GET', '/uba/api/schema/event')
export const listUserProperties = (auth: ProjectAuth) => request<PlanUserProperty[]>(auth, 'GET', '/uba/api/schema/userProperties')
export const listEventProperties = (auth: ProjectAuth, eventId: string) =>
  request<PlanEventProperty[]>(auth, 'GET', `/uba/api/schema/eventProperties?eventId=${q(eventId)}`)

export const updateEvent = (auth: ProjectAuth, id: string, changes: Pick<PlanChanges, 'name' | 'remark'>) =>
  request<Ok>(auth, 'PUT', `/uba/api/schema/event?id=${q(id)}`, changes)
export const updateUserProperty = (auth: ProjectAuth, id: string, changes: PlanChanges) =>
  request<Ok>(auth, 'PUT', `/uba/api/schema/userProperties?id=${q(id)}`, changes)
export const updateEventProperty = (auth: ProjectAuth, eventId: string, propertyId: string, changes: PlanChanges) =>
  request<Ok>(auth, 'PUT', `/uba/api/schema/eventProperties?eventId=${q(eventId)}&propertyId=${q(propertyId)}`, changes)

/** Declaring an item outside the plan puts it into the plan with the name and remark sent (spec 3.4). */
export const declareEvent = (auth: ProjectAuth, event: RequestBody<'/uba/api/schema/event'>) => request<Ok>(auth, 'POST', '/uba/api/schema/event', event)
export const declareUserProperty = (auth: ProjectAuth, property: RequestBody<'/uba/api/schema/userProperties'>) =>
  request<Ok>(auth, 'POST', '/uba/api/schema/userProperties', property)

export const listMetaEvents = (auth: ProjectAuth, type: 'all' | 'event' | 'virtual' = 'all') => request<MetaEvent[]>(auth, 'GET', `/uba/api/meta/event?type=${type}`)
export const listMetaEventProperties = (auth: ProjectAuth, eventId: string) =>
  request<MetaProperty[]>(auth, 'GET', `/uba/api/meta/eventProperties?eventId=${q(eventId)}`)
export const listMetaUserProperties = (auth: ProjectAuth) => request<MetaUserProperty[]>(auth, 'GET', '/uba/api/meta/userProperties')

/** GET /uba/api/meta/propertyValues: a property's most frequent values (UBA Desk addition); count / fraction estimates the whole. */
export type PropertyValues = Answer<'/uba/api/meta/propertyValues'>

export const getPropertyValues = (auth: ProjectAuth, expression: string, search: string, options: { limit?: number; signal?: AbortSignal } = {}) =>
  request<PropertyValues>(auth, 'GET', `/uba/api/meta/propertyValues?expression=${q(expression)}&search=${q(search)}&limit=${options.limit ?? 50}`, undefined, { signal: options.signal })

export const createVirtualEvent = (auth: ProjectAuth, input: VirtualEventInput) => request<Ok>(auth, 'POST', '/uba/api/meta/event/virtual', input)
export const updateVirtualEvent = (auth: ProjectAuth, input: VirtualEventInput) => request<Ok>(auth, 'PUT', '/uba/api/meta/event/virtual', input)
