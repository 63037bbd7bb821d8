import { randomUUID } from 'node:crypto'
import { resolve } from 'node:path'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import secureJson from 'secure-json-parse'
import type { DomainContext } from '../domain/context'
import { AppError } from '../domain/errors'
import { installAuth } from './auth'
import { answerMalformedRequest, frameworkErrors, installErrorHandling } from './errors'
import { installOpenApi } from './openapi'
import analysisRoutes from './routes/analysis'
import analysisRunRoutes from './routes/analysisRuns'
import cellUserRoutes from './routes/cellUsers'
import cohortRoutes from './routes/cohorts'
import collectorRoutes from './routes/collector'
import collectorSettingsRoutes from './routes/collectorSettings'
import dashboardRoutes from './routes/dashboards'
import dimensionRoutes from './routes/dimensions'
import importRoutes from './routes/import'
import ingestProblemRoutes from './routes/ingestProblems'
import memberRoutes from './routes/members'
import metaRoutes from './routes/meta'
import peopleRoutes from './routes/people'
import platformRoutes from './routes/platform'
import projectRoutes from './routes/project'
import reportRoutes from './routes/reports'
import sampleRoutes from './routes/sample'
import settingsRoutes from './routes/settings'
import schemaRoutes from './routes/schema'
import sqlRoutes from './routes/sql'
import systemRoutes from './routes/system'
import tagRoutes from './routes/tags'
import utmRoutes from './routes/utm'
import type { CollectorListener } from './collectorListener'
import { installDoor } from './security'
import { validatorCompiler } from './validation'
import { installTolerance } from './tolerance'

export interface ServerOptions {
  /** Built web UI to serve at `/`, or null for none. */
  uiDir: string | null
  /** Browser origins besides the server's own that may call the API (a dev server). */
  extraOrigins?: string[]
  /** Where request logs go (a pino logger); none when omitted. */
  logger?: FastifyBaseLogger
  /** Largest JSON body accepted, in bytes. */
  bodyLimit?: number
  /** The collector's own listener, switched from Settings (none: the switch answers 400). */
  collectorListener?: CollectorListener
}

/** Builds the Fastify app: transport only; every route calls one domain function. */
export async function buildServer(ctx: DomainContext, options: ServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    bodyLimit: options.bodyLimit ?? 10 * 1024 * 1024,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    // long path parameters reach the route layer, which answers 414 after the door and auth; past
    // Node's 16 KB of request line and headers the parser refuses first, so the router never does
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 65_536 },
    frameworkErrors,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    clientErrorHandler: answerMalformedRequest,
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

  // a POST with no bytes under another type (curl -d '' sends a form type) is a bare POST; any other body is refused
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    if ((body as string) === '') return done(null, undefined)
    done(new AppError(415, 415, 'this endpoint accepts application/json bodies only', ['Content-Type']), undefined)
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
  installTolerance(app)
  await installOpenApi(app, ctx.version)

  await app.register(systemRoutes, { version: ctx.version, uiDir: options.uiDir, dataDir: resolve(ctx.dataDir) })
  await app.register(platformRoutes, ctx)
  await app.register(settingsRoutes, ctx)
  await app.register(memberRoutes, ctx)
  await app.register(projectRoutes, ctx)
  await app.register(schemaRoutes, ctx)
  await app.register(metaRoutes, ctx)
  await app.register(dimensionRoutes, ctx)
  await app.register(importRoutes, ctx)
  await app.register(sampleRoutes, ctx)
  await app.register(collectorRoutes, ctx)
  await app.register(ingestProblemRoutes, ctx)
  await app.register(collectorSettingsRoutes, { ctx, listener: options.collectorListener })
  await app.register(analysisRoutes, ctx)
  await app.register(analysisRunRoutes, ctx)
  await app.register(cellUserRoutes, ctx)
  await app.register(reportRoutes, ctx)
  await app.register(dashboardRoutes, ctx)
  await app.register(utmRoutes, ctx)
  await app.register(cohortRoutes, ctx)
  await app.register(tagRoutes, ctx)
  await app.register(peopleRoutes, ctx)
  await app.register(sqlRoutes, ctx)
  return app
}
