import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { collect, decodeUpload } from '../../domain/ingest/collector'

/**
 * The local collector at /up: what the SDKs send. No project headers (records carry `appid`); open
 * to apps under test on this machine, including web apps served from another loopback port.
 */
export default async function collectorRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  // SDKs send the body as JSON, plain text or a form field; it is decoded here, not by Fastify
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser(['application/json', 'text/plain', 'application/x-www-form-urlencoded'], { parseAs: 'string' }, (_req, body, done) => done(null, body))

  // a web SDK sending application/json asks first (CORS preflight); the door answers it
  app.options('/up', { config: { auth: 'none', collector: true }, schema: { hide: true } }, async (_request, reply) => reply.status(204).send())

  app.post('/up', {
    config: { auth: 'none', collector: true },
    schema: {
      tags: ['collector'],
      summary: 'Receive SDK uploads (local collector)',
      description: `What the SDKs upload: a JSON array of records ({appid, xwho, xwhat, xwhen, xcontext}), or that JSON gzipped and then base64-encoded (also as a form field \`data\`). Each record goes to the project its \`appid\` names, and is stored only while that project's data stream is started (stream 2); otherwise the whole upload is refused with 503 so that the SDK keeps it and retries. Records are checked like an import: a record that does not fit is left out (counted in \`rejected\`, with reasons in \`problems\`) and does not block the others. \`$debug\` 1 records are checked and not stored. Identities: \`$alias\` (xwho = the login id, \`$original_id\` = the anonymous id) makes both ids one user, one distinct_id, for their events before and after it, in every analysis, cohort and people view; xwho stays as sent. An anonymous id merges into one login id (a later alias of it to another user is ignored: the first wins); a login id that anonymous ids were merged into is never merged as an anonymous id; an \`$original_id\` equal to xwho, or ids already of one user, change nothing. An ignored alias is stored as an event and listed in \`problems\` (property \`$original_id\`), counted in \`aliasesIgnored\`. Answers {"code": 200, ...}.`,
      body: { content: { 'application/json': { schema: { description: 'JSON array of records.' } }, 'text/plain': { schema: { type: 'string' } } } },
      response: {
        200: {
          type: 'object',
          properties: {
            code: { type: 'integer', enum: [200] },
            received: { type: 'integer' },
            stored: { type: 'integer', description: 'Events written plus profile rows changed.' },
            rejected: { type: 'integer' },
            debug: { type: 'integer', description: '$debug 1 records: checked, not stored.' },
            aliasesMerged: { type: 'integer', description: 'Present when the upload held $alias records: those that merged an anonymous id into a login id.' },
            aliasesIgnored: { type: 'integer', description: 'Present when the upload held $alias records: those stored but ignored by the merge rules (reasons in problems).' },
            problems: {
              type: 'array',
              items: { type: 'object', properties: { row: { type: 'integer' }, property: { type: 'string' }, value: { type: ['string', 'null'] }, reason: { type: 'string' } } },
            },
          },
        },
        400: { $ref: 'Error#' },
        503: { $ref: 'Error#' },
      },
    },
  }, async (request) => collect(ctx, decodeUpload(typeof request.body === 'string' ? request.body : '')))
}
