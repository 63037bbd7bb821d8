import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { createAccount, setActivation, type NewAccount } from '../../domain/platform/accounts'
import { getProject, listProjects, registerProject, type NewProjectRequest } from '../../domain/platform/projects'
import { testServer, type WarehouseInput } from '../../domain/platform/projectWarehouse'
import { switchStream } from '../../domain/platform/stream'
import { exact, loginUserQuery, platformSecurity, responses, successSchema } from '../schemas/common'
import { serverFound, warehouseInput, warehouseOutput } from '../schemas/warehouse'

const projectProps = {
  appKey: { type: 'string', description: 'Project identifier.' },
  cname: { type: 'string', description: 'Display name.' },
  version: { type: 'string', description: 'Product version the project runs on.' },
  logo: { type: 'string', description: 'Icon path; omitted unless a logo was uploaded.' },
  createTime: { type: 'integer', description: 'Millisecond timestamp.' },
  sdkBack: { type: 'string', description: 'SDK platforms that reported data: the $lib values of imported and collected records (events and profile records), sorted, comma separated; omitted while none did.' },
  status: { type: 'integer', description: '1 normal, 2 deleted, 3 abnormal and unavailable.' },
  partitionNum: { type: 'integer', description: 'Number of data storage partitions.' },
  stream: { type: 'integer', enum: [0, 1, 2, 3, 5], description: 'Data stream: 0 not started, 1 starting, 2 started, 3 interrupted, 5 closing.' },
  timeZone: { type: 'string', description: 'IANA time zone in which days and weeks of this project are computed (UBA Desk addition).' },
  collectorOrigins: { type: 'array', items: { type: 'string' }, description: 'Web origins allowed to upload to the local collector; empty: any (UBA Desk addition; POST .../collector sets it).' },
  warehouse: warehouseOutput,
} as const

/** The fields a project answer leaves out when they have no value. */
const OMITTED = ['logo', 'sdkBack']

const appKeyRule = { type: 'string', pattern: '^[A-Za-z0-9]{1,64}$', 'x-rule': 'only English letters and digits, 1-64 characters' }
const nameRule = { type: 'string', pattern: '^[A-Za-z0-9]{1,50}$', 'x-rule': 'only English letters and digits, 1-50 characters' }
const appKeyParams = { type: 'object', required: ['appKey'], properties: { appKey: appKeyRule } } as const

/** Platform management (spec 4.1), authenticated by `xtoken`. */
export default async function platformRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  const config = { auth: 'platform' as const }

  app.get('/uba/manage/enterprise/projects', {
    config,
    schema: {
      tags: ['platform'],
      summary: 'List projects',
      description: 'Projects with status 1, with their `normalToken`. With `loginUser`, only the projects that account created or is a member of.',
      security: platformSecurity,
      querystring: { type: 'object', properties: loginUserQuery },
      response: responses({ type: 'array', items: exact({ type: 'object', properties: { ...projectProps, normalToken: { type: 'string', description: 'The project API token.' } } }, OMITTED) }, [400, 401, 501]),
    },
  }, async (request) => listProjects(ctx, request.operator))

  app.get<{ Params: { appKey: string } }>('/uba/manage/enterprise/projects/:appKey', {
    config,
    schema: {
      tags: ['platform'],
      summary: 'Project detail',
      description: '`finish` is true once asynchronous creation has completed (the project database exists). An unknown appKey is a 400.',
      security: platformSecurity,
      params: appKeyParams,
      response: responses(exact({ type: 'object', properties: { ...projectProps, finish: { type: 'boolean', description: 'Creation has completed.' } } }, OMITTED)),
    },
  }, async (request) => getProject(ctx, request.params.appKey))

  app.post<{ Body: NewProjectRequest }>('/uba/manage/enterprise/projects', {
    config,
    schema: {
      tags: ['platform'],
      summary: 'Create a project',
      description: 'Asynchronous: answers `success` 0 at once; read `finish` from the detail. appKey is generated when omitted. Duplicate appKey: 501/50101. Project quota: 501/501. With a ClickHouse `warehouse`, the server is tried first (a few seconds at most) and nothing is created when it cannot be used.',
      security: platformSecurity,
      querystring: { type: 'object', properties: loginUserQuery },
      body: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: {
          appKey: appKeyRule,
          name: nameRule,
          timeZone: { type: 'string', maxLength: 64, description: 'IANA time zone (UBA Desk addition); default the machine\'s.' },
          warehouse: warehouseInput,
        },
      },
      response: responses(exact({ type: 'object', properties: { appKey: { type: 'string' }, success: { type: 'integer', enum: [0] } } }), [400, 401, 415, 501]),
    },
  }, async (request) => ({ ...(await registerProject(ctx, request.body, request.operator)), success: 0 }))

  app.post<{ Body: { warehouse: WarehouseInput } }>('/uba/manage/enterprise/warehouse/test', {
    config,
    schema: {
      tags: ['platform'],
      summary: 'Test a ClickHouse connection',
      description:
        'Tries a ClickHouse server as a project would use it (UBA Desk addition): /ping, then one query as the user. Answers the server version and whether the database exists; a server that does not answer, refuses the user or answers an error is a 400 naming `warehouse`, with the reason. Nothing is stored.',
      security: platformSecurity,
      body: {
        type: 'object',
        required: ['warehouse'],
        additionalProperties: false,
        properties: { warehouse: { ...warehouseInput, description: 'The warehouse as the create body would give it; only a ClickHouse one is tested.' } },
      },
      response: responses(serverFound, [400, 401, 415]),
    },
  }, async (request) => testServer(ctx, request.body.warehouse))

  app.post<{ Params: { appKey: string }; Body: { streamSwitch: boolean } }>('/uba/manage/enterprise/projects/:appKey/stream', {
    config,
    schema: {
      tags: ['platform'],
      summary: 'Start or stop the data stream',
      description: 'Asynchronous. true: 0 -> 1 (starting) -> 2 (started), or 3 when the project database cannot be opened. false: 2 -> 5 (closing) -> 0. Switching to the state already reached changes nothing. The local collector accepts SDK uploads only while the stream is 2.',
      security: platformSecurity,
      params: appKeyParams,
      querystring: { type: 'object', properties: loginUserQuery },
      body: { type: 'object', required: ['streamSwitch'], additionalProperties: false, properties: { streamSwitch: { type: 'boolean' } } },
      response: responses(successSchema, [400, 401, 415, 501]),
    },
  }, async (request) => {
    switchStream(ctx, request.params.appKey, request.body.streamSwitch, request.operator)
    return { success: 0 }
  })

  app.post<{ Body: NewAccount }>('/uba/manage/enterprise/accounts', {
    config,
    schema: {
      tags: ['platform'],
      summary: 'Register an enterprise account',
      description: 'E-mail, userName and phone are each unique: taken by an enabled account 501/50101, by a disabled one 501/50102. The password is optional and stored only as a salted hash. The account gets the role "platform member".',
      security: platformSecurity,
      querystring: { type: 'object', properties: loginUserQuery },
      body: {
        type: 'object',
        required: ['email'],
        additionalProperties: false,
        properties: {
          email: { type: 'string', maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', 'x-rule': 'an e-mail address of at most 254 characters' },
          userName: { type: 'string', minLength: 1, maxLength: 50, 'x-rule': '1-50 characters' },
          name: { type: 'string', maxLength: 50, 'x-rule': 'at most 50 characters' },
          password: { type: 'string', minLength: 6, maxLength: 128, 'x-rule': '6-128 characters' },
          phone: { type: 'string', pattern: '^\\+?[0-9][0-9 -]{2,29}$', 'x-rule': 'digits, spaces and dashes, optionally starting with +, 3-30 characters' },
          department: { type: 'string', maxLength: 100, 'x-rule': 'at most 100 characters' },
        },
      },
      response: responses({ type: 'object', properties: { userId: { type: 'integer' }, email: { type: 'string' } } }, [400, 401, 415, 501]),
    },
  }, async (request) => createAccount(ctx, request.body, request.operator))

  app.post<{ Querystring: { email: string }; Body: { activation: boolean } }>('/uba/manage/enterprise/accounts/activation', {
    config,
    schema: {
      tags: ['platform'],
      summary: 'Enable or disable an account',
      description: 'A disabled account keeps its record but cannot be `loginUser` (501/50102). An unknown e-mail is a 400.',
      security: platformSecurity,
      querystring: { type: 'object', required: ['email'], properties: { email: { type: 'string', minLength: 1 }, ...loginUserQuery } },
      body: { type: 'object', required: ['activation'], additionalProperties: false, properties: { activation: { type: 'boolean' } } },
      response: responses(successSchema, [400, 401, 415, 501]),
    },
  }, async (request) => {
    setActivation(ctx, request.query.email, request.body.activation, request.operator)
    return { success: 0 }
  })
}
