import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { DomainContext } from '../domain/context'
import { answerMalformedRequest, errorBody, installErrorHandling } from './errors'
import collectorRoutes from './routes/collector'
import { errorSchema } from './schemas/common'
import { collectorBodyRefusal } from './security'
import { validatorCompiler } from './validation'

/**
 * The optional second listener (`serve --collector-listen HOST:PORT`): /up alone, on an address
 * the user chooses (e.g. 0.0.0.0:8106, so that a phone on the LAN can send). Nothing else of the
 * API is served there: every other path is a 404. /up only writes, gated by each project's data
 * stream and allowed origins, so it needs neither the loopback Host check nor credentials.
 */
export async function buildCollectorServer(ctx: DomainContext, options: { logger?: FastifyBaseLogger; bodyLimit?: number }): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    bodyLimit: options.bodyLimit ?? 10 * 1024 * 1024,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    clientErrorHandler: answerMalformedRequest,
  })
  app.setValidatorCompiler(validatorCompiler)
  app.addSchema(errorSchema)
  installErrorHandling(app)
  app.addHook('onRequest', async (request, reply) => {
    const refusal = collectorBodyRefusal(request)
    if (refusal) return reply.status(refusal.status).send(errorBody(refusal))
  })
  app.addHook('onSend', async (request, reply) => {
    reply.header('X-Request-Id', request.id)
    reply.header('X-Content-Type-Options', 'nosniff')
    reply.header('Referrer-Policy', 'no-referrer')
  })
  await app.register(collectorRoutes, ctx)
  return app
}
