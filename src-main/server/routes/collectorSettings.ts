import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { AppError } from '../../domain/errors'
import { setCollectorOrigins } from '../../domain/platform/collectorOrigins'
import { recordOperation } from '../../domain/project/operations'
import { setSetting } from '../../domain/platform/settings'
import type { CollectorListener } from '../collectorListener'
import { exact, loginUserQuery, platformSecurity, responses } from '../schemas/common'

const listenerState = exact({
  type: 'object',
  properties: {
    listening: { type: 'boolean' },
    host: { type: ['string', 'null'], description: 'The address listened on; 0.0.0.0 is every interface.' },
    port: { type: ['integer', 'null'] },
    urls: { type: 'array', items: { type: 'string' }, description: 'The /up addresses to put into an SDK (one per network interface for 0.0.0.0).' },
  },
} as const)

/**
 * The collector's settings (UBA Desk additions): a project's allowed web origins, beside its data
 * stream switch, and the platform's second listener serving /up alone (for phones on the LAN).
 */
export default async function collectorSettingsRoutes(app: FastifyInstance, { ctx, listener }: { ctx: DomainContext; listener?: CollectorListener }): Promise<void> {
  const noListener = () => new AppError(400, 400, 'this server cannot open a collector listener', ['listen'])

  app.get('/uba/manage/enterprise/collector', {
    config: { auth: 'platform' },
    schema: {
      tags: ['platform'],
      summary: 'The collector listener',
      description: 'Whether the second listener serving the local collector (/up) alone is on, where, and the addresses to put into an SDK.',
      security: platformSecurity,
      response: responses(listenerState, [401]),
    },
  }, async () => listener?.state() ?? { listening: false, host: null, port: null, urls: [] })

  app.post<{ Body: { listen: boolean; host?: string; port?: number } }>('/uba/manage/enterprise/collector', {
    config: { auth: 'platform' },
    schema: {
      tags: ['platform'],
      summary: 'Switch the collector listener on or off',
      description:
        'On: listens on `host` (default 0.0.0.0, every network interface, so that phones on the LAN can send; 127.0.0.1 serves this machine and its emulators only) and `port` (default 8106; 0 picks a free one), serving /up and its preflight alone: every other path there is a 404. Off: stops it. The choice is kept and applies again at the next start (`serve --collector-listen` overrides it). 400 naming port or host when the address cannot be listened on.',
      security: platformSecurity,
      querystring: { type: 'object', properties: loginUserQuery },
      body: {
        type: 'object',
        required: ['listen'],
        additionalProperties: false,
        properties: {
          listen: { type: 'boolean' },
          host: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[0-9A-Za-z.:-]+$', 'x-rule': 'an IP address or host name of this machine' },
          port: { type: 'integer', minimum: 0, maximum: 65535 },
        },
      },
      response: responses(listenerState, [400, 401, 415]),
    },
  }, async (request) => {
    if (!listener) throw noListener()
    const { listen, host = '0.0.0.0', port = 8106 } = request.body
    const state = listen ? await listener.start(host, port) : await listener.stop()
    // kept with the port actually listened on, so that port 0 does not move at every start
    setSetting(ctx.meta, 'collector.listen', state.listening ? `${state.host!.includes(':') ? `[${state.host}]` : state.host}:${state.port}` : '')
    recordOperation(ctx.meta, request.operator, listen ? 'collector.listen' : 'collector.close', null, state.listening ? `${state.host}:${state.port}` : null)
    return state
  })

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
