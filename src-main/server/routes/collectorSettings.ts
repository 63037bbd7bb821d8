import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { setCollectorOrigins } from '../../domain/platform/collectorOrigins'
import { loginUserQuery, platformSecurity, responses } from '../schemas/common'

/** The collector's settings of a project (UBA Desk addition), beside the data stream switch. */
export default async function collectorSettingsRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  app.post<{ Params: { appKey: string }; Body: { allowedOrigins: string[] } }>('/uba/manage/enterprise/projects/:appKey/collector', {
    config: { auth: 'platform' },
    schema: {
      tags: ['platform'],
      summary: 'Set the web origins allowed to upload to the collector',
      description:
        'The web origins (scheme://host[:port], or "null" for pages opened from a file) whose pages may upload this project\'s records to the local collector (/up). An empty list, the default, lets any origin upload: the collector only writes, and only while the data stream is started. Requests that are not a browser\'s (server and phone SDKs) are never refused by this list. The list is shown as `collectorOrigins` in the project detail and list.',
      security: platformSecurity,
      params: { type: 'object', required: ['appKey'], properties: { appKey: { type: 'string', pattern: '^[A-Za-z0-9]{1,64}$' } } },
      querystring: { type: 'object', properties: loginUserQuery },
      body: {
        type: 'object',
        required: ['allowedOrigins'],
        additionalProperties: false,
        properties: { allowedOrigins: { type: 'array', items: { type: 'string', maxLength: 300 }, description: 'Empty: any origin.' } },
      },
      response: responses({ type: 'object', properties: { allowedOrigins: { type: 'array', items: { type: 'string' } } } }, [400, 401, 415]),
    },
  }, async (request) => ({ allowedOrigins: setCollectorOrigins(ctx, request.params.appKey, request.body.allowedOrigins, request.operator) }))
}
