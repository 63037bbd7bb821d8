import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { LIMIT_MAX, propertyValues, SAMPLE_ROWS, type PropertyValuesQuery } from '../../domain/analysis/propertyValues'
import { VIRTUAL_EVENT_ID_RULE } from '../../domain/schema/naming'
import { metaEventProperties, metaEvents, metaUserProperties } from '../../domain/schema/planListings'
import { createVirtualEvent, updateVirtualEvent, type VirtualEventInput } from '../../domain/expr/virtualEvents'
import { exact, loginUserQuery, projectSecurity, responses, successSchema } from '../schemas/common'
import { dataTypeSchema, documentedVirtualMember, idSchema, nameSchema, remarkSchema, virtualMemberSchema, virtualRuleSchema } from '../schemas/plan'

const config = { auth: 'project' as const }
const tags = ['meta']
const flag = { type: 'integer', enum: [0, 1] } as const
const nullableText = { type: ['string', 'null'] } as const

const virtualRules = `
Rules: ${VIRTUAL_EVENT_ID_RULE}, and it must differ from every event id: the id of another virtual event is 501/50101, the id of a tracked or preset event a 400 naming id. name at most 50 and remark at most 100 characters, no special characters. Each member is {expression: "event.<eventId>", filter?}: a known tracked event (not a virtual event, not $Anything; else 400 naming events[i].expression). A filter may use user.<propertyId> and the properties of that same event; its operators must fit the property's data type (see the filter rules below). Members are combined by OR; the rule is stored as {events, relation: "OR"} with the filters normalised (relation upper case, property ids lower case).
Filter rules: conditions[i].expression unknown: 400 naming events[i].filter.conditions[i].expression; an operator that does not fit the data type: 400 naming ...function; params of the wrong number or type: 400 naming ...params. Operators: string EQ, NOT_EQ (several params: IN / NOT IN), CONTAIN, NOT_CONTAIN, NULL, NOT_NULL; number EQ, NOT_EQ, GT, GTE, LT, LTE, RANGE [low, high], NULL, NOT_NULL; boolean TRUE, FALSE, NULL, NOT_NULL; datetime ABSOLUTE_TIME ["yyyy/MM/dd HH:mm", "yyyy/MM/dd HH:mm"], RELATIVE_TIME_OF_CUURENT [n, unit, "within"|"before"], RELATIVE_TIME_RANGE_CUURENT [from, to, unit], RELATIVE_TIME_OF_EVENT [n, unit, "within"|"before"], NULL, NOT_NULL; array<string> EQ, CONTAIN, NOT_CONTAIN, NULL, NOT_NULL. Numbers are JSON numbers; units minute, hour, day, week, month.`

/** Metadata and virtual events (spec 4.4). */
export default async function metaRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  app.get('/uba/api/meta/userProperties', {
    config,
    schema: {
      tags, security: projectSecurity,
      summary: 'User properties for analysis',
      description: 'User properties that are planned or have reported data (every known one), hidden presets included (visible 0).',
      response: responses({
        type: 'array',
        items: exact({
          type: 'object',
          properties: { id: { type: 'string' }, name: nullableText, enable: flag, visible: flag, preset: flag, dataType: dataTypeSchema, dict: flag },
        }),
      }, [401]),
    },
  }, async (request) => metaUserProperties(ctx.meta, request.project.appKey))

  app.get<{ Querystring: { type: 'all' | 'event' | 'virtual'; enable?: number } }>('/uba/api/meta/event', {
    config,
    schema: {
      tags, security: projectSecurity,
      summary: 'Events for analysis, tracked and virtual',
      description: 'Events that are planned or have reported data, disabled ones included. type: all (default), event (tracked) or virtual; enable: 0 or 1 (omitted: both). platform is comma separated (for a virtual event: its members\' platforms); content is the virtual event\'s rule, else null.',
      querystring: {
        type: 'object',
        properties: { type: { type: 'string', enum: ['all', 'event', 'virtual'], default: 'all' }, enable: { ...flag, description: '1 enabled only, 0 disabled only.' } },
      },
      response: responses({
        type: 'array',
        items: exact({
          type: 'object',
          properties: {
            id: { type: 'string' }, name: nullableText, enable: flag, remark: nullableText, preset: flag, platform: nullableText,
            type: { type: 'string', enum: ['event', 'virtual'] },
            content: { anyOf: [virtualRuleSchema, { type: 'null' }] },
          },
        }),
      }, [400, 401]),
    },
  }, async (request) => metaEvents(ctx.meta, request.project.appKey, request.query.type, request.query.enable))

  app.get<{ Querystring: { eventId: string } }>('/uba/api/meta/eventProperties', {
    config,
    schema: {
      tags, security: projectSecurity,
      summary: "An event's properties for analysis",
      description: 'The common (global) properties and those the event defines. For a virtual event: the properties of its member events together. eventId $Anything (any event): every event property. An unknown eventId is a 400 naming eventId.',
      querystring: { type: 'object', required: ['eventId'], properties: { eventId: { type: 'string', minLength: 1 } } },
      response: responses({
        type: 'array',
        items: exact({
          type: 'object',
          properties: { id: { type: 'string' }, name: nullableText, enable: flag, global: flag, preset: flag, dataType: dataTypeSchema, dict: flag },
        }),
      }, [400, 401]),
    },
  }, async (request) => metaEventProperties(ctx.meta, request.project.appKey, request.query.eventId))

  const valueSchema = { type: ['string', 'number', 'boolean'] } as const
  app.get<{ Querystring: PropertyValuesQuery }>('/uba/api/meta/propertyValues', {
    config,
    schema: {
      tags, security: projectSecurity,
      summary: "A property's most frequent values, for filters to pick from",
      description: `UBA Desk addition. expression is a property as filters name it: event.<eventId>.<propertyId> (counted in events of that event; a virtual event: of its members, with their filters; $Anything: of every event) or user.<propertyId> (counted in users with a profile). An unknown event or property is a 400 naming expression. values: the most frequent values, count down then value up (text, numbers and booleans in their order), at most limit (1-${LIMIT_MAX}, default 50; else a 400 naming limit); more says further values match. search keeps the values whose text contains it, in any letter case (numbers as written, datetimes as yyyy-MM-dd HH:mm:ss). A list property (array<string>) counts each element once per event or user holding it. rows: the events or users read, nulls: of them without a value (or with an empty list); a missing value is never among values. A table of more than ${SAMPLE_ROWS.toLocaleString('en')} rows is read in a sample of about that many rows (system sampling of its blocks, which differs a little between requests): sampled true and fraction the share read, so count / fraction estimates the whole; a scope with fewer than 1,000 rows in the sample is read again in a ten times larger sample, up to the whole table. A masked property (plan masking 1) shows no values: masked true, values [], rows 0, fraction 0. Dimension-table columns are not offered: filters do not take them.`,
      querystring: {
        type: 'object',
        required: ['expression'],
        properties: {
          expression: { type: 'string', minLength: 1, maxLength: 300, description: 'event.<eventId>.<propertyId> or user.<propertyId>.' },
          search: { type: 'string', maxLength: 200, description: 'Keep values whose text contains this, in any letter case.' },
          limit: { type: 'integer', description: `At most this many values (1-${LIMIT_MAX}, default 50).` },
        },
      },
      response: responses({
        type: 'object',
        required: ['expression', 'dataType', 'masked', 'values', 'more', 'rows', 'nulls', 'sampled', 'fraction'],
        properties: {
          expression: { type: 'string', description: 'The expression with property ids in lower case.' },
          dataType: dataTypeSchema,
          masked: { type: 'boolean' },
          values: { type: 'array', items: { type: 'object', required: ['value', 'count'], properties: { value: valueSchema, count: { type: 'integer' } } } },
          more: { type: 'boolean' },
          rows: { type: 'integer' },
          nulls: { type: 'integer' },
          sampled: { type: 'boolean' },
          fraction: { type: 'number' },
        },
      }, [400, 401, 503]),
    },
  }, async (request) => propertyValues(ctx, request.project, request.query))

  // validated with the members' filters as objects (the domain checks them, naming exact paths); published with their schema
  const virtualBody = (create: boolean, member: object = virtualMemberSchema) => ({
    type: 'object',
    required: create ? ['id', 'events'] : ['id'],
    additionalProperties: false,
    properties: {
      id: idSchema(create ? 'Virtual event id.' : 'Id of the virtual event to change (cannot itself change).'),
      name: nameSchema(!create),
      remark: remarkSchema(!create),
      events: { type: 'array', minItems: 1, items: member },
    },
  })

  app.post<{ Body: VirtualEventInput }>('/uba/api/meta/event/virtual', {
    config: { ...config, documentedBody: virtualBody(true, documentedVirtualMember) },
    schema: {
      tags, security: projectSecurity,
      summary: 'Create a virtual event',
      description: `Answers {success: 0}. The creator is loginUser's account, or the API itself without loginUser; only the creator may change it.${virtualRules}`,
      querystring: { type: 'object', properties: loginUserQuery },
      body: virtualBody(true),
      response: responses(successSchema, [400, 401, 415, 501]),
    },
  }, async (request) => {
    await createVirtualEvent(ctx, request.project.appKey, request.body, request.operator)
    return { success: 0 }
  })

  app.put<{ Body: VirtualEventInput }>('/uba/api/meta/event/virtual', {
    config: { ...config, documentedBody: virtualBody(false, documentedVirtualMember) },
    schema: {
      tags, security: projectSecurity,
      summary: 'Change a virtual event',
      description: `Answers {success: 0}. id names the virtual event (an unknown id, or a tracked event's, is a 400 naming id). Only its creator may change it: a virtual event created without loginUser is changed without loginUser, one created by an account only with that account as loginUser; anyone else gets a 400 naming loginUser. Only the fields sent change (name or remark null or "" clears); events, when sent, replace the members and must not be empty; a body with the id alone is a 400 naming body.${virtualRules}`,
      querystring: { type: 'object', properties: loginUserQuery },
      body: virtualBody(false),
      response: responses(successSchema, [400, 401, 415, 501]),
    },
  }, async (request) => {
    await updateVirtualEvent(ctx, request.project.appKey, request.body, request.operator)
    return { success: 0 }
  })
}
