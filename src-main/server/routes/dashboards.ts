import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { createDashboard, deleteDashboard, getDashboard, listDashboards, updateDashboard, type DashboardInput } from '../../domain/reports/dashboards'
import { loginUserQuery, projectSecurity, responses, successSchema } from '../schemas/common'
import { dashboardChangesBody, dashboardIdParams, dashboardListItem, dashboardRecord, DASHBOARDS_ABOUT, newDashboardBody } from '../schemas/dashboards'

/** Dashboards (UBA Desk addition; see DASHBOARDS_ABOUT). */
export default async function dashboardRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  const config = { auth: 'project' as const }
  const tags = ['reports']
  const security = projectSecurity
  const writer = { type: 'object', properties: loginUserQuery }

  app.get('/uba/api/dashboards', {
    config,
    schema: { tags, summary: 'List dashboards (UBA Desk addition)', description: `The latest changed first; tiles without their reports. ${DASHBOARDS_ABOUT}`, security, response: responses({ type: 'array', items: dashboardListItem }, [401]) },
  }, async (request) => listDashboards(ctx, request.project))

  app.post<{ Body: DashboardInput }>('/uba/api/dashboards', {
    config,
    schema: { tags, summary: 'Create a dashboard (UBA Desk addition)', description: DASHBOARDS_ABOUT, security, querystring: writer, body: newDashboardBody, response: responses(dashboardRecord, [400, 401, 415, 501]) },
  }, async (request) => createDashboard(ctx, request.project, request.body, request.operator))

  app.get<{ Params: { id: number } }>('/uba/api/dashboards/:id', {
    config,
    schema: { tags, summary: 'Read a dashboard with the requests its tiles run (UBA Desk addition)', description: `Unknown id: 400 naming id. ${DASHBOARDS_ABOUT}`, security, params: dashboardIdParams, response: responses(dashboardRecord, [400, 401]) },
  }, async (request) => getDashboard(ctx, request.project, request.params.id))

  app.put<{ Params: { id: number }; Body: DashboardInput }>('/uba/api/dashboards/:id', {
    config,
    schema: { tags, summary: 'Change a dashboard (UBA Desk addition)', description: `Only the fields sent change. ${DASHBOARDS_ABOUT}`, security, params: dashboardIdParams, querystring: writer, body: dashboardChangesBody, response: responses(dashboardRecord, [400, 401, 415, 501]) },
  }, async (request) => updateDashboard(ctx, request.project, request.params.id, request.body, request.operator))

  app.delete<{ Params: { id: number } }>('/uba/api/dashboards/:id', {
    config,
    schema: { tags, summary: 'Delete a dashboard (UBA Desk addition)', description: `Its reports stay. ${DASHBOARDS_ABOUT}`, security, params: dashboardIdParams, querystring: writer, response: responses(successSchema, [400, 401]) },
  }, async (request) => {
    deleteDashboard(ctx, request.project, request.params.id, request.operator)
    return { success: 0 }
  })
}
