import { existsSync } from 'node:fs'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import { responses } from '../schemas/common'

/** The content security policy of the web UI: nothing but this server, no inline scripts. */
export const UI_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

/** Health, and the built web UI as static files; neither needs credentials. */
export default async function systemRoutes(app: FastifyInstance, opts: { version: string; uiDir: string | null; dataDir: string }): Promise<void> {
  // everything this plugin serves is open: health and the UI's static files
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, auth: 'none' }
  })
  const startedAt = Date.now()
  app.get('/health', {
    config: { auth: 'none' },
    schema: {
      tags: ['system'],
      summary: 'Health',
      description: 'Whether the server is up, and which data folder it serves (`dataDir`): a server starting on a folder whose server.json names a live process asks that URL, and refuses to start only when the answer names the same folder.',
      response: responses({
        type: 'object',
        properties: {
          status: { type: 'string', enum: ['ok'] },
          version: { type: 'string' },
          uptimeSeconds: { type: 'number' },
          dataDir: { type: 'string', description: 'Absolute path of the data folder this server serves.' },
        },
      }, []),
    },
  }, async () => ({ status: 'ok', version: opts.version, uptimeSeconds: (Date.now() - startedAt) / 1000, dataDir: opts.dataDir }))

  if (opts.uiDir && existsSync(opts.uiDir)) {
    await app.register(fastifyStatic, {
      root: opts.uiDir,
      prefix: '/',
      index: ['index.html'],
      wildcard: false,
      dotfiles: 'ignore',
      setHeaders: (reply) => reply.header('Content-Security-Policy', UI_CSP),
    })
  } else {
    app.get('/', { config: { auth: 'none' }, schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/html').send('<!doctype html><title>UBA Desk</title><p>The web UI is not built. Run <code>npm run build</code>, then reload. The API is up: see <a href="/docs">/docs</a>.</p>'),
    )
  }
}
