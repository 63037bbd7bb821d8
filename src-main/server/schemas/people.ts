import { MASKED_VALUE } from '../../domain/schema/shownValues'
import { exact } from './common'
import { exportFormatField } from './sql'

/** Request and response schemas of the single-user endpoints (spec 4.6). */

const DAY = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', 'x-rule': 'a date yyyy-MM-dd' } as const

export const xwhoParams = {
  type: 'object',
  required: ['xwho'],
  properties: { xwho: { type: 'string', minLength: 1, maxLength: 254, description: 'The user id (the value of the user property xwho), URL-encoded.' } },
} as const

const userKey = {
  distinctId: { type: 'integer', description: 'The numeric platform user id (distinct_id). Send exactly one of distinctId and xwho.' },
  xwho: { type: 'string', minLength: 1, maxLength: 254, description: 'The user id. Send exactly one of distinctId and xwho.' },
} as const

const detailFields = {
  properties: {
    type: 'array',
    items: { type: 'string' },
    description: 'User property ids to return, in this order (an unknown id is a 400 naming properties[i]). Omitted or []: every visible user property, xwho first, then presets and the rest by id; hidden ones such as distinct_id only when named.',
  },
  tags: {
    type: 'array',
    description: 'Tags whose values to add as `tag.<code>` keys (text, or null where the user has none); omitted or []: none. A code that names no tag of the project, or a tag without a computed version, is a 400 naming tags[i].code; a version the tag does not have, tags[i].version.',
    items: {
      type: 'object',
      required: ['code'],
      additionalProperties: false,
      properties: {
        code: { type: 'string', minLength: 1, description: 'Tag code.' },
        version: { type: 'integer', minimum: 1, description: 'Tag version; omitted: the latest.' },
      },
    },
  },
} as const

const sequenceFields = {
  fromDate: { ...DAY, description: 'First day, yyyy-MM-dd, in the project time zone (inclusive).' },
  toDate: { ...DAY, description: 'Last day, yyyy-MM-dd, in the project time zone (inclusive); not before fromDate.' },
  events: {
    type: 'array',
    items: { type: 'string' },
    description: 'Event ids to include (an unknown id is a 400 naming events[i]). A virtual event includes the records of its member events that pass their filters; rows show the tracked event id. Omitted, [] or $Anything: every event.',
  },
  useCache: { type: 'boolean', default: false, description: 'true: serve a result computed at the current data version again (not for exports, which always read the current data).' },
} as const

const limit = { type: 'integer', minimum: 1, maximum: 10000, default: 100, description: 'At most this many events (default 100, at most 10000).' }

export const detailBody = { type: 'object', additionalProperties: false, properties: detailFields } as const
export const personalBody = { type: 'object', additionalProperties: false, properties: { ...userKey, ...detailFields } } as const
export const sequenceBody = { type: 'object', required: ['fromDate', 'toDate'], additionalProperties: false, properties: { ...sequenceFields, limit } } as const
export const personalSequenceBody = { ...sequenceBody, properties: { ...userKey, ...sequenceFields, limit } } as const
export const exportBody = { type: 'object', required: ['fromDate', 'toDate'], additionalProperties: false, properties: { ...sequenceFields, format: exportFormatField } } as const
export const personalExportBody = { ...exportBody, properties: { ...userKey, ...sequenceFields, format: exportFormatField } } as const

export const VALUES = `Values: null when empty; datetime properties as yyyy-MM-dd HH:mm:ss (local time of the project); booleans as true/false; numbers as numbers; array<string> as arrays. A property whose plan item has masking 1 shows "${MASKED_VALUE}" instead of its value (null stays null).`

export const detailSchema = {
  type: 'object',
  additionalProperties: true,
  description: 'User property id to value, then `tag.<code>` to tag value for the requested tags.',
} as const

export const sequenceSchema = exact({
  type: 'object',
  properties: {
    rows: {
      type: 'array',
      items: exact({
        type: 'object',
        properties: {
          eventId: { type: 'string', description: 'The tracked event id (xwhat).' },
          eventTime: { type: 'string', description: 'yyyy/MM/dd HH:mm:ss in the project time zone.' },
          properties: { type: 'object', additionalProperties: true, description: 'The event property ids that have a value, to their values (base columns xwho, xwhat, xwhen, ds, distinct_id left out).' },
        },
      } as const),
    },
    reportUpdateTime: { type: 'string', description: 'When the result was computed, yyyy-MM-dd HH:mm:ss in the project time zone.' },
  },
} as const)

export const exportResponse = {
  description:
    'format json: one JSON object per line: {"xwhat": event id, "xwhen": epoch milliseconds, <event property id>: value, ...} with only the properties that have a value; newest first. An empty range gives an empty body. format csv: a header line xwhat, xwhen, then every event property id of the project; one line per event, newest first, xwhen as yyyy-MM-dd HH:mm:ss (with .SSS when it has milliseconds) in the project time zone; an empty range gives the header line alone.',
  content: { 'application/x-ndjson': { schema: { type: 'string' } }, 'text/csv': { schema: { type: 'string' } } },
} as const
