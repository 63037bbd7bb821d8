import type { FastifyInstance } from 'fastify'
import { CELL_ANALYSES, cellUsers, exportCellUsers, saveCellCohort } from '../../domain/analysis/cells/users'
import type { DomainContext } from '../../domain/context'
import { documentedUsers, USER_OBJECT } from '../schemas/cohorts'
import { cellBody, cellUsersPage, cohortFields, exportFields, pageFields, savedCohort } from '../schemas/cellUsers'
import { loginUserQuery, projectSecurity, responses } from '../schemas/common'
import { sqlQuerystring } from '../schemas/sql'
import { sendStream } from '../streaming'

const BODY = 'The body is the analysis request exactly as for /analyze (the same checks, the same 400s), plus `cell`: the coordinates of one cell of its answer (a bad coordinate is a 400 naming cell.<field>). The users are exactly those the analysis counted in that cell, each once, found by the same SQL or path following as its figures.'

/** The users behind one cell of each analysis (UBA Desk addition): a page, an export, a cohort. */
export default async function cellUserRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  const config = { auth: 'project' as const }
  for (const analysis of Object.keys(CELL_ANALYSES)) {
    type Req = { Body: Record<string, unknown>; Querystring: { csvUtfEncoding?: number } }
    app.post<Req>(`/uba/api/${analysis}/users`, {
      config: { ...config, documentedBody: cellBody(analysis, pageFields), documentedAnswer: documentedUsers(cellUsersPage) },
      schema: {
        tags: ['analysis'],
        summary: `Users behind a cell of the ${analysis} analysis`,
        description: `${BODY} Answers {count, page, pageSize, size, users}: the page-th pageSize users in distinct_id order. ${USER_OBJECT}`,
        security: projectSecurity,
        body: { type: 'object' },
        response: responses(cellUsersPage, [400, 401, 415, 503]),
      },
    }, async (request) => cellUsers(ctx, request.project, analysis, request.body))

    app.post<Req>(`/uba/api/${analysis}/users/export`, {
      config: { ...config, documentedBody: cellBody(analysis, exportFields) },
      schema: {
        tags: ['analysis'],
        summary: `Export the users behind a cell of the ${analysis} analysis`,
        description: `${BODY} Every user of the cell as one JSON object per line (application/x-ndjson), or with format csv as CSV (text/csv, a header line of the same keys), streamed as the cohort members export is. ${USER_OBJECT}`,
        security: projectSecurity,
        querystring: sqlQuerystring,
        body: { type: 'object' },
        response: { ...responses({}, [400, 401, 415, 503]), 200: { description: 'JSON lines or CSV.', type: 'string' } },
      },
    }, async (request, reply) => {
      const csv = request.body?.format === 'csv'
      const type = csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8'
      await sendStream(request, reply, type, (signal) => exportCellUsers(ctx, request.project, analysis, request.body ?? {}, signal, request.query.csvUtfEncoding === 0))
    })

    app.post<Req>(`/uba/api/${analysis}/users/cohort`, {
      config: { ...config, documentedBody: cellBody(analysis, cohortFields, ['name']) },
      schema: {
        tags: ['analysis'],
        summary: `Save the users behind a cell of the ${analysis} analysis as a cohort`,
        description: `${BODY} Creates a static cohort named name whose members are exactly the cell's users, computed before the answer {id, code, name, dynamic: 0, userNumber}. It is kept as a list of their xwho (source "file", property xwho): recalculating it matches the same users again. A cell with no users is a 400 naming cell; a name in use 501/50101; the cohort quota 501/501. loginUser gives the cohort to that account.`,
        security: projectSecurity,
        querystring: { type: 'object', properties: loginUserQuery },
        body: { type: 'object' },
        response: responses(savedCohort, [400, 401, 415, 501, 503]),
      },
    }, async (request) => saveCellCohort(ctx, request.project, analysis, request.body ?? {}, request.operator))
  }
}
