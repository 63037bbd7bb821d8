import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { NEW_EVENT_ID_RULE, NEW_PROPERTY_ID_RULE } from '../../domain/schema/naming'
import { declareEvent, declareUserProperty, type EventDeclaration, type PropertyDeclaration } from '../../domain/schema/planDeclare'
import { schemaEventProperties, schemaEvents, schemaUserProperties, type PlanStateFilter } from '../../domain/schema/planListings'
import { updateEvent, updateEventProperty, updateUserProperty, type EventChanges, type PropertyChanges } from '../../domain/schema/planUpdate'
import { loginUserQuery, projectSecurity, responses, successSchema } from '../schemas/common'
import {
  dataTypeSchema, eventPropertyRecord, maskingSchema, eventRecord, idSchema, nameSchema, planStateQuery, remarkSchema, userPropertyRecord,
} from '../schemas/plan'

const config = { auth: 'project' as const }
const tags = ['schema']
const writeErrors = [400, 401, 415, 501, 503]

/**
 * Each path is served as written and with the extra leading `/svc` that the spec's sample calls
 * carry; the alias is left out of /openapi.json (documented once, in the area's tag).
 */
const both = (url: string): [string, boolean][] => [[url, false], [`/svc${url}`, true]]
const svcNote = ' Also answers at the same path with a leading /svc (the form of the spec\'s sample calls).'

const declarationRules = `
Rules (spec 3.4): a new item is created in the plan (plan 1, dataStatus 0) and a new property gets its warehouse column at once, so analyses and SQL can use it before any data arrives. An item outside the plan is put into it, and the name and remark sent replace its own. An item already in the plan with the same dataType is skipped: nothing changes (rename with PUT). A different dataType is a 400 naming dataType once data has reported or for a preset; while no data has reported (dataStatus 0) the declaration wins and the type and its column change.
Property ids are folded to lower case, as data folds them. ${NEW_PROPERTY_ID_RULE}; the base columns (xwho, distinct_id, and for events xwhat, xwhen, ds) are refused. An id that already exists (a preset \`$\` id, or one that data reported) is accepted as it is. Nothing is written unless the whole request is valid.`

/** Tracking plan management (spec 4.3). */
export default async function schemaRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  for (const [url, hide] of both('/uba/api/schema/userProperties')) {
    app.get<{ Querystring: PlanStateFilter }>(url, {
      config,
      schema: {
        hide, tags, security: projectSecurity,
        summary: 'List user properties of the plan',
        description: 'Every user property: planned and unplanned, reported and not, hidden presets included (visible 0). Optional filters plan and dataStatus (0 or 1; anything else is a 400).' + svcNote,
        querystring: { type: 'object', properties: planStateQuery },
        response: responses({ type: 'array', items: userPropertyRecord }, [400, 401]),
      },
    }, async (request) => schemaUserProperties(ctx.meta, request.project.appKey, request.query))

    app.post<{ Body: PropertyDeclaration }>(url, {
      config,
      schema: {
        hide, tags, security: projectSecurity,
        summary: 'Declare a user property in the plan',
        description: `Answers {success: 0}.${declarationRules}` + svcNote,
        querystring: { type: 'object', properties: loginUserQuery },
        body: {
          type: 'object',
          required: ['id', 'dataType'],
          additionalProperties: false,
          properties: { id: idSchema('User property id.'), name: nameSchema(), dataType: dataTypeSchema, remark: remarkSchema() },
        },
        response: responses(successSchema, writeErrors),
      },
    }, async (request) => {
      await declareUserProperty(ctx, request.project, request.body, request.operator)
      return { success: 0 }
    })

    app.put<{ Querystring: { id: string }; Body: PropertyChanges }>(url, {
      config,
      schema: {
        hide, tags, security: projectSecurity,
        summary: 'Change a user property',
        description: 'Only the fields sent change; an empty body is a 400 naming body. An unknown id (folded to lower case) is a 400 naming id. dataType may change only while no data has reported (dataStatus 0) and never for a preset: else a 400 naming dataType; the column is re-typed with it. Presets may be renamed. plan and dataStatus are not changed by a PUT. masking 1 shows the values as ****** in user details, sequences and their exports (UBA Desk addition: the spec lists the field but no way to set it).' + svcNote,
        querystring: { type: 'object', required: ['id'], properties: { id: idSchema('User property id.'), ...loginUserQuery } },
        body: { type: 'object', additionalProperties: false, properties: { name: nameSchema(true), dataType: dataTypeSchema, remark: remarkSchema(true), masking: maskingSchema } },
        response: responses(successSchema, writeErrors),
      },
    }, async (request) => {
      await updateUserProperty(ctx, request.project, request.query.id, request.body, request.operator)
      return { success: 0 }
    })
  }

  for (const [url, hide] of both('/uba/api/schema/event')) {
    app.get<{ Querystring: PlanStateFilter }>(url, {
      config,
      schema: {
        hide, tags, security: projectSecurity,
        summary: 'List events of the plan',
        description: 'Every tracked event, planned and unplanned, reported and not. Virtual events are not tracked and are listed by GET /uba/api/meta/event. Optional filters plan and dataStatus (0 or 1).' + svcNote,
        querystring: { type: 'object', properties: planStateQuery },
        response: responses({ type: 'array', items: eventRecord }, [400, 401]),
      },
    }, async (request) => schemaEvents(ctx.meta, request.project.appKey, request.query))

    app.post<{ Body: EventDeclaration }>(url, {
      config,
      schema: {
        hide, tags, security: projectSecurity,
        summary: 'Declare an event and its properties in the plan',
        description: `Answers {success: 0}. The event and each property are items on their own: an event already in the plan is skipped while the properties sent are still declared and linked to it (the link enters the plan). Event ids keep their case; ${NEW_EVENT_ID_RULE} (spec part 8: _checkout_v2 is valid; the SDK's xwhat rule, a letter or $ first and at most 99 characters, is for the records data sends). The id of a virtual event is a 400 naming id. A property listed twice is a 400 naming the second properties[i].id. Errors name the property, e.g. properties[1].dataType.${declarationRules}` + svcNote,
        querystring: { type: 'object', properties: loginUserQuery },
        body: {
          type: 'object',
          required: ['id'],
          additionalProperties: false,
          properties: {
            id: idSchema('Event id.'),
            name: nameSchema(),
            remark: remarkSchema(),
            properties: {
              type: 'array',
              items: {
                type: 'object',
                required: ['id', 'dataType'],
                additionalProperties: false,
                properties: { id: idSchema('Event property id.'), name: nameSchema(), dataType: dataTypeSchema, remark: remarkSchema() },
              },
            },
          },
        },
        response: responses(successSchema, writeErrors),
      },
    }, async (request) => {
      await declareEvent(ctx, request.project, request.body, request.operator)
      return { success: 0 }
    })

    app.put<{ Querystring: { id: string }; Body: EventChanges }>(url, {
      config,
      schema: {
        hide, tags, security: projectSecurity,
        summary: 'Change an event',
        description: 'Only the fields sent change (null or "" clears); an empty body is a 400 naming body. An unknown id, or the id of a virtual event, is a 400 naming id.' + svcNote,
        querystring: { type: 'object', required: ['id'], properties: { id: idSchema('Event id.'), ...loginUserQuery } },
        body: { type: 'object', additionalProperties: false, properties: { name: nameSchema(true), remark: remarkSchema(true) } },
        response: responses(successSchema, [400, 401, 415, 501]),
      },
    }, async (request) => {
      await updateEvent(ctx, request.project.appKey, request.query.id, request.body, request.operator)
      return { success: 0 }
    })
  }

  for (const [url, hide] of both('/uba/api/schema/eventProperties')) {
    app.get<{ Querystring: PlanStateFilter & { eventId: string } }>(url, {
      config,
      schema: {
        hide, tags, security: projectSecurity,
        summary: "List an event's properties",
        description: 'The common (global) properties, which every event carries, plus the properties linked to the event by data or by the plan. plan and dataStatus are those of the property on this event: a common property is planned where the property is; an event-defined one when its link to the event is in the plan; dataStatus is 1 once data of this event carried it. The filters apply to these values. An unknown eventId (or a virtual event) is a 400 naming eventId.' + svcNote,
        querystring: { type: 'object', required: ['eventId'], properties: { eventId: { type: 'string', minLength: 1 }, ...planStateQuery } },
        response: responses({ type: 'array', items: eventPropertyRecord }, [400, 401]),
      },
    }, async (request) => schemaEventProperties(ctx.meta, request.project.appKey, request.query.eventId, request.query))

    app.put<{ Querystring: { eventId: string; propertyId: string }; Body: PropertyChanges }>(url, {
      config,
      schema: {
        hide, tags, security: projectSecurity,
        summary: "Change an event's property",
        description: 'A property has one name, remark and dataType across all events (one warehouse column per id), so the change shows on every event that carries it. Only the fields sent change; an empty body is a 400 naming body. Unknown event: 400 naming eventId; a property the event does not carry: 400 naming propertyId. dataType may change only while no event has reported the property and never for a preset (else 400 naming dataType). masking 1 shows the values as ****** in user sequences and their exports (UBA Desk addition).' + svcNote,
        querystring: {
          type: 'object',
          required: ['eventId', 'propertyId'],
          properties: { eventId: { type: 'string', minLength: 1 }, propertyId: idSchema('Event property id (folded to lower case).'), ...loginUserQuery },
        },
        body: { type: 'object', additionalProperties: false, properties: { name: nameSchema(true), dataType: dataTypeSchema, remark: remarkSchema(true), masking: maskingSchema } },
        response: responses(successSchema, writeErrors),
      },
    }, async (request) => {
      const { eventId, propertyId } = request.query
      await updateEventProperty(ctx, request.project, eventId, propertyId, request.body, request.operator)
      return { success: 0 }
    })
  }
}
