import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { createReport, deleteReport, getReport, listReports, updateReport, type ReportInput } from '../../domain/reports/reports'
import { loginUserQuery, projectSecurity, responses, successSchema } from '../schemas/common'
import { newReportBody, reportChangesBody, reportIdParams, reportRecord, REPORTS_ABOUT, reportsQuery } from '../schemas/reports'

/** Saved reports (UBA Desk addition; see REPORTS_ABOUT). */
export default async function reportRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  const config = { auth: 'project' as const }
  const tags = ['reports']
  const security = projectSecurity

  app.get<{ Querystring: { q?: string; kind?: string } }>('/uba/api/reports', {
    config,
    schema: {
      tags,
      summary: 'List saved reports (UBA Desk addition)',
      description: `The project's reports, the latest changed first. ${REPORTS_ABOUT}`,
      security,
      querystring: reportsQuery,
      response: responses({ type: 'array', items: reportRecord }, [400, 401]),
    },
  }, async (request) => listReports(ctx, request.project, request.query))

  app.post<{ Body: ReportInput }>('/uba/api/reports', {
    config,
    schema: {
      tags,
      summary: 'Save a report (UBA Desk addition)',
      description: `Answers the saved report with its id. ${REPORTS_ABOUT}`,
      security,
      querystring: { type: 'object', properties: loginUserQuery },
      body: newReportBody,
      response: responses(reportRecord, [400, 401, 415, 501]),
    },
  }, async (request) => createReport(ctx, request.project, request.body, request.operator))

  app.get<{ Params: { id: number } }>('/uba/api/reports/:id', {
    config,
    schema: {
      tags,
      summary: 'Read a saved report (UBA Desk addition)',
      description: `Unknown id: 400 naming id. ${REPORTS_ABOUT}`,
      security,
      params: reportIdParams,
      response: responses(reportRecord, [400, 401]),
    },
  }, async (request) => getReport(ctx, request.project, request.params.id))

  app.put<{ Params: { id: number }; Body: ReportInput }>('/uba/api/reports/:id', {
    config,
    schema: {
      tags,
      summary: 'Change a saved report (UBA Desk addition)',
      description: `Only the fields sent change; answers the report. ${REPORTS_ABOUT}`,
      security,
      params: reportIdParams,
      querystring: { type: 'object', properties: loginUserQuery },
      body: reportChangesBody,
      response: responses(reportRecord, [400, 401, 415, 501]),
    },
  }, async (request) => updateReport(ctx, request.project, request.params.id, request.body, request.operator))

  app.delete<{ Params: { id: number } }>('/uba/api/reports/:id', {
    config,
    schema: {
      tags,
      summary: 'Delete a saved report (UBA Desk addition)',
      description: `Only its creator deletes it. ${REPORTS_ABOUT}`,
      security,
      params: reportIdParams,
      querystring: { type: 'object', properties: loginUserQuery },
      response: responses(successSchema, [400, 401]),
    },
  }, async (request) => {
    deleteReport(ctx, request.project, request.params.id, request.operator)
    return { success: 0 }
  })
}
