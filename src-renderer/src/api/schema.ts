import type { RequestBody } from '../../../src-shared/contract'
import { request, type ProjectAuth } from './http'

/** The tracking plan (spec 4.3) and the metadata with virtual events (spec 4.4). */

export const DATA_TYPES = ['string', 'number', 'boolean', 'datetime', 'array<string>'] as const
export type DataType = (typeof DATA_TYPES)[number]

/** 0 or 1, as the spec writes flags. */
export type Flag = 0 | 1

export interface PlanEvent {
  id: string
  name: string | null
  remark: string | null
  plan: Flag
  dataStatus: Flag
  preset: Flag
  enable: Flag
  /** Platforms that reported it, comma separated. */
  platform: string | null
}

export interface PlanUserProperty {
  id: string
  name: string | null
  remark: string | null
  enable: Flag
  /** 0: a hidden preset, used by the system only. */
  visible: Flag
  preset: Flag
  dataType: DataType
  plan: Flag
  dataStatus: Flag
  dict: Flag
  masking: Flag
}

export interface PlanEventProperty {
  id: string
  name: string | null
  remark: string | null
  enable: Flag
  /** 1: a common property every event carries. */
  global: Flag
  preset: Flag
  dataType: DataType
  plan: Flag
  dataStatus: Flag
  dict: Flag
  masking: Flag
}

type ContractFilter = NonNullable<RequestBody<'/uba/api/events/analyze'>['filter']>
/** The filter operators the API knows (a condition's `function`). */
export type FilterFunction = NonNullable<ContractFilter['conditions']>[number]['function']

/** A condition of the contract's filter, as the renderer writes it: always with its params. */
export type FilterCondition = Required<NonNullable<ContractFilter['conditions']>[number]>

/** The contract's filter, as the renderer writes it: always with its conditions and relation. */
export type Filter = { conditions: FilterCondition[]; relation: NonNullable<ContractFilter['relation']> }

export interface VirtualMember {
  /** event.<eventId> */
  expression: string
  filter?: Filter | null
}

export interface VirtualRule {
  events: VirtualMember[]
  relation: 'OR'
}

/** GET /uba/api/meta/event: tracked and virtual events for analysis. */
export interface MetaEvent {
  id: string
  name: string | null
  enable: Flag
  remark: string | null
  preset: Flag
  platform: string | null
  type: 'event' | 'virtual'
  content: VirtualRule | null
}

/** A property as analyses see it (GET /uba/api/meta/eventProperties, userProperties). */
export interface MetaProperty {
  id: string
  name: string | null
  enable: Flag
  preset: Flag
  dataType: DataType
}

/** What a PUT may change; null or "" clears a name or remark. */
export interface PlanChanges {
  name?: string | null
  remark?: string | null
  dataType?: DataType
  /** Properties: 1 shows values masked where single users are shown. */
  masking?: Flag
}

export interface VirtualEventInput {
  id: string
  name?: string | null
  remark?: string | null
  events?: VirtualMember[]
}

type Ok = { success: 0 }
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
export const declareEvent = (auth: ProjectAuth, event: { id: string; name?: string; remark?: string; properties?: { id: string; dataType: DataType; name?: string; remark?: string }[] }) =>
  request<Ok>(auth, 'POST', '/uba/api/schema/event', event)
export const declareUserProperty = (auth: ProjectAuth, property: { id: string; dataType: DataType; name?: string; remark?: string }) =>
  request<Ok>(auth, 'POST', '/uba/api/schema/userProperties', property)

export const listMetaEvents = (auth: ProjectAuth, type: 'all' | 'event' | 'virtual' = 'all') => request<MetaEvent[]>(auth, 'GET', `/uba/api/meta/event?type=${type}`)
export const listMetaEventProperties = (auth: ProjectAuth, eventId: string) =>
  request<MetaProperty[]>(auth, 'GET', `/uba/api/meta/eventProperties?eventId=${q(eventId)}`)
export const listMetaUserProperties = (auth: ProjectAuth) => request<(MetaProperty & { visible: Flag })[]>(auth, 'GET', '/uba/api/meta/userProperties')

/** GET /uba/api/meta/propertyValues: a property's most frequent values (UBA Desk addition). */
export interface PropertyValues {
  expression: string
  dataType: DataType
  masked: boolean
  values: { value: string | number | boolean; count: number }[]
  more: boolean
  rows: number
  nulls: number
  sampled: boolean
  /** Share of the table read: count / fraction estimates the whole. */
  fraction: number
}

export const getPropertyValues = (auth: ProjectAuth, expression: string, search: string, options: { limit?: number; signal?: AbortSignal } = {}) =>
  request<PropertyValues>(auth, 'GET', `/uba/api/meta/propertyValues?expression=${q(expression)}&search=${q(search)}&limit=${options.limit ?? 50}`, undefined, { signal: options.signal })

export const createVirtualEvent = (auth: ProjectAuth, input: VirtualEventInput) => request<Ok>(auth, 'POST', '/uba/api/meta/event/virtual', input)
export const updateVirtualEvent = (auth: ProjectAuth, input: VirtualEventInput) => request<Ok>(auth, 'PUT', '/uba/api/meta/event/virtual', input)
