import type { FastifyInstance } from 'fastify'
import type { DomainContext, Operator } from '../domain/context'
import { AppError } from '../domain/errors'
import { resolveOperator } from '../domain/platform/accounts'
import { authenticateProject } from '../domain/platform/projects'
import type { ProjectScope } from '../domain/project/scope'
import { sameSecret } from '../domain/platform/secrets'
import { platformToken } from '../domain/platform/settings'
import { errorBody } from './errors'

/** Which credentials a route needs (spec part 5). */
export type AuthKind = 'project' | 'platform' | 'none'

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthKind
    /** The route takes multipart/form-data bodies too. */
    multipart?: boolean
    /** The SDK collector: plain-text bodies, and browser origins on any loopback port. */
    collector?: boolean
    /** The body schema /openapi.json publishes where the domain checks the body itself (the analyses). */
    documentedBody?: object
    /** The 200 answer /openapi.json publishes where the serializer's schema is left open to keep the key order the domain built (listed users). */
    documentedAnswer?: object
  }
  interface FastifyRequest {
    /** The project the project credentials opened (project routes only). */
    project: ProjectScope
    /** The account named by `loginUser`, or null when the API acts by itself. */
    operator: Operator | null
  }
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/**
 * The one place where access is checked. Project routes need the headers `appKey` and `token`
 * of one project, which they then reach alone; platform routes need `xtoken`. Every route says
 * which it needs in `config.auth`; a route that says nothing is refused, so none is open by mistake.
 */
export function installAuth(app: FastifyInstance, ctx: DomainContext): void {
  // the reference UI's own routes are documentation, open like /openapi.json
  app.addHook('onRoute', (route) => {
    if (route.url === '/docs' || route.url.startsWith('/docs/')) route.config = { ...route.config, auth: 'none' }
  })
  app.decorateRequest('project', null as unknown as ProjectScope)
  app.decorateRequest('operator', null)

  app.addHook('onRequest', async (request, reply) => {
    if (request.is404) return
    const kind = request.routeOptions.config?.auth
    if (kind === 'none') return
    let ok = false
    if (kind === 'platform') {
      ok = sameSecret(header(request.headers.xtoken), platformToken(ctx.meta))
    } else if (kind === 'project') {
      const scope = authenticateProject(ctx, header(request.headers.appkey), header(request.headers.token))
      if (scope) {
        request.project = scope
        ok = true
      }
    }
    if (!ok) {
      const err = new AppError(401, 401, kind === 'platform' ? 'missing or wrong xtoken' : 'missing or wrong token or appKey')
      return reply.status(401).send(errorBody(err))
    }
  })

  // loginUser names the operator (part 1 rule 3) wherever it is given
  app.addHook('preHandler', async (request) => {
    const query = request.query as Record<string, unknown> | undefined
    const loginUser = query?.loginUser
    if (loginUser === undefined) return
    request.operator = resolveOperator(ctx, String(loginUser))
  })
}
