import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { createFileCohort } from '../../domain/cohorts/byFile'
import { createCohort, deleteCohort, getCohort, listCohorts, recalculateCohort, type NewCohort } from '../../domain/cohorts/cohorts'
import { MAX_FILE_BYTES, type SheetFile } from '../../domain/userSets/sheet'
import type { CohortStatus } from '../../domain/userSets/records'
import { cohortUsers, exportCohortUsers, type UsersBody } from '../../domain/cohorts/users'
import type { DomainContext } from '../../domain/context'
import { AppError, badParam } from '../../domain/errors'
import {
  cohortIdParams,
  cohortRecord,
  createdCohort,
  exportBody,
  fileCohort,
  fileCohortBody,
  needMoreQuery,
  newCohortBody,
  documentedCohortBody,
  documentedUsers,
  QUOTA_NOTE,
  USER_OBJECT,
  usersBody,
  usersPage,
} from '../schemas/cohorts'
import { loginUserQuery, projectSecurity, responses, successSchema } from '../schemas/common'
import { sqlQuerystring } from '../schemas/sql'
import { sendStream } from '../streaming'
import { unreadable } from '../uploads'

/** A multipart form of text fields and one small file, kept in memory (at most MAX_FILE_BYTES). */
export async function receiveSheet(request: FastifyRequest): Promise<{ fields: Record<string, string>; file: SheetFile | null }> {
  if (!request.isMultipart()) throw badParam('file', 'send a multipart/form-data body with a file part')
  const fields: Record<string, string> = {}
  let file: SheetFile | null = null
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        fields[part.fieldname] = String(part.value)
        continue
      }
      if (part.fieldname !== 'file') throw badParam(part.fieldname, `${part.fieldname}: the file part is called file`)
      const data = await part.toBuffer()
      if (part.file.truncated) throw badParam('file', `file: the file is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB`)
      file = { data, filename: part.filename ?? '' }
    }
  } catch (err) {
    if (err instanceof AppError) throw err
    // the multipart reader's own refusals (several files, too many fields, a broken body)
    const code = (err as { code?: string }).code ?? ''
    if (code.startsWith('FST_')) throw badParam('file', `the multipart body was refused: ${(err as Error).message}`)
    throw unreadable(err)
  }
  return { fields, file }
}

const COMPUTE = `The members are computed in the background: status calculating, then success (userNumber and calculatedTime set) or failed (GET with needMore=true shows failReason). Members are kept in the warehouse table cohort_<code> (distinct_id BIGINT, xwho VARCHAR), replaced at once by each computation, queryable by custom SQL; analyses filter by them through crowds (cached analyses are recomputed after a membership change).`

/** Cohorts (spec 4.5, 3.3). */
export default async function cohortRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  await app.register(multipart, { throwFileSizeLimit: false, limits: { fileSize: MAX_FILE_BYTES, files: 1, fields: 10, fieldSize: 64 * 1024 } })
  const config = { auth: 'project' as const }
  const tags = ['cohorts']

  app.post<{ Body: NewCohort }>('/uba/api/cohort', {
    config: { ...config, documentedBody: documentedCohortBody },
    schema: {
      tags,
      summary: 'Create a cohort from rules',
      description: `Answers at once with {id, code, name, dynamic, createTime, content}. ${COMPUTE} ${QUOTA_NOTE} loginUser gives the cohort to that account (only it may delete it); without loginUser the API owns it.\n\n${newCohortBody.properties.content.description}`,
      security: projectSecurity,
      querystring: { type: 'object', properties: loginUserQuery },
      body: newCohortBody,
      response: responses(createdCohort, [400, 401, 415, 501]),
    },
  }, async (request) => createCohort(ctx, request.project, request.body, request.operator))

  app.get<{ Querystring: { needMore: boolean; status?: CohortStatus } }>('/uba/api/cohort', {
    config,
    schema: {
      tags,
      summary: 'List cohorts',
      description: 'Every cohort of the project in creation order; `status` keeps those in that state.',
      security: projectSecurity,
      querystring: { type: 'object', properties: { ...needMoreQuery, status: { type: 'string', enum: ['success', 'failed', 'calculating'] } } },
      response: responses({ type: 'array', items: cohortRecord }, [400, 401]),
    },
  }, async (request) => listCohorts(ctx, request.project, request.query.needMore, request.query.status))

  app.get<{ Params: { id: number }; Querystring: { needMore: boolean } }>('/uba/api/cohort/:id', {
    config,
    schema: {
      tags,
      summary: 'Read a cohort',
      description: 'Unknown id: 400 naming id.',
      security: projectSecurity,
      params: cohortIdParams,
      querystring: { type: 'object', properties: needMoreQuery },
      response: responses(cohortRecord, [400, 401]),
    },
  }, async (request) => getCohort(ctx, request.project, request.params.id, request.query.needMore))

  app.post<{ Params: { id: number } }>('/uba/api/cohort/:id/recalculate', {
    config,
    schema: {
      tags,
      summary: 'Recompute a cohort now',
      description: `Any cohort (static, dynamic, from a file: its values are matched again). Answers {id, status: "calculating"}; meanwhile analyses and cohort/users read the previous members. ${COMPUTE}`,
      security: projectSecurity,
      params: cohortIdParams,
      querystring: { type: 'object', properties: loginUserQuery },
      response: responses({ type: 'object', properties: { id: { type: 'integer' }, status: { type: 'string', enum: ['calculating'] } } }, [400, 401]),
    },
  }, async (request) => recalculateCohort(ctx, request.project, request.params.id, request.operator))

  app.delete<{ Params: { id: number } }>('/uba/api/cohort/:id', {
    config,
    schema: {
      tags,
      summary: 'Delete a cohort',
      description: 'Only the creator deletes: without loginUser, cohorts the API created without loginUser; with loginUser, cohorts of that account. Another caller: 400 naming loginUser. The members table is dropped; the code is never reused, and analyses naming it get a 400.',
      security: projectSecurity,
      params: cohortIdParams,
      querystring: { type: 'object', properties: loginUserQuery },
      response: responses(successSchema, [400, 401, 501]),
    },
  }, async (request) => {
    await deleteCohort(ctx, request.project, request.params.id, request.operator)
    return { success: 0 }
  })

  app.post('/uba/api/cohort/byfile', {
    config: { ...config, multipart: true },
    schema: {
      tags,
      summary: 'Create a static cohort from a file of values',
      description: `multipart/form-data: name, file, property (default xwho; a string user property, else 400 naming property). The file: an Excel workbook (its first sheet) or a CSV file (UTF-8), one column, at most ${MAX_FILE_BYTES / 1024 / 1024} MB (larger, or a second column with values: 400 naming file). Cells are text as written (surrounding spaces removed, empty rows left out); a first row equal to the property id or its display name (any case) is a header and left out. Members: users whose property equals a value exactly. The cohort is computed before the answer {id, code, name, dynamic: 0, userNumber, matched, unmatched} (distinct values with and without a matching user); it is static, and recalculate matches the kept values again. source is "file" and content "". ${QUOTA_NOTE}`,
      security: projectSecurity,
      querystring: { type: 'object', properties: loginUserQuery },
      body: fileCohortBody,
      response: responses(fileCohort, [400, 401, 415, 501, 503]),
    },
  }, async (request) => {
    const { fields, file } = await receiveSheet(request)
    return createFileCohort(ctx, request.project, { name: fields.name, property: fields.property, file }, request.operator)
  })

  app.post<{ Body: UsersBody }>('/uba/api/cohort/users', {
    config: { ...config, documentedAnswer: documentedUsers(usersPage) },
    schema: {
      tags,
      summary: 'Users of a cohort',
      description: `Answers {count (users in the cohort), page, size (users returned), users}. Without page: the first limit users (default 1000). Paging: page from 1; pageSize is required with page (and page with pageSize) and must not exceed limit; with page, limit defaults to the cohort's user count, and the pages cover the first limit users. ${USER_OBJECT}`,
      security: projectSecurity,
      body: usersBody,
      response: responses(usersPage, [400, 401, 415, 503]),
    },
  }, async (request) => cohortUsers(ctx, request.project, request.body))

  app.post<{ Body: UsersBody; Querystring: { csvUtfEncoding?: number } }>('/uba/api/cohort/users/export', {
    config,
    schema: {
      tags,
      summary: 'Export the users of a cohort',
      description: `A stream of one JSON user object per line (application/x-ndjson), or with format csv a CSV (text/csv) whose header line holds the same keys, read from the warehouse in chunks: memory stays constant whatever the size. limit omitted: every user. ${USER_OBJECT} Errors found before the first line (unknown cohortCode, property or tag, a format other than json or csv) are ordinary JSON errors.`,
      security: projectSecurity,
      querystring: sqlQuerystring,
      body: exportBody,
      response: { ...responses({}, [400, 401, 415, 503]), 200: { description: 'format json: one JSON object per line. format csv: the header line, then one line per user.', type: 'string' } },
    },
  }, async (request, reply) => {
    const csv = request.body.format === 'csv'
    const type = csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8'
    await sendStream(request, reply, type, (signal) => exportCohortUsers(ctx, request.project, request.body, signal, request.query.csvUtfEncoding === 0))
  })
}
