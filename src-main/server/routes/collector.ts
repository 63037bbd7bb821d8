import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { collect, decodeUpload } from '../../domain/ingest/collector'

/**
 * The local collector at /up: what the SDKs send. No project headers (records carry `appid`); open
 * to apps under test on this machine, including web apps served from another loopback port.
 */
const rejection = { type: 'object', properties: { row: { type: 'integer', description: "The record's position in the upload, from 1." }, property: { type: 'string' }, value: { type: ['string', 'null'] }, reason: { type: 'string' } } }

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
      description: `What the SDKs upload: a JSON array of records ({appid, xwho, xwhat, xwhen, xcontext}), or that JSON gzipped and then base64-encoded (also as a form field \`data\`). Each record goes to the project its \`appid\` names, and is stored only while that project's data stream is started (stream 2); otherwise the whole upload is refused with 503 so that the SDK keeps it and retries. Only a record without a usable \`appid\`, \`xwho\`, \`xwhat\` or \`xwhen\` is refused (counted in \`rejected\`, with reasons in \`problems\`); a value that does not fit its property's type is left out of its record, which is stored (counted in \`valuesDropped\`, with reasons in \`dropped\`); an xcontext that is not an object, or a key that cannot be a property id, is left out the same way, and a record with more than 300 properties is stored whole (the SDKs keep that limit). Preset \`$\` properties (\`$lib\`, \`$is_login\`...) in \`$profile_increment\` and \`$profile_append\` records are not applied where the operation cannot apply (increment: numbers, append: arrays), and are no problem. Everything refused or left out, and every upload refused while the stream is stopped, is kept in the project's data quality log (GET /uba/api/ingest/problems). \`$debug\` 1 records are checked and not stored. Answers {"code": 200, ...}.`,
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
            problems: { type: 'array', description: 'The first 20 records refused, with reasons.', items: rejection },
            valuesDropped: { type: 'integer', description: 'Values left out of stored records because they do not fit their property.' },
            dropped: { type: 'array', description: 'The first 20 values left out, with reasons.', items: rejection },
          },
        },
        400: { $ref: 'Error#' },
        503: { $ref: 'Error#' },
      },
    },
  }, async (request) => collect(ctx, decodeUpload(typeof request.body === 'string' ? request.body : '')))
}
