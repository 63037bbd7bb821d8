import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { rmSync } from 'node:fs'
import type { DomainContext } from '../../domain/context'
import { cancelJob, getJob, listJobs, startImportJob } from '../../domain/ingest/jobs'
import { previewFile } from '../../domain/ingest/preview'
import { importablePath } from '../../domain/ingest/importRoots'
import { importSpecOf, type ImportFields } from '../../domain/ingest/request'
import { badParam } from '../../domain/errors'
import { projectSecurity, responses, loginUserQuery } from '../schemas/common'
import { importFieldsSchema, jobSchema, previewSchema } from '../schemas/import'
import { MAX_UPLOAD_BYTES, receiveUpload } from '../uploads'

/** The request's fields and file: a JSON body naming a local `path`, or a multipart upload. */
async function fieldsAndFile(request: FastifyRequest, ctx: DomainContext): Promise<{ fields: ImportFields; file: string; upload?: { file: string; name: string } }> {
  if (request.isMultipart()) {
    const upload = await receiveUpload(request, ctx.dataDir)
    if (!upload.file) throw badParam('file', 'the multipart body has no file part')
    return { fields: upload.fields, file: upload.file, upload: { file: upload.file, name: upload.filename ?? 'upload' } }
  }
  const body = (request.body ?? {}) as ImportFields
  return { fields: body, file: importablePath(ctx, body.path) }
}

const body = {
  content: {
    'application/json': { schema: { ...importFieldsSchema, required: ['path'] } },
    'multipart/form-data': {
      schema: {
        description: 'A `file` part, and the other fields as text parts (`mapping` as JSON text).',
        properties: { file: { type: 'string', format: 'binary' }, ...importFieldsSchema.properties, mapping: { type: 'string', description: 'The mapping as JSON text.' } },
      },
    },
  },
}

/** Import (a UBA Desk addition, documented in /openapi.json): preview, jobs, progress, cancel. */
export default async function importRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  await app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 20, fieldSize: 1024 * 1024 } })
  const config = { auth: 'project' as const, multipart: true }

  app.post('/uba/api/import/preview', {
    config,
    schema: {
      tags: ['import'],
      summary: 'Preview a file as it would be imported',
      description: 'Reads the first 1,000 records only and writes nothing. Shows the first `rows` (default 20) records as they would be stored, each property with its type (from the plan, or inferred now), and every problem found. For tabular files a mapping is guessed from the header when none is given; `mappingProblem` says what the mapping still lacks.',
      security: projectSecurity,
      querystring: { type: 'object', properties: { rows: { type: 'integer', minimum: 1, maximum: 1000, default: 20 } } },
      body,
      response: responses(previewSchema, [400, 401, 415, 503]),
    },
  }, async (request) => {
    const { fields, file, upload } = await fieldsAndFile(request, ctx)
    try {
      const spec = importSpecOf(fields, file)
      return await previewFile(ctx, request.project, spec, (request.query as { rows: number }).rows)
    } finally {
      if (upload) rmSync(upload.file, { force: true })
    }
  })

  app.post('/uba/api/import/jobs', {
    config,
    schema: {
      tags: ['import'],
      summary: 'Start an import job',
      description: `Queues an import of a local file (\`path\`) or an uploaded one (multipart \`file\`) and answers at once; follow it with GET .../jobs/{id}.
Formats: \`json\` (JSON lines or a JSON array of SDK records, gzip accepted), \`csv\`, \`tsv\`, \`parquet\`, \`excel\` (first sheet, or \`sheet\`); detected from the name and content when omitted. CSV cells are separated by commas, semicolons, tabs or pipes: the header line tells which, or \`delimiter\`.
SDK records route themselves: the six \`$profile_*\` events change profile_vd, the others are events. \`$alias\` records also merge their \`$original_id\` into their xwho, in xwhen order, by the rules of POST /up (the job's \`result\` then counts \`aliasesMerged\` and \`aliasesIgnored\`, with \`aliasProblems\`). Tabular files need \`kind\` (events, default, or profiles) and a \`mapping\`: \`xwho\` (user column), \`xwhat\` (event column) or \`event\` (one event id for every row), \`xwhen\` (time column: epoch ms or s, ISO 8601, yyyy-MM-dd HH:mm:ss[.SSS], yyyy-MM-dd; read in the project's time zone unless the value carries one); every other column becomes a property named after its header (lower case, accents left out, other characters as _), renamed with \`properties\` {column: id} or left out with null; \`types\` {id: type} fixes the type of a new property instead of inferring it.
Types: a property the plan knows keeps its type; a new one takes the narrowest type that all its values fit (text cells) or the type of its first value (JSON values). A value that does not fit rejects its record, with its row, property, value and reason. \`onError\`: abort (default: any rejected record fails the job and nothing is written) or skip (the others are written). \`dedupe\`: leave out records equal to one already stored.
All or nothing: a failed, cancelled or interrupted job leaves no rows, columns, ids or plan items. One import runs at a time per project; others queue.`,
      security: projectSecurity,
      querystring: { type: 'object', properties: loginUserQuery },
      body,
      response: responses(jobSchema, [400, 401, 415, 501, 503]),
    },
  }, async (request) => {
    const { fields, file, upload } = await fieldsAndFile(request, ctx)
    try {
      return startImportJob(ctx, request.project, importSpecOf(fields, file), request.operator, upload)
    } catch (err) {
      if (upload) rmSync(upload.file, { force: true })
      throw err
    }
  })

  const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } } as const

  app.get('/uba/api/import/jobs', {
    config: { auth: 'project' },
    schema: { tags: ['import'], summary: 'Recent import jobs (newest first, at most 50)', security: projectSecurity, response: responses({ type: 'array', items: jobSchema }, [401]) },
  }, async (request) => listJobs(ctx, request.project.appKey))

  app.get<{ Params: { id: string } }>('/uba/api/import/jobs/:id', {
    config: { auth: 'project' },
    schema: {
      tags: ['import'],
      summary: 'An import job: state, progress, counts, first rejected records',
      security: projectSecurity,
      params: idParams,
      response: responses(jobSchema, [400, 401]),
    },
  }, async (request) => getJob(ctx, request.project.appKey, request.params.id))

  app.delete<{ Params: { id: string } }>('/uba/api/import/jobs/:id', {
    config: { auth: 'project' },
    schema: {
      tags: ['import'],
      summary: 'Cancel an import job',
      description: 'A queued job is cancelled at once; a running one is interrupted and rolled back (state cancelled, nothing written). A finished job is a 400.',
      security: projectSecurity,
      params: idParams,
      querystring: { type: 'object', properties: loginUserQuery },
      response: responses(jobSchema, [400, 401]),
    },
  }, async (request) => cancelJob(ctx, request.project.appKey, request.params.id, request.operator))
}
