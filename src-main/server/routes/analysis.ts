import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { eventAnalysis } from '../../domain/analysis/events'
import { runAnalysis, type AnalysisModule } from '../../domain/analysis/runner'
import { projectSecurity, responses } from '../schemas/common'
import { analysisResponses } from '../schemas/analysis'

const COMMON = `Common rules: fromDate and toDate (yyyy-MM-dd) are inclusive calendar days in the project's time zone; periods (unit DAY, WEEK starting Monday, MONTH) are named by their first day. crowds is ["$ALL"] or cohort codes. samplingFactor (0, 1] samples users by a stable hash of their id (1 = all data; the response repeats it). useCache true serves a result computed at the project's current data version (reportUpdateTime says when). Query explain=true adds \`sql\`: the statements that ran, with their bound values. Every bad field is a 400 naming it.`

interface Route {
  path: string
  module: AnalysisModule<unknown, object>
  summary: string
  description: string
}

/** Analysis endpoints (spec 4.10): one route per analysis module, all run the same way. */
export default async function analysisRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  const routes: Route[] = [
    {
      path: '/uba/api/events/analyze',
      module: eventAnalysis as AnalysisModule<unknown, object>,
      summary: 'Event analysis',
      description: `Measures per period and over the whole range (\`sum\`), optionally broken down by byFields. Event aggregators: TRIGGER_USER_COUNT (distinct users), TOTAL_COUNT (events), AVG_COUNT (events per acting user). Property aggregators: REMOVE_DUMPLICATE (distinct values, any type), SUM, AVG, MAX, MIN, AVG_PER (sum per acting user) on number properties. \`sum\` counts distinct users over the whole range, not a sum of periods. Number breakdowns with buckets [600, 800] give "-∞~600", "600~800", "800~+∞" (lower bound included); a missing value is "unknown"; an array<string> property breaks down by element. limit keeps the rows with the largest first-measure sum; numRows counts all. Measure names are "<event display name> · <aggregator>".`,
    },
  ]
  for (const route of routes) {
    app.post<{ Querystring: { explain?: boolean } }>(route.path, {
      config: { auth: 'project' },
      schema: {
        tags: ['analysis'],
        summary: route.summary,
        description: `${route.description}\n\n${COMMON}`,
        security: projectSecurity,
        querystring: { type: 'object', properties: { explain: { type: 'boolean', default: false } } },
        body: { type: 'object', description: 'See spec 4.10.' },
        response: responses(analysisResponses[route.module.kind], [400, 401, 415, 503]),
      },
    }, async (request) => runAnalysis(ctx, request.project, route.module, request.body as Record<string, unknown>, { explain: request.query.explain === true }))
  }
}
