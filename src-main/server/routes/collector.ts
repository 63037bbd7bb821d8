import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { AppError } from '../../domain/errors'
import { collect } from '../../domain/ingest/collector'
import { logBusyRefusal } from '../../domain/ingest/busyRefusals'
import { decodeOffThread, DecodersBusy, uploadBytes } from '../../domain/ingest/decodePool'
import { peekUploadSender } from '../../domain/ingest/uploadPeek'
import { collectorOrigins } from '../../domain/platform/collectorOrigins'
import { collectorSchema } from './collectorSchema'

/** A transparent 1x1 GIF: what an image request expects back. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64')

const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value)

/**
 * The web origin of a browser request: its Origin, or for an image request (which sends none) its
 * Referer's origin; '' when a browser names neither; undefined for a request that is not a
 * browser's (no Fetch metadata): SDKs on servers and phones.
 */
function browserOrigin(request: FastifyRequest): string | undefined {
  const origin = header(request.headers.origin)
  if (origin !== undefined) return origin
  if (request.headers['sec-fetch-site'] === undefined) return undefined
  try {
    return new URL(header(request.headers.referer) ?? '').origin
  } catch {
    return ''
  }
}

const queryOf = (url: string): string => (url.includes('?') ? url.slice(url.indexOf('?') + 1) : '')

/**
 * The local collector at /up: what the SDKs send, by every transport they use. No project headers
 * (records carry `appid`); open to any web origin (write-only, gated by each project's data
 * stream and its allowed origins), with CORS and a cross-origin resource policy of its own.
 */
export default async function collectorRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  // SDKs send JSON, plain text or a form, sometimes gzipped: the bytes are decoded here, not by Fastify
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(['application/json', 'text/plain', 'application/x-www-form-urlencoded'], { parseAs: 'buffer' }, (_req, body, done) => done(null, body))

  app.addHook('onSend', async (request, reply) => {
    // a page elsewhere may send here and read the answer; the image and the beacon are not blocked
    reply.header('Cross-Origin-Resource-Policy', 'cross-origin')
    const origin = header(request.headers.origin)
    const refusedPreflight = request.method === 'OPTIONS' && reply.statusCode !== 204
    if (origin !== undefined && !refusedPreflight) reply.header('Access-Control-Allow-Origin', origin).header('Vary', 'Origin')
  })

  // a web SDK sending application/json asks first (CORS preflight); a project that narrows its
  // origins is asked by the `appid` in the address
  app.options('/up', { config: { auth: 'none', collector: true }, schema: { hide: true } }, async (request, reply) => {
    const origin = header(request.headers.origin)
    const appid = new URLSearchParams(queryOf(request.url)).get('appid')
    const allowed = appid ? collectorOrigins(ctx.meta, appid) : []
    if (origin !== undefined && allowed.length > 0 && !allowed.includes(origin)) {
      // no CORS grant: the browser does not send
      throw new AppError(400, 400, `project ${appid} does not accept uploads from the web origin ${origin}`, ['Origin'])
    }
    reply
      .header('Access-Control-Allow-Methods', 'GET, POST')
      .header('Access-Control-Allow-Headers', 'Content-Type, Content-Encoding')
      .header('Access-Control-Max-Age', '600')
    if (request.headers['access-control-request-private-network'] === 'true') reply.header('Access-Control-Allow-Private-Network', 'true')
    return reply.status(204).send()
  })

  const receive = async (request: FastifyRequest, reply: FastifyReply) => {
    const body = request.method === 'GET' ? null : Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
    const raw = { query: queryOf(request.url), body, contentEncoding: header(request.headers['content-encoding']) }
    const upload = await decodeOffThread(raw).catch((err: unknown) => {
      // refused before decoding: most SDKs drop the batch, so it is logged under whatever project its first kilobytes name
      if (err instanceof DecodersBusy) logBusyRefusal(ctx.meta, { ...peekUploadSender(raw), reason: 'decoders', records: 0, bytes: uploadBytes(raw) })
      throw err
    })
    const result = await collect(ctx, upload, { origin: browserOrigin(request), bytes: uploadBytes(raw) })
    // an image request wants an image back; a tool that asks for JSON gets the same answer as a POST
    if (request.method === 'GET' && !(request.headers.accept ?? '').includes('application/json')) {
      return reply.type('image/gif').header('Cache-Control', 'no-store').send(PIXEL)
    }
    return result
  }

  const config = { auth: 'none' as const, collector: true }
  app.post('/up', { config, schema: collectorSchema('POST') }, receive)
  // HEAD must not store anything: no automatic HEAD route
  app.get('/up', { config, exposeHeadRoute: false, schema: collectorSchema('GET') }, receive)
}
