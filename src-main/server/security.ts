import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '../domain/errors'
import { errorBody } from './errors'

export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '::1'] as const

export function isLoopbackHost(host: string): boolean {
  return (LOOPBACK_HOSTS as readonly string[]).includes(host)
}

export interface DoorOptions {
  /** The port actually listened on (known once listening). */
  port: () => number
  /** Extra browser origins allowed to call the API (the renderer's dev server). */
  extraOrigins: string[]
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
const COLLECTOR_TYPES = new Set(['application/json', 'text/plain', 'application/x-www-form-urlencoded'])

/** The collector's bodies: JSON, plain text or a form, as the SDKs send them. */
export function collectorBodyRefusal(request: FastifyRequest): AppError | null {
  if (!WRITE_METHODS.has(request.method) || !hasBody(request) || COLLECTOR_TYPES.has(mediaType(request))) return null
  return new AppError(415, 415, 'the collector accepts application/json, text/plain or application/x-www-form-urlencoded bodies', ['Content-Type'])
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length']
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined
}

function mediaType(request: FastifyRequest): string {
  return (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
}

/**
 * The localhost door is a security boundary:
 * - the Host header must name a loopback address with our port (defeats DNS rebinding);
 * - a browser request must come from the app's own origin (no CORS is ever granted);
 * - a write with a body must be application/json (or multipart where a route allows it), so a
 *   page elsewhere cannot reach the API with a "simple" cross-site form post.
 * The collector (/up) alone takes browser requests from any web origin: it only writes, gated by
 * each project's data stream and allowed origins, and answers its own CORS (routes/collector).
 */
export function installDoor(app: FastifyInstance, options: DoorOptions): void {
  const allowedHosts = (): Set<string> => {
    const port = options.port()
    return new Set(['127.0.0.1', 'localhost', '[::1]'].map((h) => `${h}:${port}`))
  }

  /** May a browser on `origin` call the API? Its own origin, or a dev origin. */
  const originAllowed = (origin: string, hosts: Set<string>): boolean => [...hosts].some((h) => origin === `http://${h}`) || options.extraOrigins.includes(origin)

  const refusalOf = (request: FastifyRequest): AppError | null => {
    const hosts = allowedHosts()
    if (!hosts.has((request.headers.host ?? '').toLowerCase())) {
      return new AppError(400, 400, 'the Host header must name this loopback server', ['Host'])
    }
    const config = request.routeOptions.config
    const collector = config?.collector === true
    const origin = request.headers.origin
    if (origin !== undefined && !collector && !originAllowed(origin, hosts)) {
      return new AppError(400, 400, 'requests from other web origins are not accepted', ['Origin'])
    }
    if (request.headers['sec-fetch-site'] === 'cross-site' && !collector) {
      return new AppError(400, 400, 'cross-site requests are not accepted', ['Origin'])
    }
    if (collector) return collectorBodyRefusal(request)
    if (WRITE_METHODS.has(request.method) && hasBody(request)) {
      const type = mediaType(request)
      const multipart = config?.multipart === true
      const accepted = type === 'application/json' || (multipart && type === 'multipart/form-data')
      if (!accepted) {
        const what = multipart ? 'application/json or multipart/form-data bodies' : 'application/json bodies only'
        return new AppError(415, 415, `this endpoint accepts ${what}`, ['Content-Type'])
      }
    }
    return null
  }

  app.addHook('onRequest', async (request, reply) => {
    const refusal = refusalOf(request)
    if (refusal) {
      request.log.warn({ host: request.headers.host, origin: request.headers.origin }, refusal.message)
      return reply.status(refusal.status).send(errorBody(refusal))
    }
    // CORS only for the dev origins, never '*'; the collector answers its own
    const origin = request.headers.origin
    if (request.routeOptions.config?.collector === true) return
    if (origin === undefined || [...allowedHosts()].some((h) => origin === `http://${h}`)) return
    reply.header('Access-Control-Allow-Origin', origin).header('Vary', 'Origin')
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
      return reply
        .status(204)
        .header('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE')
        .header('Access-Control-Allow-Headers', 'Content-Type, xtoken, appKey, token')
        .header('Access-Control-Max-Age', '600')
        .send()
    }
  })

  app.addHook('onSend', async (_request, reply) => {
    reply.header('X-Content-Type-Options', 'nosniff')
    reply.header('Referrer-Policy', 'no-referrer')
    reply.header('Cross-Origin-Resource-Policy', 'same-origin')
  })
}
