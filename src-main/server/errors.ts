import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import FindMyWay from 'find-my-way'
import { AppError } from '../domain/errors'
import { warehouseRefusal } from '../warehouse/errors'
import { errorDescriptions, errorRef } from './schemas/common'
import { describeValidation } from './validation'

/** The body of every non-200 answer (spec part 7). */
export interface ErrorBody {
  code: number
  msg: string
  data: unknown
}

export function errorBody(err: AppError): ErrorBody {
  return { code: err.code, msg: err.message, data: err.data }
}

/**
 * Fastify's clientErrorHandler: a request the HTTP parser cannot read still gets the spec's body.
 * Node reads at most 16 KB of request line and headers: past that, most often a very long query string.
 */
export function answerMalformedRequest(err: Error & { code?: string }, socket: { writable: boolean; end(text: string): unknown }): void {
  if (!socket.writable) return
  const body = JSON.stringify(err.code === 'HPE_HEADER_OVERFLOW'
    ? { code: 400, msg: 'the request line and headers are larger than 16 KB: send long values in a JSON body', data: ['headers'] }
    : { code: 400, msg: 'malformed HTTP request', data: null })
  socket.end(`HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
}

/** Longest path parameter accepted (an id, a user id, a code); a longer one is a 414. */
export const MAX_PARAM_CHARS = 100

/** A path parameter over MAX_PARAM_CHARS: 414, naming it. */
export function paramTooLong(name: string): AppError {
  return new AppError(414, 414, `${name} is longer than ${MAX_PARAM_CHARS} characters`, [name])
}

/**
 * Fastify's and its plugins' own errors, mapped to the spec's statuses. A plugin's refusal (the
 * static files' 403 for a path that leaves their folder) is a 404: nothing is served there.
 */
function fromFastify(err: FastifyError, path: string): AppError | null {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError(415, 415, 'this endpoint accepts application/json bodies only', ['Content-Type'])
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(400, 400, 'the request body is too large', ['body'])
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError(400, 400, 'the request body is empty', ['body'])
    case 'FST_ERR_BAD_URL':
      return new AppError(400, 400, 'the path is not a valid URL (a bad %-escape)', ['path'])
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError(414, 414, 'a path parameter is too long', ['path'])
  }
  const status = err.statusCode ?? (err as { status?: number }).status
  if (status === 403 || status === 404) return new AppError(404, 404, `no endpoint ${path}`, null)
  if (status === 413) return new AppError(400, 400, 'the request body is too large', ['body'])
  if (status !== undefined && status >= 400 && status < 500) return new AppError(400, 400, `the request cannot be read: ${err.message}`, ['body'])
  return null
}

/** The path of a request, without its query. */
function pathOf(url: string): string {
  return url.split('?')[0]
}

/** Fastify's answers given before any route runs (a bad %-escape, an over-long parameter), as the spec's body. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const appError = fromFastify(error, pathOf(request.url)) ?? new AppError(400, 400, 'the request cannot be read', ['path'])
  reply.status(appError.status).send(errorBody(appError))
}

const WRITES = ['POST', 'PUT', 'PATCH', 'DELETE']

/**
 * What the transport itself can answer on a route, whatever the route does, so that its
 * documentation lists it: 400 (the door: Host, Origin; a bad %-escape), 415 on a write with a
 * body that is not JSON (the door), 414 where a path parameter can be too long.
 */
function transportAnswers(methods: string[], url: string): Record<string, object> {
  const out: Record<string, object> = { 400: { ...errorRef, description: errorDescriptions[400] } }
  if (methods.some((m) => WRITES.includes(m))) out[415] = { ...errorRef, description: errorDescriptions[415] }
  if (/\/:/.test(url)) out[414] = { ...errorRef, description: `A path parameter is longer than ${MAX_PARAM_CHARS} characters.` }
  return out
}

/**
 * Installs the error handler (typed errors and validation -> `{code, msg, data}`, anything else ->
 * a logged 500 that says nothing of internals) and the not-found handler, which answers 400 when
 * the path exists under another method (spec part 7, from 4.5.1) and 404 otherwise.
 */
export function installErrorHandling(app: FastifyInstance): void {
  const known = FindMyWay({ ignoreTrailingSlash: true })
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    for (const method of methods) {
      if (!known.hasRoute(method as never, route.url)) known.on(method as never, route.url, () => {})
    }
    const response = route.schema?.response as Record<string, object> | undefined
    if (response) route.schema = { ...route.schema, response: { ...transportAnswers(methods, route.url), ...response } }
  })

  // Path parameters are checked after the door and the credentials (onRequest), like any input;
  // the router itself accepts long ones (maxParamLength) so that its bare 414 never answers first.
  app.addHook('preValidation', async (request) => {
    const params = (request.params ?? {}) as Record<string, unknown>
    for (const [name, value] of Object.entries(params)) {
      if (name !== '*' && typeof value === 'string' && value.length > MAX_PARAM_CHARS) throw paramTooLong(name)
    }
  })

  app.setErrorHandler((error: FastifyError, request, reply) => {
    let appError: AppError | null = null
    if (error instanceof AppError) appError = error
    else if (error.validation) {
      const { msg, params } = describeValidation(error.validation as never, error.validationContext)
      appError = new AppError(400, 400, msg, params)
    } else appError = fromFastify(error, pathOf(request.url))

    const refused = appError ? null : warehouseRefusal(error)
    if (refused) {
      request.log.warn({ err: error }, 'ClickHouse refused a statement')
      appError = refused
    }
    if (!appError) {
      request.log.error({ err: error }, 'unexpected error')
      appError = new AppError(500, 500, 'internal server error')
    } else if (appError.status >= 500) {
      request.log.warn({ code: appError.code }, appError.message)
    }
    reply.status(appError.status).send(errorBody(appError))
  })

  app.setNotFoundHandler((request, reply) => {
    const path = pathOf(request.url)
    const methods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']
    // a route of this method that found nothing (a static file) is a 404, not a wrong method
    const elsewhere = !known.find(request.method as never, path) && methods.some((m) => m !== request.method && known.find(m as never, path))
    const err = elsewhere
      ? new AppError(400, 400, `method ${request.method} is not supported on ${path}`, ['method'])
      : new AppError(404, 404, `no endpoint ${path}`, null)
    reply.status(err.status).send(errorBody(err))
  })
}
