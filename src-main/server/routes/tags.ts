import multipart from '@fastify/multipart'
import type { FastifyInstance } from 'fastify'
import { MAX_FILE_BYTES } from '../../domain/userSets/sheet'
import type { DomainContext } from '../../domain/context'
import { createFileTag, createTag, deleteTag, listTags, recalculateTag, type NewTag } from '../../domain/tags/tags'
import { loginUserQuery, projectSecurity, responses, successSchema } from '../schemas/common'
import { createdTag, documentedTagBody, fileTag, fileTagBody, newTagBody, tagCodeParams, tagRecord, TAGS_ABOUT } from '../schemas/tags'
import { receiveSheet } from './cohorts'

/** Tags (UBA Desk addition; see TAGS_ABOUT). */
export default async function tagRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  await app.register(multipart, { throwFileSizeLimit: false, limits: { fileSize: MAX_FILE_BYTES, files: 1, fields: 10, fieldSize: 64 * 1024 } })
  const config = { auth: 'project' as const }
  const tags = ['tags']

  app.post<{ Body: NewTag }>('/uba/api/tags', {
    config: { ...config, documentedBody: documentedTagBody },
    schema: {
      tags,
      summary: 'Create a tag from rules (UBA Desk addition)',
      description: `Answers at once; version 1 is computed in the background (status calculating, then success or failed with failReason; see GET /uba/api/tags). loginUser gives the tag to that account. ${TAGS_ABOUT}`,
      security: projectSecurity,
      querystring: { type: 'object', properties: loginUserQuery },
      body: newTagBody,
      response: responses(createdTag, [400, 401, 415, 501]),
    },
  }, async (request) => createTag(ctx, request.project, request.body, request.operator))

  app.post('/uba/api/tags/byfile', {
    config: { ...config, multipart: true },
    schema: {
      tags,
      summary: 'Create a tag from a file (UBA Desk addition)',
      description: `multipart/form-data: name, file. The file: Excel (first sheet) or CSV (UTF-8), two columns xwho and value, at most ${MAX_FILE_BYTES / 1024 / 1024} MB (larger, or a third column with values: 400 naming file). A first row whose first cell is "xwho" (any case) is a header; rows with an empty cell are left out; a repeated xwho keeps its last row. Version 1 is computed before the answer {id, code, name, version, userNumber, matched, unmatched}; recalculate matches the kept rows again as a new version. ${TAGS_ABOUT}`,
      security: projectSecurity,
      querystring: { type: 'object', properties: loginUserQuery },
      body: fileTagBody,
      response: responses(fileTag, [400, 401, 415, 501, 503]),
    },
  }, async (request) => {
    const { fields, file } = await receiveSheet(request)
    return createFileTag(ctx, request.project, { name: fields.name, file }, request.operator)
  })

  app.get('/uba/api/tags', {
    config,
    schema: {
      tags,
      summary: 'List tags with their versions (UBA Desk addition)',
      description: `Every tag of the project in creation order, with its versions. ${TAGS_ABOUT}`,
      security: projectSecurity,
      response: responses({ type: 'array', items: tagRecord }, [401]),
    },
  }, async (request) => listTags(ctx, request.project))

  app.post<{ Params: { code: string } }>('/uba/api/tags/:code/recalculate', {
    config,
    schema: {
      tags,
      summary: 'Compute the next version of a tag (UBA Desk addition)',
      description: 'Answers {code, status: "calculating"}; the new version appears in GET /uba/api/tags when done. Unknown code: 400 naming code.',
      security: projectSecurity,
      params: tagCodeParams,
      querystring: { type: 'object', properties: loginUserQuery },
      response: responses({ type: 'object', properties: { code: { type: 'string' }, status: { type: 'string', enum: ['calculating'] } } }, [400, 401]),
    },
  }, async (request) => recalculateTag(ctx, request.project, request.params.code, request.operator))

  app.delete<{ Params: { code: string } }>('/uba/api/tags/:code', {
    config,
    schema: {
      tags,
      summary: 'Delete a tag and all its versions (UBA Desk addition)',
      description: 'Only the creator deletes, as for cohorts: without loginUser, tags the API created without loginUser; with loginUser, tags of that account (else 400 naming loginUser). Unknown code: 400 naming code.',
      security: projectSecurity,
      params: tagCodeParams,
      querystring: { type: 'object', properties: loginUserQuery },
      response: responses(successSchema, [400, 401, 501]),
    },
  }, async (request) => {
    await deleteTag(ctx, request.project, request.params.code, request.operator)
    return { success: 0 }
  })
}
