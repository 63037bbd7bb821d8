import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { SAMPLE_LIMITS, startSampleJob, type SampleRequest } from '../../domain/ingest/sample'
import { loginUserQuery, projectSecurity, responses } from '../schemas/common'
import { jobSchema } from '../schemas/import'

const { users, days, seed } = SAMPLE_LIMITS

/** Sample data (a UBA Desk addition): a made-up e-commerce app, loaded as an import job. */
export default async function sampleRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  app.post<{ Body: SampleRequest | undefined }>('/uba/api/import/sample', {
    config: { auth: 'project' },
    schema: {
      tags: ['import'],
      summary: 'Load sample data into an empty project',
      description: `Queues a job that generates a realistic e-commerce app and answers at once with the job; follow it with GET /uba/api/import/jobs/{id}, cancel it with DELETE.
The sample: \`users\` users arriving over the \`days\` days that end on \`endDate\` (default yesterday in the project's time zone), on iOS, Android and the web, from 20 cities and 9 acquisition channels; sessions with a daily rhythm and a retention that decays; the events $startup / $pageview, sign_up, search, view_product, add_to_cart, checkout, pay and $end, where conversion depends on platform, channel and price; repeat purchases; one profile per user (preset and custom properties, orders and spending consistent with the pay events); a \`products\` dimension table (relation product_id, kept if one exists); and a tracking plan with display names for all of it.
Deterministic: the same users, days, seed and endDate give the same data. Written in one transaction: a failed or cancelled job leaves nothing.
The job's phases: \`reading\` while users, sessions and orders are drawn, \`checking\` while the events are written (the long part), \`writing\` for the profiles, the plan and the products table.
Only into an empty project: a project that holds events or user profiles is a 400 naming \`project\` (create a new project for the sample), so made-up data never mixes with real data.`,
      security: projectSecurity,
      querystring: { type: 'object', properties: loginUserQuery },
      body: {
        type: ['object', 'null'],
        additionalProperties: false,
        properties: {
          users: { type: 'integer', minimum: users.min, maximum: users.max, default: users.default, description: 'Number of users.' },
          days: { type: 'integer', minimum: days.min, maximum: days.max, default: days.default, description: 'Length of the window in days.' },
          seed: { type: 'integer', minimum: seed.min, maximum: seed.max, default: seed.default, description: 'Another seed gives other (equally realistic) data.' },
          endDate: {
            type: 'string',
            pattern: '^\\d{4}-\\d{2}-\\d{2}$',
            'x-rule': 'a date written yyyy-MM-dd',
            description: 'Last day of the window, yesterday or earlier; default yesterday in the project time zone.',
          },
        },
      },
      response: responses(jobSchema, [400, 401, 415, 503]),
    },
  }, async (request) => startSampleJob(ctx, request.project, request.body ?? {}, request.operator))
}
