import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { projectOverview } from '../../domain/platform/overview'
import { exact, projectSecurity, responses } from '../schemas/common'

/** The authenticated project itself (UBA Desk additions). */
export default async function projectRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  app.get('/uba/api/project', {
    config: { auth: 'project' },
    schema: {
      tags: ['project'],
      summary: 'Overview of the authenticated project',
      description: 'Name, time zone, stream state, and what the warehouse holds: event and user counts and the first and last day with events (yyyy-MM-dd in the project time zone, null when empty). 503 when the project database cannot be opened.',
      security: projectSecurity,
      response: responses(exact({
        type: 'object',
        properties: {
          appKey: { type: 'string' },
          name: { type: 'string' },
          timeZone: { type: 'string' },
          stream: { type: 'integer', enum: [0, 1, 2, 3, 5], description: 'Data stream: 0 not started, 1 starting, 2 started, 3 interrupted, 5 closing.' },
          events: { type: 'integer' },
          users: { type: 'integer' },
          firstDay: { type: ['string', 'null'] },
          lastDay: { type: ['string', 'null'] },
        },
      }), [401, 503]),
    },
  }, async (request) => projectOverview(ctx, request.project))
}
