import { NAME_MAX, NAME_PATTERN, PLAIN_TEXT_RULE, REMARK_MAX } from '../../domain/schema/naming'
import { DATA_TYPES } from '../../domain/schema/types'
import { filterRequest } from './analysis/requests'
import { exact } from './common'

/** JSON schemas of the tracking plan and metadata routes (spec 2.8, 4.3, 4.4). */

function text(max: number, nullable: boolean, what: string) {
  return {
    type: nullable ? ['string', 'null'] : 'string',
    maxLength: max,
    pattern: NAME_PATTERN,
    'x-rule': `${PLAIN_TEXT_RULE}, at most ${max} characters`,
    description: `${what}: at most ${max} characters, no special characters (${PLAIN_TEXT_RULE}; refused: control characters, line breaks and < > " ' \` \\ { } ^ $). An empty text means none${nullable ? '; null clears it' : ''}.`,
  }
}

export const nameSchema = (nullable = false) => text(NAME_MAX, nullable, 'Display name')
export const remarkSchema = (nullable = false) => text(REMARK_MAX, nullable, 'Remark')

export const dataTypeSchema = { type: 'string', enum: [...DATA_TYPES], description: 'string, number, boolean, datetime or array<string>.' } as const
export const maskingSchema = { type: 'integer', enum: [0, 1], description: '1 masks the values where single users are shown, 0 shows them (UBA Desk addition).' } as const

/** An id in a body or query: its exact rule depends on whether the item exists (see the route). */
export const idSchema = (description: string) => ({ type: 'string', minLength: 1, maxLength: 125, description })

const flag = (description: string) => ({ type: 'integer', enum: [0, 1], description })

/** The schema listings' optional filters; any value but 0 or 1 is a 400. */
export const planStateQuery = {
  plan: flag('1 only items in the plan, 0 only items outside it; omitted: both.'),
  dataStatus: flag('1 only items whose data has reported, 0 only those without data; omitted: both.'),
} as const

const nullableText = { type: ['string', 'null'] }

export const userPropertyRecord = exact({
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { ...nullableText, description: 'Display name, or null.' },
    remark: { ...nullableText, description: 'Remark, or null (UBA Desk addition to 2.8).' },
    enable: flag('1 enabled, 0 disabled.'),
    visible: flag('0: a hidden preset, used by the system only.'),
    preset: flag('1 preset, 0 custom.'),
    dataType: dataTypeSchema,
    plan: flag('1 in the plan, 0 outside it.'),
    dataStatus: flag('1 data has reported, 0 not yet.'),
    dict: flag('1 a dictionary was uploaded.'),
    masking: flag('1 values are masked globally.'),
  },
} as const)

export const eventRecord = exact({
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: nullableText,
    remark: nullableText,
    plan: flag('1 in the plan, 0 outside it.'),
    dataStatus: flag('1 data has reported, 0 not yet.'),
    preset: flag('1 preset, 0 custom.'),
    enable: flag('1 enabled, 0 disabled.'),
    platform: { ...nullableText, description: 'Platforms that reported the event, comma separated; null while none did.' },
  },
} as const)

export const eventPropertyRecord = exact({
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: nullableText,
    remark: nullableText,
    enable: flag('1 enabled, 0 disabled.'),
    global: flag('1 a common property every event carries, 0 defined by the event.'),
    preset: flag('1 preset, 0 custom.'),
    dataType: dataTypeSchema,
    plan: flag('The property on this event: 1 in the plan.'),
    dataStatus: flag('The property on this event: 1 data of this event carried it.'),
    dict: flag('1 a dictionary was uploaded.'),
    masking: flag('1 values are masked globally.'),
  },
} as const)

/** A filter as stored (and answered): conditions and relation written out, each condition with its params. */
const storedFilter = {
  type: 'object',
  required: ['conditions', 'relation'],
  description: 'Filter (spec 2.7): {conditions: [{expression, function, params}], relation: AND | OR}.',
  properties: {
    conditions: { type: 'array', items: { ...filterRequest.properties.conditions.items, required: ['expression', 'function', 'params'] } },
    relation: filterRequest.properties.relation,
  },
} as const

export const virtualRuleSchema = {
  type: 'object',
  required: ['events', 'relation'],
  description: 'Virtual event rule: member events combined by OR.',
  properties: {
    events: { type: 'array', items: { type: 'object', required: ['expression'], properties: { expression: { type: 'string', description: 'event.<eventId>' }, filter: storedFilter } } },
    relation: { type: 'string', enum: ['OR'] },
  },
} as const

/** A member of a virtual event in a request; the filter is checked against the plan by the domain. */
export const virtualMemberSchema = {
  type: 'object',
  required: ['expression'],
  additionalProperties: false,
  properties: {
    expression: { type: 'string', minLength: 1, description: 'event.<eventId> of a real event (not a virtual one, not $Anything).' },
    filter: { type: ['object', 'null'], description: 'Optional filter (spec 2.7) on user properties and properties of that same event.' },
  },
} as const

/** The member as /openapi.json shows it, its filter with the filters' schema (the domain checks it, naming exact paths). */
export const documentedVirtualMember = {
  ...virtualMemberSchema,
  properties: { ...virtualMemberSchema.properties, filter: { anyOf: [filterRequest, { type: 'null' }], description: virtualMemberSchema.properties.filter.description } },
} as const
