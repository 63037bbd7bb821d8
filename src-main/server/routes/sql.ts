import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { sqlExport, sqlQuery, type SqlRequest } from '../../domain/sql/run'
import type { SqlFormat } from '../../domain/sql/render'
import { errorRef, projectSecurity, responses } from '../schemas/common'
import { exportResponse, queryResponse, SQL_RULES, sqlBody, sqlErrorDescriptions, sqlQuerystring } from '../schemas/sql'
import { sendStream } from '../streaming'

interface SqlRoute {
  Body: { sql: string; format?: SqlFormat }
  Querystring: { csvUtfEncoding?: number }
}

const CSV = 'text/csv; charset=utf-8'

function sqlRequest(body: SqlRoute['Body'], query: SqlRoute['Querystring']): SqlRequest {
  return { sql: body.sql, format: body.format ?? 'csv', bom: query.csvUtfEncoding === 0 }
}

function withErrors(ok: object): Record<string, object> {
  return { ...responses(ok, [400, 401, 415, 503]), 501: { ...errorRef, description: sqlErrorDescriptions[501] } }
}

/** Custom SQL (spec 4.7): one checked SELECT on the project's tables, as CSV or JSON. */
export default async function sqlRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  const config = { auth: 'project' as const }

  app.post<SqlRoute>('/uba/api/sql/query', {
    config,
    schema: {
      tags: ['sql'],
      summary: 'Run a SQL query (small results)',
      description: `Runs one SELECT and answers with the whole result: CSV (default) or one JSON array of row objects. Intended for small results: a result with more rows than the setting \`svcweb.open_api.sqlquery.limit\` (default 10000; -1 unlimited) is a 400 naming \`sql\` that says to add LIMIT or use /uba/api/sql/export; nothing is sent in that case.\n\n${SQL_RULES}`,
      security: projectSecurity,
      querystring: sqlQuerystring,
      body: sqlBody,
      response: withErrors(queryResponse),
    },
  }, async (request, reply) => {
    const req = sqlRequest(request.body, request.query)
    const type = req.format === 'json' ? 'application/json; charset=utf-8' : CSV
    return sendStream(request, reply, type, (signal) => sqlQuery(ctx, request.project, req, signal))
  })

  app.post<SqlRoute>('/uba/api/sql/export', {
    config,
    schema: {
      tags: ['sql'],
      summary: 'Export the result of a SQL query (streamed)',
      description: `Runs one SELECT and streams its rows as they are computed, in constant memory: CSV (default) or JSON lines (one object per row and line, no array). No row limit; read the response as a stream and raise client and proxy time-outs (a proxy may answer 504 on a long export). Errors found before the first rows are ordinary JSON answers; a failure later cuts the stream short.\n\n${SQL_RULES}`,
      security: projectSecurity,
      querystring: sqlQuerystring,
      body: sqlBody,
      response: withErrors(exportResponse),
    },
  }, async (request, reply) => {
    const req = sqlRequest(request.body, request.query)
    const type = req.format === 'json' ? 'application/x-ndjson; charset=utf-8' : CSV
    return sendStream(request, reply, type, (signal) => sqlExport(ctx, request.project, req, signal))
  })
}
