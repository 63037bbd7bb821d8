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
 */
export function installDoor(app: FastifyInstance, options: DoorOptions): void {
  const allowedHosts = (): Set<string> => {
    const port = options.port()
    return new Set(['127.0.0.1', 'localhost', '[::1]'].map((h) => `${h}:${port}`))
  }

  app.addHook('onRequest', async (request, reply) => {
    const hosts = allowedHosts()
    const host = (request.headers.host ?? '').toLowerCase()
    let refusal: AppError | null = null
    if (!hosts.has(host)) {
      refusal = new AppError(400, 400, 'the Host header must name this loopback server', ['Host'])
    } else {
      const origin = request.headers.origin
      const origins = new Set([...[...hosts].map((h) => `http://${h}`), ...options.extraOrigins])
      if (origin !== undefined && !origins.has(origin)) {
        refusal = new AppError(400, 400, 'requests from other web origins are not accepted', ['Origin'])
      } else if (request.headers['sec-fetch-site'] === 'cross-site') {
        refusal = new AppError(400, 400, 'cross-site requests are not accepted', ['Origin'])
      } else if (WRITE_METHODS.has(request.method) && hasBody(request)) {
        const type = mediaType(request)
        const multipart = request.routeOptions.config?.multipart === true
        if (type !== 'application/json' && !(multipart && type === 'multipart/form-data')) {
          refusal = new AppError(
            415,
            415,
            multipart ? 'this endpoint accepts application/json or multipart/form-data bodies' : 'this endpoint accepts application/json bodies only',
            ['Content-Type'],
          )
        }
      }
    }
    if (refusal) {
      request.log.warn({ host, origin: request.headers.origin }, refusal.message)
      return reply.status(refusal.status).send(errorBody(refusal))
    }
    // CORS is granted to the configured dev origins only (the renderer's dev server), never to '*'
    const origin = request.headers.origin
    if (origin !== undefined && options.extraOrigins.includes(origin)) {
      reply.header('Access-Control-Allow-Origin', origin).header('Vary', 'Origin')
      if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
        return reply
          .status(204)
          .header('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE')
          .header('Access-Control-Allow-Headers', 'Content-Type, xtoken, appKey, token')
          .header('Access-Control-Max-Age', '600')
          .send()
      }
    }
  })

  app.addHook('onSend', async (_request, reply) => {
    reply.header('X-Content-Type-Options', 'nosniff')
    reply.header('Referrer-Policy', 'no-referrer')
    reply.header('Cross-Origin-Resource-Policy', 'same-origin')
  })
}
