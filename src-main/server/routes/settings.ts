import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { importRoots, MAX_IMPORT_ROOTS, setImportRoots } from '../../domain/ingest/importRoots'
import { platformSecurity, responses } from '../schemas/common'

const PATH = '/uba/manage/enterprise/settings/importRoots'

const rootsSchema = {
  type: 'object',
  required: ['roots', 'defaults', 'commandLine'],
  properties: {
    roots: { type: 'array', items: { type: 'string' }, description: 'Folders (absolute paths) whose files imports by path may read.' },
    defaults: { type: 'boolean', description: 'true while the setting was never changed: roots are the defaults (home and temp folders).' },
    commandLine: { type: 'array', items: { type: 'string' }, description: 'Folders added for this run with serve --import-root (read-only here).' },
  },
} as const

/** Platform settings (UBA Desk addition), authenticated by `xtoken`: only the platform may widen what imports read. */
export default async function settingsRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  const config = { auth: 'platform' as const }
  const description = `Imports by \`path\` (POST /uba/api/import/preview and /jobs with a JSON body) read only files under these folders, symbolic links resolved first; another path is a 400 naming path. Default: the user's home folder and the OS's temp folder. \`serve --import-root DIR\` (repeatable) adds folders for one run. Uploads (multipart) are not concerned.`

  app.get(PATH, {
    config,
    schema: { tags: ['platform'], summary: 'Folders imports may read', description, security: platformSecurity, response: responses(rootsSchema, [401]) },
  }, async () => importRoots(ctx))

  app.put<{ Body: { roots: string[] } }>(PATH, {
    config,
    schema: {
      tags: ['platform'],
      summary: 'Set the folders imports may read',
      description: `${description} Replaces the list (an empty list allows none besides the command line's); answers the new state.`,
      security: platformSecurity,
      body: {
        type: 'object',
        required: ['roots'],
        additionalProperties: false,
        properties: {
          roots: {
            type: 'array',
            maxItems: MAX_IMPORT_ROOTS,
            items: { type: 'string', minLength: 1, maxLength: 4096, pattern: '^(/|[A-Za-z]:[\\\\/]|\\\\\\\\)', 'x-rule': 'an absolute folder path' },
          },
        },
      },
      response: responses(rootsSchema, [400, 401, 415]),
    },
  }, async (request) => setImportRoots(ctx, request.body.roots))
}
