import { REPORT_KINDS, REPORT_NAME_MAX } from '../../domain/reports/reports'
import { exact } from './common'

/** Saved reports (UBA Desk addition): request, answer and path schemas. */

export const REPORTS_ABOUT = `A saved report is a named analysis of the project: kind (the analysis: events, funnels, retentions, distributions, userAttributes; POST /uba/api/<kind>/analyze runs it), request (the analysis request body, kept exactly as sent and checked only when it runs: a report whose events or cohorts were removed since still opens, and running it gives that analysis's 400), and options (free JSON for the chart: how it is drawn, the builder's state). Names are unique in the project (501/50101). loginUser records who created and who last changed it; only the creator changes or deletes a report (the API's own reports without loginUser), another caller gets a 400 naming loginUser.`

export const reportIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'integer', minimum: 1, description: 'Report id.' } },
} as const

const name = { type: 'string', minLength: 1, maxLength: REPORT_NAME_MAX, 'x-rule': `1-${REPORT_NAME_MAX} characters`, description: 'Unique name in the project (surrounding spaces removed).' } as const
const kind = { type: 'string', enum: [...REPORT_KINDS], description: 'The analysis: the path part of /uba/api/<kind>/analyze.' } as const
const request = { type: 'object', additionalProperties: true, description: 'The analysis request body (spec 4.10), as POST /uba/api/<kind>/analyze takes it.' } as const
const options = { type: 'object', additionalProperties: true, description: 'Free JSON for the chart (at most 256 KB); {} when not sent.' } as const

export const newReportBody = {
  type: 'object',
  required: ['name', 'kind', 'request'],
  additionalProperties: false,
  properties: { name, kind, request, options },
} as const

export const reportChangesBody = {
  type: 'object',
  additionalProperties: false,
  properties: { name, kind: { ...kind, description: "When sent, must be the report's own kind (a report's analysis never changes): else 400 naming kind." }, request, options },
} as const

export const reportRecord = exact({
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    kind,
    request: { type: 'object', additionalProperties: true },
    options: { type: 'object', additionalProperties: true },
    createdUser: { type: 'string', description: 'Display name of the creating account, or API.' },
    createdTime: { type: 'string', description: 'yyyy-MM-dd HH:mm:ss in the project time zone.' },
    updatedUser: { type: 'string', description: 'Who changed it last (the creator until then).' },
    updatedTime: { type: 'string', description: 'yyyy-MM-dd HH:mm:ss in the project time zone.' },
  },
} as const)

export const reportsQuery = {
  type: 'object',
  properties: {
    q: { type: 'string', maxLength: 200, description: 'Keep the reports whose name contains this text (any case).' },
    kind: { ...kind, description: 'Keep the reports of this analysis.' },
  },
} as const
