import type { FastifyError, FastifyInstance } from 'fastify'
import FindMyWay from 'find-my-way'
import { AppError } from '../domain/errors'
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

/** Fastify's clientErrorHandler: a request the HTTP parser cannot read still gets the spec's body. */
export function answerMalformedRequest(_err: Error, socket: { writable: boolean; end(text: string): unknown }): void {
  if (!socket.writable) return
  const body = JSON.stringify({ code: 400, msg: 'malformed HTTP request', data: null })
  socket.end(`HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
}

/** Fastify's own errors, mapped to the spec's statuses. */
function fromFastify(err: FastifyError): AppError | null {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError(415, 415, 'this endpoint accepts application/json bodies only', ['Content-Type'])
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(400, 400, 'the request body is too large', ['body'])
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError(400, 400, 'the request body is empty', ['body'])
    default:
      return null
  }
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
  })

  app.setErrorHandler((error: FastifyError, request, reply) => {
    let appError: AppError | null = null
    if (error instanceof AppError) appError = error
    else if (error.validation) {
      const { msg, params } = describeValidation(error.validation as never, error.validationContext)
      appError = new AppError(400, 400, msg, params)
    } else appError = fromFastify(error)

    if (!appError) {
      request.log.error({ err: error }, 'unexpected error')
      appError = new AppError(500, 500, 'internal server error')
    } else if (appError.status >= 500) {
      request.log.warn({ code: appError.code }, appError.message)
    }
    reply.status(appError.status).send(errorBody(appError))
  })

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]
    const methods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']
    const elsewhere = methods.some((m) => m !== request.method && known.find(m as never, path))
    const err = elsewhere
      ? new AppError(400, 400, `method ${request.method} is not supported on ${path}`, ['method'])
      : new AppError(404, 404, `no endpoint ${path}`, null)
    reply.status(err.status).send(errorBody(err))
  })
}
