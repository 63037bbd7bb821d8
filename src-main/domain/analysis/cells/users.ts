import type { Warehouse } from '../../../warehouse'
import { dialectOf, type DomainContext, type Operator } from '../../context'
import { createValuesCohort, type FileCohort } from '../../cohorts/byFile'
import { checkName } from '../../userSets/records'
import { cellValue, existingColumns, outColumns, propertyColumnsOf, selectSql, shape, type OutColumn } from '../../cohorts/users'
import { badParam } from '../../errors'
import { USERS } from '../../ingest/identity'
import { numeric } from '../../lenient'
import type { Dialect } from '../../../warehouse/dialect'
import type { ProjectScope } from '../../project/scope'
import { csvLines, exportFormat } from '../../sql/csv'
import { jsonLines, streamRows } from '../../streaming'
import { currentTime } from '../../time/clock'
import { openAnalysis } from '../runner'
import { cellOf, type CellModule } from './cell'
import { distributionCells } from './distribution'
import { eventCells } from './events'
import { funnelCells } from './funnel'
import { retentionCells } from './retention'
import { userAttributeCells } from './userAttributes'

/**
 * POST /uba/api/{analysis}/users (and /users/export, /users/cohort): the analysis body plus `cell`
 * gives the users counted in that cell, each once, in distinct_id order: a page of them, all of
 * them as JSON lines or CSV, or a static cohort of exactly them.
 */

/** The analyses by their path name (/uba/api/<name>/analyze). */
export const CELL_ANALYSES: Record<string, CellModule<unknown>> = {
  events: eventCells as CellModule<unknown>,
  funnels: funnelCells as CellModule<unknown>,
  retentions: retentionCells as CellModule<unknown>,
  distributions: distributionCells as CellModule<unknown>,
  userAttributes: userAttributeCells as CellModule<unknown>,
}

/** The fields of the body that are not the analysis's. */
const OWN = ['cell', 'page', 'pageNum', 'pageSize', 'properties', 'format', 'name', 'useCache']
export const DEFAULT_PAGE_SIZE = 50
export const MAX_PAGE_SIZE = 10_000

/**
 * The cell's users as a relation (distinct_id, xwho) over the temp table the cell filled. A user is
 * named as everywhere (ingest/identity.ts USERS); user_ids and user_aliases come with the first
 * load, so a project without them names nobody.
 */
async function membersOf(conn: Warehouse, d: Dialect): Promise<string> {
  const tables = new Set<string>()
  for (const table of ['user_ids', 'user_aliases']) if (Number((await conn.rows(d.tableCount(table)))[0][0]) > 0) tables.add(table)
  const users = tables.size === 2 ? USERS : tables.has('user_ids') ? '(SELECT distinct_id, xwho FROM user_ids)' : null
  if (!users) return `(SELECT distinct_id, ${d.cast('NULL', 'string')} AS xwho FROM cell_ids)`
  return `(SELECT c.distinct_id, x.xwho FROM cell_ids c LEFT JOIN ${users} x ON x.distinct_id = c.distinct_id)`
}

function analysisBody(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([k]) => !OWN.includes(k)))
}

/**
 * Checks the request and returns what finds the cell's users on `conn` into the temp table
 * cell_ids (distinct_id): to run in a snapshot (as the analysis reads) that the caller ends.
 */
async function prepareCell(ctx: DomainContext, scope: ProjectScope, analysis: string, body: Record<string, unknown>, conn: Warehouse): Promise<() => Promise<void>> {
  const module = CELL_ANALYSES[analysis]
  if (!module) throw badParam('analysis', `no analysis is called ${analysis}`)
  const { env, request } = await openAnalysis(ctx, scope, conn, module.analysis, analysisBody(body), currentTime())
  const cell = cellOf(body, module.fields)
  return async () => {
    const found = await module.select(env, request, cell)
    await conn.run(dialectOf(ctx, scope).tempTable('cell_ids', [['distinct_id', 'bigint']]))
    if (!('ids' in found)) await conn.run(`INSERT INTO cell_ids SELECT * FROM (${found.sql})`, found.params.values)
    else if (found.ids.length > 0) await conn.run(dialectOf(ctx, scope).insertNumbers('cell_ids'), [found.ids])
  }
}

/** The cell's users, then `work`, on one snapshot; nothing is written, so it is rolled back. */
async function withCell<T>(ctx: DomainContext, scope: ProjectScope, analysis: string, body: Record<string, unknown>, conn: Warehouse, work: () => Promise<T>): Promise<T> {
  const fill = await prepareCell(ctx, scope, analysis, body, conn)
  return conn.snapshot(async () => {
    await fill()
    return work()
  })
}

function pageOf(body: Record<string, unknown>): { page: number; pageSize: number } {
  const whole = (field: string, fallback: number, max: number) => {
    const raw = body[field]
    if (raw === undefined || raw === null) return fallback
    const n = numeric(raw)
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > max) throw badParam(field, `${field} must be a whole number from 1 to ${max}`)
    return n
  }
  const page = whole(body.page !== undefined ? 'page' : 'pageNum', 1, Number.MAX_SAFE_INTEGER)
  return { page, pageSize: whole('pageSize', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE) }
}

async function columnsOf(ctx: DomainContext, scope: ProjectScope, conn: Warehouse, body: Record<string, unknown>): Promise<OutColumn[]> {
  return outColumns(propertyColumnsOf(ctx.meta, dialectOf(ctx, scope), scope.appKey, body.properties, await existingColumns(conn)), [])
}

export interface CellUsersPage {
  count: number
  page: number
  pageSize: number
  size: number
  users: Record<string, unknown>[]
}

export async function cellUsers(ctx: DomainContext, scope: ProjectScope, analysis: string, body: Record<string, unknown>): Promise<CellUsersPage> {
  const { page, pageSize } = pageOf(body)
  return ctx.warehouse.withConnection(scope.appKey, scope.timeZone, async (conn) => {
    const columns = await columnsOf(ctx, scope, conn, body)
    return withCell(ctx, scope, analysis, body, conn, async () => {
      const count = Number((await conn.rows('SELECT count(*) FROM cell_ids'))[0][0])
      const p = dialectOf(ctx, scope).params()
      const rows = await conn.query(selectSql(await membersOf(conn, dialectOf(ctx, scope)), columns, [], p, { limit: pageSize, offset: (page - 1) * pageSize }), p.values)
      const users = rows.map((r) => shape(r, columns))
      return { count, page, pageSize, size: users.length, users }
    })
  })
}

/** Every user of the cell: JSON lines, or CSV (`bom`: with a byte-order mark), read in chunks. */
export async function* exportCellUsers(ctx: DomainContext, scope: ProjectScope, analysis: string, body: Record<string, unknown>, signal: AbortSignal, bom = false): AsyncGenerator<string> {
  const format = exportFormat(body.format)
  const session = await ctx.warehouse.session(scope.appKey, scope.timeZone)
  let columns: OutColumn[]
  let members: string
  try {
    columns = await columnsOf(ctx, scope, session, body)
    const fill = await prepareCell(ctx, scope, analysis, body, session)
    await session.beginSnapshot()
    await fill()
    members = await membersOf(session, dialectOf(ctx, scope))
  } catch (err) {
    session.close()
    throw err
  }
  const p = dialectOf(ctx, scope).params()
  const rows = streamRows(session, selectSql(members, columns, [], p, { limit: null, offset: 0 }), p.values, signal)
  try {
    if (format === 'csv') yield* csvLines(columns.map((c) => c.key), cells(rows, columns), bom)
    else yield* jsonLines(shaped(rows, columns))
  } finally {
    // closing ends the transaction and its temp table (streamRows closes it too once it has started)
    session.close()
  }
}

async function* shaped(chunks: AsyncIterable<Record<string, unknown>[]>, columns: OutColumn[]): AsyncGenerator<Record<string, unknown>[]> {
  for await (const chunk of chunks) yield chunk.map((r) => shape(r, columns))
}

async function* cells(chunks: AsyncIterable<Record<string, unknown>[]>, columns: OutColumn[]): AsyncGenerator<unknown[][]> {
  for await (const rows of chunks) yield rows.map((r) => columns.map((c) => cellValue(r, c)))
}

/** A static cohort named `name` whose members are exactly the cell's users (kept by their xwho). */
export async function saveCellCohort(ctx: DomainContext, scope: ProjectScope, analysis: string, body: Record<string, unknown>, operator: Operator | null): Promise<FileCohort> {
  const name = checkName(body.name)
  const values = await ctx.warehouse.withConnection(scope.appKey, scope.timeZone, (conn) =>
    withCell(ctx, scope, analysis, body, conn, async () => {
      const rows = await conn.rows(`SELECT xwho FROM ${await membersOf(conn, dialectOf(ctx, scope))} WHERE xwho IS NOT NULL ORDER BY distinct_id`)
      return rows.map((r) => String(r[0]))
    }),
  )
  if (values.length === 0) throw badParam('cell', 'cell: nobody is counted in this cell; a cohort of no users is not saved')
  return createValuesCohort(ctx, scope, { name, property: 'xwho', values, operation: 'cohort.fromCell' }, operator)
}
