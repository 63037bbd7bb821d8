import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { personalDetail, userDetail } from '../../domain/people/detail'
import { personalSequence, userSequence } from '../../domain/people/sequence'
import { exportSequence, personalSequenceExport } from '../../domain/people/sequenceExport'
import { projectSecurity, responses } from '../schemas/common'
import {
  VALUES,
  detailBody,
  detailSchema,
  exportBody,
  exportResponse,
  personalBody,
  personalExportBody,
  personalSequenceBody,
  sequenceBody,
  sequenceSchema,
  xwhoParams,
} from '../schemas/people'
import { sqlQuerystring } from '../schemas/sql'
import { sendStream } from '../streaming'

type Body = Record<string, unknown>
type ByPath = { Params: { xwho: string }; Body: Body }

const KNOWN = 'A user is known once any event or profile record of theirs was stored (a user with events and no profile is known, with null properties); an unknown user is a 400 naming xwho (or distinctId).'
const RANGE = 'fromDate..toDate are whole days of the project time zone (the ds of event_vd). Newest first; events at the same moment by event id, then the later-loaded first. Every bad field is a 400 naming it (toDate when it is before fromDate).'
const ONE_OF = 'Exactly one of distinctId and xwho: both or neither is a 400 naming both.'
const NDJSON = 'application/x-ndjson; charset=utf-8'
const EXPORT_FORMAT = 'format json (default): JSON lines; format csv: CSV with a header line (add csvUtfEncoding=0 for a byte order mark).'

/** The exports' content type: CSV when asked for, JSON lines otherwise. */
const typeOf = (request: { body?: unknown }): string => ((request.body as Body | undefined)?.format === 'csv' ? 'text/csv; charset=utf-8' : NDJSON)
const bomOf = (request: { query?: unknown }): boolean => (request.query as { csvUtfEncoding?: number } | undefined)?.csvUtfEncoding === 0

/** Single user (spec 4.6): a user's detail and behaviour sequence, by xwho or by distinctId. */
export default async function peopleRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  const config = { auth: 'project' as const }
  const common = { tags: ['people'], security: projectSecurity }
  const body = (request: { body?: unknown }) => (request.body ?? {}) as Body

  app.post<ByPath>('/uba/api/cohort/users/:xwho', {
    config,
    schema: {
      ...common,
      summary: 'User detail',
      description: `The user's properties (spec 2.9); the body is a JSON object, {} for the defaults. ${KNOWN}\n\n${VALUES}`,
      params: xwhoParams,
      body: detailBody,
      response: responses(detailSchema, [400, 401, 415, 503]),
    },
  }, async (request) => userDetail(ctx, request.project, { xwho: request.params.xwho }, body(request)))

  app.post<ByPath>('/uba/api/cohort/users/:xwho/sequence', {
    config,
    schema: {
      ...common,
      summary: 'User behaviour sequence',
      description: `The user's events with their properties. ${RANGE} ${KNOWN}\n\n${VALUES}`,
      params: xwhoParams,
      body: sequenceBody,
      response: responses(sequenceSchema, [400, 401, 415, 503]),
    },
  }, async (request) => userSequence(ctx, request.project, { xwho: request.params.xwho }, body(request)))

  app.post<ByPath>('/uba/api/cohort/users/:xwho/sequence/export', {
    config,
    schema: {
      ...common,
      summary: 'Export a user behaviour sequence (streamed)',
      description: `Every event of the range, streamed (read the response as a stream): ${EXPORT_FORMAT} ${RANGE} ${KNOWN} Errors found before the first line (bad fields, unknown user) are ordinary JSON answers.\n\n${VALUES}`,
      params: xwhoParams,
      querystring: sqlQuerystring,
      body: exportBody,
      response: responses(exportResponse, [400, 401, 415, 503]),
    },
  }, async (request, reply) =>
    sendStream(request, reply, typeOf(request), (signal) => exportSequence(ctx, request.project, { xwho: request.params.xwho }, body(request), signal, bomOf(request))))

  app.post<{ Body: Body }>('/uba/api/users/personal', {
    config,
    schema: {
      ...common,
      summary: 'User detail by distinctId or xwho',
      description: `Same result as the user detail. ${ONE_OF} ${KNOWN}\n\n${VALUES}`,
      body: personalBody,
      response: responses(detailSchema, [400, 401, 415, 503]),
    },
  }, async (request) => personalDetail(ctx, request.project, body(request)))

  app.post<{ Body: Body }>('/uba/api/users/sequence', {
    config,
    schema: {
      ...common,
      summary: 'User behaviour sequence by distinctId or xwho',
      description: `Same result as the user behaviour sequence. ${ONE_OF} ${RANGE} ${KNOWN}\n\n${VALUES}`,
      body: personalSequenceBody,
      response: responses(sequenceSchema, [400, 401, 415, 503]),
    },
  }, async (request) => personalSequence(ctx, request.project, body(request)))

  app.post<{ Body: Body }>('/uba/api/users/sequence/export', {
    config,
    schema: {
      ...common,
      summary: 'Export a user behaviour sequence by distinctId or xwho (streamed)',
      description: `Same stream as the sequence export: ${EXPORT_FORMAT} ${ONE_OF} ${RANGE} ${KNOWN}\n\n${VALUES}`,
      querystring: sqlQuerystring,
      body: personalExportBody,
      response: responses(exportResponse, [400, 401, 415, 503]),
    },
  }, async (request, reply) => sendStream(request, reply, typeOf(request), (signal) => personalSequenceExport(ctx, request.project, body(request), signal, bomOf(request))))
}
