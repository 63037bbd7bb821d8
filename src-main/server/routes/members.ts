import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { badParam } from '../../domain/errors'
import { addMembers, listMembers, listRoles, removeMembers } from '../../domain/platform/members'
import { loginUserQuery, projectSecurity, responses, successSchema } from '../schemas/common'

/**
 * The DELETE list's field is `email` in the spec's parameter table and `emails` in its sample; both
 * are accepted, and so is a bare array.
 */
function emailList(body: unknown): { field: string; emails: string[] } {
  let field = 'emails'
  let list: unknown = body
  if (body && !Array.isArray(body) && typeof body === 'object') {
    const fields = body as Record<string, unknown>
    field = fields.emails === undefined && fields.email !== undefined ? 'email' : 'emails'
    list = fields[field]
  }
  if (!Array.isArray(list) || list.length === 0) throw badParam(field, `${field} must be a non-empty list of e-mails`)
  list.forEach((e, i) => {
    if (typeof e !== 'string' || e.length === 0) throw badParam(`${field}[${i}]`, `${field}[${i}] must be an e-mail`)
  })
  return { field, emails: list as string[] }
}

/** Project members and roles (spec 4.2), authenticated by the project's credentials. */
export default async function memberRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  const config = { auth: 'project' as const }
  const member = {
    type: 'object',
    properties: {
      email: { type: 'string' },
      userName: { type: ['string', 'null'] },
      name: { type: ['string', 'null'] },
      role: { type: 'integer' },
      roleName: { type: 'string' },
      enabled: { type: 'boolean' },
    },
  }

  app.get('/uba/manage/project/roles', {
    config,
    schema: {
      tags: ['members'],
      summary: 'Project roles',
      description: 'The five project roles: 2 admin, 3 product, 4 data analyst, 5 engineer, 6 regular member.',
      security: projectSecurity,
      response: responses({ type: 'array', items: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } } }, [401]),
    },
  }, async () => listRoles(ctx))

  app.get('/uba/manage/project/users', {
    config,
    schema: {
      tags: ['members'],
      summary: 'List the project members (UBA Desk addition)',
      security: projectSecurity,
      response: responses({ type: 'array', items: member }, [401]),
    },
  }, async (request) => listMembers(ctx, request.project.appKey))

  app.post<{ Body: { users: { email: string; role: number }[] } }>('/uba/manage/project/users', {
    config,
    schema: {
      tags: ['members'],
      summary: 'Add members or replace their role',
      description: 'Every e-mail must be a registered account (else 400 naming `users[i].email`) and every role a known role id. A member already in the project gets the given role. Nothing is written unless every entry is valid.',
      security: projectSecurity,
      querystring: { type: 'object', properties: loginUserQuery },
      body: {
        type: 'object',
        required: ['users'],
        additionalProperties: false,
        properties: {
          users: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              required: ['email', 'role'],
              additionalProperties: false,
              properties: { email: { type: 'string', minLength: 1 }, role: { type: 'integer' } },
            },
          },
        },
      },
      response: responses(successSchema, [400, 401, 415, 501]),
    },
  }, async (request) => {
    addMembers(ctx, request.project.appKey, request.body.users, request.operator)
    return { success: 0 }
  })

  app.delete<{ Body: unknown }>('/uba/manage/project/users', {
    config,
    schema: {
      tags: ['members'],
      summary: 'Remove members',
      description: 'Body: `{"emails": [...]}`, `{"email": [...]}` or a bare array of e-mails. An e-mail that is not a registered member of the project is a 400 and removes nothing.',
      security: projectSecurity,
      querystring: { type: 'object', properties: loginUserQuery },
      // the three accepted shapes are checked by emailList, which names the field in its 400
      body: {
        properties: { emails: { type: 'array', items: { type: 'string' } }, email: { type: 'array', items: { type: 'string' } } },
        items: { type: 'string' },
      },
      response: responses(successSchema, [400, 401, 415, 501]),
    },
  }, async (request) => {
    const { field, emails } = emailList(request.body)
    removeMembers(ctx, request.project.appKey, emails, field, request.operator)
    return { success: 0 }
  })
}
