import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { BUSY_LIBS_KEPT, busyRefusals, clearBusyRefusals } from '../../domain/ingest/busyRefusals'
import { clearProblemLog, EXAMPLES_KEPT, EXCERPT_CHARS, problemLog, STREAM_STOPPED } from '../../domain/ingest/problems'
import { APPID_CHARS, clearUnknownProjects, UNKNOWN_APPIDS_KEPT, unknownProjects } from '../../domain/ingest/unknownProjects'
import { exact, projectSecurity, responses, successSchema } from '../schemas/common'

const kind = { type: 'string', enum: ['refused', 'dropped', 'upload'], description: 'refused: a record not stored; dropped: a value left out of a stored record; upload: a whole upload refused.' }

const logSchema = {
  type: 'object',
  required: ['total', 'lastTime', 'counts', 'examples'],
  properties: {
    total: { type: 'integer', description: 'Every problem counted: records refused, values left out, uploads refused.' },
    lastTime: { type: ['integer', 'null'], description: 'When the latest problem happened (epoch ms); null for an empty log.' },
    counts: {
      type: 'array',
      description: 'One entry per kind, property and reason, the latest first; never cut.',
      items: exact({
        type: 'object',
        properties: {
          kind,
          property: { type: 'string' },
          reason: { type: 'string' },
          count: { type: 'integer', description: 'Records (for kind upload: uploads) with this problem.' },
          records: { type: 'integer', description: 'For kind upload, the records the refused uploads held; else equal to count.' },
          lastTime: { type: 'integer', description: 'Epoch ms.' },
        },
      }),
    },
    examples: {
      type: 'array',
      description: 'The newest examples of refused records and values left out (the uploads refused whole are counted only).',
      items: exact({
        type: 'object',
        properties: {
          time: { type: 'integer', description: 'Epoch ms.' },
          kind: { type: 'string', enum: ['refused', 'dropped'] },
          property: { type: 'string' },
          value: { type: ['string', 'null'] },
          reason: { type: 'string' },
          lib: { type: ['string', 'null'], description: 'The SDK: the record\'s $lib.' },
          libVersion: { type: ['string', 'null'], description: 'The record\'s $lib_version.' },
          record: { type: 'string', description: `The record as received, at most ${EXCERPT_CHARS} characters.` },
        },
      }),
    },
    unknownProjects: {
      type: 'object',
      description: `Present when uploads held records naming no known project (an appid no project has, or none): server-wide, the same in every project's log. At most ${UNKNOWN_APPIDS_KEPT} appids are named; records naming others are counted in otherRecords.`,
      required: ['records', 'lastTime', 'appids', 'otherRecords'],
      properties: {
        records: { type: 'integer', description: 'Every record refused for naming no known project.' },
        lastTime: { type: 'integer', description: 'Epoch ms.' },
        appids: {
          type: 'array',
          description: 'One entry per appid named, the latest first.',
          items: exact({
            type: 'object',
            properties: {
              appid: { type: ['string', 'null'], description: `The appid named (at most ${APPID_CHARS} characters); null for records naming none.` },
              records: { type: 'integer' },
              uploads: { type: 'integer' },
              lastTime: { type: 'integer', description: 'Epoch ms.' },
              lib: { type: ['string', 'null'], description: 'The SDK of the latest such record: its $lib.' },
              libVersion: { type: ['string', 'null'] },
              record: { type: 'string', description: `The latest such record as received, at most ${EXCERPT_CHARS} characters.` },
            },
          }),
        },
        otherRecords: { type: 'integer', description: `Records naming appids beyond the ${UNKNOWN_APPIDS_KEPT} named.` },
      },
    },
    busyRefusals: {
      type: 'object',
      description: `Present when uploads were answered 503 "send again" because the collector was busy (most SDKs drop the batch then): this project's, and the server-wide ones whose project could not be told. One entry per scope, reason and SDK; at most ${BUSY_LIBS_KEPT} SDKs named per project and reason, the others counted with lib null.`,
      required: ['uploads', 'bytes', 'lastTime', 'refusals'],
      properties: {
        uploads: { type: 'integer', description: 'Every upload refused busy (both scopes).' },
        bytes: { type: 'integer', description: 'Their bytes as received.' },
        lastTime: { type: 'integer', description: 'Epoch ms.' },
        refusals: {
          type: 'array',
          description: 'The latest first.',
          items: exact({
            type: 'object',
            properties: {
              scope: { type: 'string', enum: ['project', 'server'], description: 'project: uploads naming this project; server: uploads naming no project that could be read (or an unknown one), the same in every project\'s log.' },
              reason: { type: 'string', enum: ['decoders', 'writer'], description: 'decoders: every decode thread was busy and the uploads waiting filled their bytes (refused before decoding: appid and SDK are read from the first kilobytes); writer: the project was busy writing (an import) for longer than an upload waits.' },
              appid: { type: ['string', 'null'], description: `The latest appid the uploads named (at most ${APPID_CHARS} characters); null when none could be read.` },
              lib: { type: ['string', 'null'], description: 'The SDK: the first record\'s $lib; null when not said or not readable.' },
              libVersion: { type: ['string', 'null'] },
              uploads: { type: 'integer' },
              records: { type: 'integer', description: 'Records the uploads held: counted for writer only (decoders refuse before decoding: 0).' },
              bytes: { type: 'integer', description: 'Bytes as received: the body, or the address of an image request.' },
              lastTime: { type: 'integer', description: 'Epoch ms.' },
            },
          }),
        },
      },
    },
  },
} as const

/** The ingestion problem log of a project (a UBA Desk addition): what the collector refused or left out. */
export default async function ingestProblemRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  app.get<{ Querystring: { limit: number } }>('/uba/api/ingest/problems', {
    config: { auth: 'project' },
    schema: {
      tags: ['collector'],
      summary: 'What the collector refused or left out (data quality)',
      description: `The SDKs read nothing of /up's answer, so the collector keeps here what it did not store: records refused (no usable xwho, xwhat or xwhen; kind \`refused\`), values left out of stored records because they do not fit their property's type (kind \`dropped\`), and uploads refused whole while the project's data stream is stopped (kind \`upload\`, reason "${STREAM_STOPPED}"). Counts per kind, property and reason are never cut; the newest ${EXAMPLES_KEPT} examples are kept, at most 10 per reason from one upload. Records naming no known project have no project to be logged under: they are listed server-wide in \`unknownProjects\`, in every project's log. Uploads answered 503 because the collector was busy (its decode threads, or the project's writer) are counted in \`busyRefusals\`. File imports report their rejected records in their job instead.`,
      security: projectSecurity,
      querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 0, maximum: EXAMPLES_KEPT, default: 100, description: 'How many examples, newest first.' } } },
      response: responses(logSchema, [400, 401]),
    },
  }, async (request) => {
    const log = problemLog(ctx.meta, request.project.appKey, request.query.limit)
    const unknown = unknownProjects(ctx.meta)
    const busy = busyRefusals(ctx.meta, request.project.appKey)
    return { ...log, ...(unknown ? { unknownProjects: unknown } : {}), ...(busy ? { busyRefusals: busy } : {}) }
  })

  app.delete('/uba/api/ingest/problems', {
    config: { auth: 'project' },
    schema: {
      tags: ['collector'],
      summary: 'Clear the data quality log',
      description: 'Empties the counts and examples of the project\'s ingestion problem log, the server-wide list of records naming no known project that it shows, and its busy refusals (the project\'s and the server-wide ones); stored data is not touched.',
      security: projectSecurity,
      response: responses(successSchema, [401]),
    },
  }, async (request) => {
    clearProblemLog(ctx.meta, request.project.appKey)
    clearUnknownProjects(ctx.meta)
    clearBusyRefusals(ctx.meta, request.project.appKey)
    return { success: 0 }
  })
}
