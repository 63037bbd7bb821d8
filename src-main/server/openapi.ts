import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { errorSchema } from './schemas/common'
import { publishedBody } from './tolerance'

const description = `
The localhost API of UBA Desk. It follows the open API of a server-based behaviour-analytics
platform, so tools written for that API work against this laptop unchanged.

**Authentication** (spec part 5). Project endpoints take the headers \`appKey\` and \`token\`
(a project's key reaches only that project). Platform endpoints (projects, data stream, accounts)
take the header \`xtoken\`. Missing or wrong credentials: 401. Find them with
\`uba-desk credentials --data-dir DIR\` or in the app's Settings.

**Errors** (spec part 7). Every non-200 answer is \`{code, msg, data}\`; for 400, \`data\` lists the
offending parameters. Unknown endpoint: 404. A path parameter over 100 characters: 414. A known path with an unsupported method: 400. A body
that is not JSON, or a Content-Type other than application/json: 415. Quota: 501 with code 501;
object exists: 501/50101; exists but disabled: 501/50102. Query engine unavailable: 503.

**What a request may hold.** As the platform's server does, the API ignores body fields it does
not take (they are logged at debug level), reads a number sent as a decimal string (\`"6"\`) and a
string sent as a number where a field takes one kind of value, \`"true"\`/\`"false"\` as
booleans, enum words written upper case in the spec in any letter case, \`filter: {}\` as no
filter, and a POST without a body as \`{}\` where no field is required. A value of the wrong kind
(\`"soon"\` for a date, an unknown aggregator, a word where a number belongs) is still a 400 naming
it. The body schemas below list the fields that are read.

**Operator.** Writes accept the query parameter \`loginUser\` (an existing, enabled account's
e-mail); it is recorded as the operator. Objects created without it are owned by the API.

**The localhost boundary.** The server listens on loopback only, refuses a Host header that is not
a loopback name with its port, refuses browser requests from other origins (no CORS), and accepts
writes as application/json only (multipart where stated).

**Time.** Every project has a time zone (default: the machine's); days (\`ds\`, a yyyyMMdd integer
in \`event_vd\`) and weeks are computed in it.
`

/** OpenAPI 3.1 from the route schemas, served at /openapi.json, with a reference UI at /docs. */
export async function installOpenApi(app: FastifyInstance, version: string): Promise<void> {
  app.addSchema(errorSchema)
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'UBA Desk localhost API', version, description },
      tags: [
        { name: 'platform', description: 'Platform management (spec 4.1), header xtoken.' },
        { name: 'members', description: 'Project members and roles (spec 4.2).' },
        { name: 'project', description: 'The authenticated project.' },
        { name: 'schema', description: 'Tracking plan (spec 4.3); also under /svc/uba/api/schema.' },
        { name: 'meta', description: 'Metadata and virtual events (spec 4.4).' },
        { name: 'cohorts', description: 'Cohorts (spec 4.5): rules, files, members, streamed export.' },
        { name: 'tags', description: 'Tags: named per-user values with numbered versions (UBA Desk addition; the spec reads them in user details).' },
        { name: 'people', description: 'Single users (spec 4.6): detail, behaviour sequence, streamed export.' },
        { name: 'sql', description: 'Custom SQL (spec 4.7): query and streamed export, sandboxed.' },
        { name: 'dimensions', description: 'Dimension tables (spec 4.8).' },
        { name: 'import', description: 'Importing files: preview, jobs with progress, cancel (UBA Desk addition).' },
        { name: 'analysis', description: 'Analyses (spec 4.10).' },
        { name: 'reports', description: 'Saved reports and dashboards: named analyses of the project and grids of them, shared by every browser and tool (UBA Desk addition).' },
        { name: 'utm', description: 'Ad tracking (spec 4.9).' },
        { name: 'collector', description: 'The local collector for SDK uploads.' },
        { name: 'system', description: 'Health and documentation, no credentials.' },
      ],
      components: {
        securitySchemes: {
          appKey: { type: 'apiKey', in: 'header', name: 'appKey', description: 'Project identifier.' },
          token: { type: 'apiKey', in: 'header', name: 'token', description: "The project's API access key." },
          xtoken: { type: 'apiKey', in: 'header', name: 'xtoken', description: 'Platform authorization code.' },
        },
      },
    },
    // bodies accept fields their schema does not list (tolerance.ts): published without additionalProperties false
    transform: ({ schema, url, route }) => {
      const body = route.config?.documentedBody ?? schema?.body
      const published = body ? { ...schema, body: publishedBody(body) } : schema
      const answer = route.config?.documentedAnswer
      return { schema: answer ? { ...published, response: { ...(published?.response as object), 200: answer } } : published, url }
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  })
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    uiConfig: { docExpansion: 'list', deepLinking: true, persistAuthorization: false },
  })
  app.get('/openapi.json', { schema: { hide: true }, config: { auth: 'none' } }, async () => app.swagger())
}
