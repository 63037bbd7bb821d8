import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { DIMENSION_LIMITS, NAME_RULE } from '../../domain/schema/dimensionRules'
import {
  clearDimensionTable,
  createDimensionTable,
  dimensionFields,
  dropDimensionTable,
  listDimensionTables,
  updateDimensionTable,
  type DimensionUpdate,
  type NewDimensionTable,
} from '../../domain/schema/dimensions'
import { DATA_TYPES, SCHEMA_ID } from '../../domain/schema/types'
import { exact, loginUserQuery, projectSecurity, responses, successSchema } from '../schemas/common'

const tableRule = {
  type: 'string',
  pattern: SCHEMA_ID.source,
  'x-rule': NAME_RULE,
  description: 'Table name; case-insensitive, stored and shown in lower case.',
} as const

const tableQuery = { type: 'object', required: ['table'], properties: { table: tableRule, ...loginUserQuery } } as const

const columnsRule = {
  type: 'object',
  minProperties: 1,
  description: 'Map of column name to data type. Column names follow the table-name rule.',
  additionalProperties: { type: 'string', enum: [...DATA_TYPES] },
} as const

const rowsRule = (minItems: number) => ({
  type: 'array',
  minItems,
  maxItems: DIMENSION_LIMITS.rowsPerRequest,
  description: 'Array of maps of column name to value. null leaves a value empty.',
  items: { type: 'object', additionalProperties: true },
})

/**
 * The rows as /openapi.json publishes them (the route's `documentedBody`): the values a column
 * takes. Validation leaves them open, so that the domain's checks name `rows[i].<column>`.
 */
const documentedRows = <B extends { properties: { rows: object } }>(body: B, minItems: number) => ({
  ...body,
  properties: {
    ...body.properties,
    rows: { ...rowsRule(minItems), items: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean', 'array', 'null'], items: { type: 'string' } } } },
  },
})

const textRule = (what: string) => ({ type: 'string', maxLength: DIMENSION_LIMITS.text, 'x-rule': `at most ${DIMENSION_LIMITS.text} characters`, description: what })

const createBody = {
  type: 'object',
  required: ['table', 'columns', 'rows'],
  additionalProperties: false,
  properties: {
    table: tableRule,
    showName: textRule('Display name.'),
    remark: textRule('Remark.'),
    relations: { type: 'array', minItems: 1, maxItems: DIMENSION_LIMITS.relations, items: { type: 'string' }, description: 'Relation field names.' },
    columns: columnsRule,
    rows: rowsRule(1),
  },
} as const

const updateBody = {
  type: 'object',
  required: ['table', 'columns', 'rows'],
  additionalProperties: false,
  properties: { table: tableRule, columns: columnsRule, rows: rowsRule(0) },
} as const

const field = exact({
  type: 'object',
  properties: {
    id: { type: 'string', description: 'Column name.' },
    dataType: { type: 'string', enum: [...DATA_TYPES] },
    name: { type: ['string', 'null'], description: 'Display name, or null.' },
    remark: { type: ['string', 'null'] },
    enable: { type: 'integer', enum: [0, 1], description: '1 enabled, 0 disabled.' },
    relation: { type: 'integer', enum: [0, 1], description: '1 relation (join) field, 0 other.' },
  },
} as const)

const summary = exact({
  type: 'object',
  properties: {
    table: { type: 'string' },
    showName: { type: ['string', 'null'] },
    remark: { type: ['string', 'null'] },
    relations: { type: 'array', items: { type: 'string' }, description: 'Relation field names, in column order.' },
    columns: { type: 'integer', description: 'Number of columns.' },
    rows: { type: 'integer', description: 'Number of rows.' },
    createTime: { type: 'integer', description: 'Millisecond timestamp.' },
    updateTime: { type: 'integer', description: 'Millisecond timestamp of the last create, update or clear.' },
  },
} as const)

const ROW_RULES = `
Rules for rows and columns (spec 4.8, 2.5):
- Data types: \`string\`; \`number\`; \`boolean\` (true/false only); \`datetime\` (a string yyyy-MM-dd HH:mm:ss.SSS, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd, stored as given without time-zone shift); \`array<string>\`. A value must already have its column's type: "12" is not a number, 1 is not a boolean (400 naming \`rows[i].<column>\`). null leaves a value empty.
- Every column used in a row must be defined in \`columns\` (400 naming \`rows[i].<column>\`). A column that exists with another data type: 400 naming \`columns.<column>\`.
- Every relation field must have a non-empty value in every row (400 naming \`rows[i].<field>\`).
- Table and column names: ${NAME_RULE}; case-insensitive and stored in lower case; SQL reserved words (select, order, ...) and \`rowid\` are refused. At most ${DIMENSION_LIMITS.columns} columns per table, ${DIMENSION_LIMITS.rowsPerRequest} rows per request (and the 10 MB body limit).
- Rows with the same relation values are one record: within a request later rows win, and against the table the row is upserted (see update).
- All or nothing: a rejected or failed request leaves no table, column, row or metadata behind.`

/** Dimension tables (spec 4.8). */
export default async function dimensionRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  const config = { auth: 'project' as const }

  app.get('/uba/api/project/dimensions', {
    config,
    schema: {
      tags: ['dimensions'],
      summary: 'List the dimension tables (UBA Desk addition)',
      description: 'Every dimension table of the project by name, with its relation fields and its column and row counts.',
      security: projectSecurity,
      response: responses({ type: 'array', items: summary }, [401, 503]),
    },
  }, async (request) => listDimensionTables(ctx, request.project))

  app.get<{ Querystring: { table: string } }>('/uba/api/project/dimensions/properties', {
    config,
    schema: {
      tags: ['dimensions'],
      summary: 'Fields of a dimension table',
      description: 'The field records (spec 2.5) in column order. A table that does not exist: 400 naming `table`.',
      security: projectSecurity,
      querystring: tableQuery,
      response: responses({ type: 'array', items: field }, [400, 401, 503]),
    },
  }, async (request) => dimensionFields(ctx, request.project, request.query.table))

  app.post<{ Body: NewDimensionTable }>('/uba/api/project/dimensions', {
    config: { ...config, documentedBody: documentedRows(createBody, 1) },
    schema: {
      tags: ['dimensions'],
      summary: 'Create a dimension table',
      description: `Creates the table with at least one initial row. A table that already exists: 501/50101. A name the warehouse uses for its own tables (event_vd, profile_vd, user_ids, names ending in _vd or starting with duckdb_, sqlite_, pg_, uba_): 400 naming \`table\`. The table is queryable in custom SQL by its name.

\`relations\` names the relation (join) fields, 1-${DIMENSION_LIMITS.relations} of them, each defined in \`columns\` and not an array<string> (else 400 naming \`relations[i]\`); without \`relations\` the first column is the relation field. \`showName\` and \`remark\`: at most ${DIMENSION_LIMITS.text} characters each.
${ROW_RULES}`,
      security: projectSecurity,
      querystring: { type: 'object', properties: loginUserQuery },
      body: createBody,
      response: responses(successSchema, [400, 401, 415, 501, 503]),
    },
  }, async (request) => {
    await createDimensionTable(ctx, request.project, request.body, request.operator)
    return { success: 0 }
  })

  app.post<{ Body: DimensionUpdate }>('/uba/api/dimensions/update', {
    config: { ...config, documentedBody: documentedRows(updateBody, 0) },
    schema: {
      tags: ['dimensions'],
      summary: 'Add columns and rows to a dimension table',
      description: `The table must exist (else 400 naming \`table\`). Columns not yet in the table are added; \`columns\` must include every relation field of the table (else 400 naming \`columns.<field>\`). \`rows\` may be empty (only add columns).

Rows are upserted by the relation fields: a row whose relation values match an existing row updates it, setting the columns the row gives (an explicit null empties a value) and keeping the others; any other row is added. Sending the same update twice gives the same table.
${ROW_RULES}`,
      security: projectSecurity,
      querystring: { type: 'object', properties: loginUserQuery },
      body: updateBody,
      response: responses(successSchema, [400, 401, 415, 501, 503]),
    },
  }, async (request) => {
    await updateDimensionTable(ctx, request.project, request.body, request.operator)
    return { success: 0 }
  })

  app.delete<{ Querystring: { table: string } }>('/uba/api/project/dimensions/clear', {
    config,
    schema: {
      tags: ['dimensions'],
      summary: 'Remove every row of a dimension table',
      description: 'The table and its fields remain; the rows are removed irrecoverably. A table that does not exist: 400 naming `table`.',
      security: projectSecurity,
      querystring: tableQuery,
      response: responses(successSchema, [400, 401, 501, 503]),
    },
  }, async (request) => {
    await clearDimensionTable(ctx, request.project, request.query.table, request.operator)
    return { success: 0 }
  })

  app.delete<{ Querystring: { table: string } }>('/uba/api/project/dimensions/drop', {
    config,
    schema: {
      tags: ['dimensions'],
      summary: 'Drop a dimension table',
      description: 'The table, its rows and its fields are removed irrecoverably; the name is free again. A table that does not exist: 400 naming `table`.',
      security: projectSecurity,
      querystring: tableQuery,
      response: responses(successSchema, [400, 401, 501, 503]),
    },
  }, async (request) => {
    await dropDimensionTable(ctx, request.project, request.query.table, request.operator)
    return { success: 0 }
  })
}
