import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import secureJson from 'secure-json-parse'
import type { DomainContext } from '../domain/context'
import { AppError } from '../domain/errors'
import { installAuth } from './auth'
import { installErrorHandling } from './errors'
import { installOpenApi } from './openapi'
import analysisRoutes from './routes/analysis'
import cohortRoutes from './routes/cohorts'
import collectorRoutes from './routes/collector'
import dashboardRoutes from './routes/dashboards'
import dimensionRoutes from './routes/dimensions'
import importRoutes from './routes/import'
import memberRoutes from './routes/members'
import metaRoutes from './routes/meta'
import peopleRoutes from './routes/people'
import platformRoutes from './routes/platform'
import projectRoutes from './routes/project'
import reportRoutes from './routes/reports'
import sampleRoutes from './routes/sample'
import schemaRoutes from './routes/schema'
import sqlRoutes from './routes/sql'
import systemRoutes from './routes/system'
import tagRoutes from './routes/tags'
import utmRoutes from './routes/utm'
import { installDoor } from './security'
import { validatorCompiler } from './validation'

export interface ServerOptions {
  /** Built web UI to serve at `/`, or null for none. */
  uiDir: string | null
  /** Browser origins besides the server's own that may call the API (a dev server). */
  extraOrigins?: string[]
  /** Where request logs go (a pino logger); none when omitted. */
  logger?: FastifyBaseLogger
  /** Largest JSON body accepted, in bytes. */
  bodyLimit?: number
}

/** Builds the Fastify app: transport only; every route calls one domain function. */
export async function buildServer(ctx: DomainContext, options: ServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    bodyLimit: options.bodyLimit ?? 10 * 1024 * 1024,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // a request the HTTP parser cannot read still gets the spec's body
    clientErrorHandler: (_err, socket) => {
      if (!socket.writable) return
      const body = JSON.stringify({ code: 400, msg: 'malformed HTTP request', data: null })
      socket.end(`HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
    },
  })
  app.setValidatorCompiler(validatorCompiler)

  // JSON only: no text/plain bodies; a body that does not parse is a 415 (it is not JSON)
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string
    if (text.trim() === '') return done(null, undefined)
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }))
    } catch {
      done(new AppError(415, 415, 'the request body is not valid JSON', ['body']), undefined)
    }
  })

  app.addHook('onSend', async (request, reply) => {
    reply.header('X-Request-Id', request.id)
  })

  installErrorHandling(app)
  installDoor(app, {
    port: () => {
      const address = app.server.address()
      return typeof address === 'object' && address ? address.port : 0
    },
    extraOrigins: options.extraOrigins ?? [],
  })
  installAuth(app, ctx)
  await installOpenApi(app, ctx.version)

  await app.register(systemRoutes, { version: ctx.version, uiDir: options.uiDir })
  await app.register(platformRoutes, ctx)
  await app.register(memberRoutes, ctx)
  await app.register(projectRoutes, ctx)
  await app.register(schemaRoutes, ctx)
  await app.register(metaRoutes, ctx)
  await app.register(dimensionRoutes, ctx)
  await app.register(importRoutes, ctx)
  await app.register(sampleRoutes, ctx)
  await app.register(collectorRoutes, ctx)
  await app.register(analysisRoutes, ctx)
  await app.register(reportRoutes, ctx)
  await app.register(dashboardRoutes, ctx)
  await app.register(utmRoutes, ctx)
  await app.register(cohortRoutes, ctx)
  await app.register(tagRoutes, ctx)
  await app.register(peopleRoutes, ctx)
  await app.register(sqlRoutes, ctx)
  return app
}
