import type { Warehouse } from '../../warehouse'
import { ignoreUnknown } from '../ignored'
import type { MetaDb } from '../../store/meta'
import { flag, type Stored } from '../../store/meta/flags'
import type { Dialect, SqlParams } from '../../warehouse/dialect'
import { dialectOf, type DomainContext } from '../context'
import { badParam } from '../errors'
import type { ProjectScope } from '../project/scope'
import { propertyColumns } from '../schema/columns'
import type { DataType } from '../schema/types'
import { csvLines, exportFormat } from '../sql/csv'
import { jsonLines, streamRows } from '../streaming'
import { cohortByCode } from './store'
import { jsonValue } from '../../warehouse/values'
import { plannedValue } from '../schema/shownValues'
import { membersTable } from '../userSets/membership'
import type { CohortRow } from '../userSets/records'
import { resolveTags, type TagPick } from '../userSets/tagVersions'

/**
 * The users of a cohort (spec 4.5 cohort/users and its export): in distinct_id order, each a flat
 * object of the requested user properties (null when empty), distinct_id, xwho, and `tag.<code>`
 * for requested tags. Datetimes read yyyy-MM-dd HH:mm:ss; a masked property (plan masking 1)
 * reads MASK where it has a value.
 */

export const MASK = '******'
/** The most users one non-streamed answer returns (limit without paging, pageSize with it). */
export const MAX_BATCH = 100_000
export const DEFAULT_LIMIT = 1000

export interface UsersBody {
  cohortCode?: unknown
  limit?: unknown
  page?: unknown
  pageSize?: unknown
  properties?: unknown
  tags?: unknown
  /** The export only: json (JSON lines, the default) or csv. */
  format?: unknown
}

export interface UsersPage {
  count: number
  page: number
  size: number
  users: Record<string, unknown>[]
}

export interface OutColumn {
  key: string
  alias: string
  sql: string
  /** Reads profile_vd (as `u`). */
  profile?: boolean
  /** The plan type of a property column. */
  type?: DataType
  /**
   * A list property's test of a missing list, read beside it as `<alias>_missing`: ClickHouse keeps
   * no NULL list (a missing one is []), so the value alone cannot say null as DuckDB's does.
   */
  missing?: string
}

/** A cohort whose members have been computed; anything else is a 400 naming `cohortCode`. */
function usableCohort(meta: MetaDb, appKey: string, code: unknown): CohortRow {
  if (typeof code !== 'string' || code === '') throw badParam('cohortCode', 'cohortCode is required')
  const row = cohortByCode(meta, appKey, code)
  if (!row) throw badParam('cohortCode', `cohortCode: no cohort of this project has the code ${code}`)
  if (row.calculated_time === null) throw badParam('cohortCode', `cohortCode: the cohort ${code} has no members yet (status ${row.status})`)
  return row
}

interface PropertyRow {
  id: string
  data_type: DataType
  masking: boolean
}

/** The requested user properties (default: the visible ones of the plan), each as output SQL. */
export function propertyColumnsOf(meta: MetaDb, dialect: Dialect, appKey: string, value: unknown, existing: Set<string>): OutColumn[] {
  let rows: Stored<PropertyRow>[]
  if (value === undefined || value === null) {
    rows = meta
      .prepare('SELECT id, data_type, masking FROM plan_user_properties WHERE app_key = ? AND visible = 1 AND (plan = 1 OR data_status = 1) ORDER BY rowid')
      .all(appKey) as Stored<PropertyRow>[]
  } else {
    if (!Array.isArray(value)) throw badParam('properties', 'properties must be a list of user property ids')
    const find = meta.prepare('SELECT id, data_type, masking FROM plan_user_properties WHERE app_key = ? AND id = ?')
    rows = value.map((id, i) => {
      const row = typeof id === 'string' ? (find.get(appKey, id.toLowerCase()) as Stored<PropertyRow> | undefined) : undefined
      if (!row) throw badParam(`properties[${i}]`, `properties[${i}]: ${String(id)} is not a user property of this project`)
      return row
    })
  }
  const unique = [...new Map(rows.map((r) => [r.id, { ...r, masking: flag(r.masking) }])).values()]
  return unique.map((r, i) => {
    let sql = 'NULL'
    const profile = r.id !== 'xwho' && r.id !== 'distinct_id' && existing.has(r.id)
    if (r.id === 'xwho' || r.id === 'distinct_id') sql = `m.${r.id}`
    else if (profile) sql = r.data_type === 'datetime' ? dialect.formatStoredStamp(`u.${dialect.ident(r.id)}`) : `u.${dialect.ident(r.id)}`
    if (r.masking && sql !== 'NULL') sql = `CASE WHEN ${sql} IS NULL THEN NULL ELSE '${MASK}' END`
    const missing = profile && r.data_type === 'array<string>' ? dialect.listMissing(`u.${dialect.ident(r.id)}`, true) : undefined
    return { key: r.id, alias: `p${i}`, sql, profile, type: r.data_type, missing }
  })
}

/** The output columns in order: the properties, distinct_id and xwho (when not requested), the tags. */
export function outColumns(props: OutColumn[], tags: TagPick[]): OutColumn[] {
  const base = ['distinct_id', 'xwho'].filter((k) => !props.some((p) => p.key === k)).map((k) => ({ key: k, alias: k, sql: `m.${k}` }))
  return [...props, ...base, ...tags.map((t, i) => ({ key: t.key, alias: `t${i}`, sql: `m.tv${i}` }))]
}

/**
 * `members` with each tag's value at its version beside (columns tv0, tv1 …), one LEFT JOIN per
 * SELECT (ClickHouse 18.16 allows no more): every tag's join nests the previous ones.
 */
function withTags(members: string, tags: TagPick[], p: SqlParams): string {
  let relation = members
  tags.forEach((t, i) => {
    const kept = ['distinct_id', 'xwho', ...tags.slice(0, i).map((_, j) => `tv${j}`)].map((c) => `m.${c} AS ${c}`)
    relation = `(SELECT ${kept.join(', ')}, t.value AS tv${i}
      FROM ${relation} m LEFT JOIN (SELECT distinct_id, value FROM ${t.table} WHERE version = ${p.add(t.version)}) t ON t.distinct_id = m.distinct_id)`
  })
  return relation
}

/** The users of `members` (a table or relation with distinct_id and xwho) as output columns, in distinct_id order. */
export function selectSql(members: string, columns: OutColumn[], tags: TagPick[], p: SqlParams, window: { limit: number | null; offset: number }): string {
  const profile = columns.some((c) => c.profile)
  const reads = columns.map((c) => `${c.sql} AS ${c.alias}${c.missing ? `, ${c.missing} AS ${c.alias}_missing` : ''}`)
  return `SELECT ${reads.join(', ')}
    FROM ${withTags(members, tags, p)} m
    ${profile ? 'LEFT JOIN profile_vd u ON u.distinct_id = m.distinct_id' : ''}
    ORDER BY m.distinct_id
    ${window.limit === null ? '' : `LIMIT ${p.add(window.limit)}`} ${window.limit === null && window.offset === 0 ? '' : `OFFSET ${p.add(window.offset)}`}`
}

/** A column's value of a row as answered (a boolean is true/false on every engine). */
export function cellValue(row: Record<string, unknown>, c: OutColumn): unknown {
  if (c.missing && row[`${c.alias}_missing`]) return null
  return jsonValue(plannedValue(row[c.alias] ?? null, c.type) ?? null)
}

export function shape(row: Record<string, unknown>, columns: OutColumn[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const c of columns) out[c.key] = cellValue(row, c)
  return out
}

function whole(value: unknown, field: string, max?: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || (max !== undefined && value > max)) {
    throw badParam(field, `${field} must be a whole number from 1${max === undefined ? '' : ` to ${max}`}`)
  }
  return value
}

/**
 * Paging (spec 4.5, 8): without page, the first `limit` users (default 1000); with page (from 1),
 * pageSize is required and at most limit, and limit defaults to the cohort's user count.
 */
function windowOf(body: UsersBody, count: number): { offset: number; take: number; page: number } {
  const given = (v: unknown) => v !== undefined && v !== null
  if (!given(body.page)) {
    if (given(body.pageSize)) throw badParam('page', 'page is required with pageSize (pages start at 1)')
    return { offset: 0, take: given(body.limit) ? whole(body.limit, 'limit', MAX_BATCH) : DEFAULT_LIMIT, page: 1 }
  }
  const page = whole(body.page, 'page')
  if (!given(body.pageSize)) throw badParam('pageSize', 'pageSize is required with page')
  const pageSize = whole(body.pageSize, 'pageSize', MAX_BATCH)
  const limit = given(body.limit) ? whole(body.limit, 'limit') : count
  if (given(body.limit) && pageSize > limit) throw badParam('pageSize', `pageSize must not exceed limit (${limit})`)
  const offset = (page - 1) * pageSize
  return { offset, take: Math.max(0, Math.min(pageSize, limit - offset)), page }
}

export async function existingColumns(conn: Warehouse): Promise<Set<string>> {
  return new Set((await propertyColumns(conn, 'profile_vd')).keys())
}

export async function cohortUsers(ctx: DomainContext, scope: ProjectScope, body: UsersBody): Promise<UsersPage> {
  const cohort = usableCohort(ctx.meta, scope.appKey, body.cohortCode)
  const tags = resolveTags(ctx.meta, scope.appKey, body.tags)
  return ctx.warehouse.withConnection(scope.appKey, scope.timeZone, async (conn) => {
    const columns = outColumns(propertyColumnsOf(ctx.meta, dialectOf(ctx, scope), scope.appKey, body.properties, await existingColumns(conn)), tags)
    const count = Number((await conn.rows(`SELECT count(*) FROM ${membersTable(cohort.code)}`))[0][0])
    const { offset, take, page } = windowOf(body, count)
    if (take === 0) return { count, page, size: 0, users: [] }
    const p = dialectOf(ctx, scope).params()
    const sql = selectSql(membersTable(cohort.code), columns, tags, p, { limit: take, offset })
    const rows = (await conn.query(sql, p.values))
    const users = rows.map((r) => shape(r, columns))
    return { count, page, size: users.length, users }
  })
}

/**
 * The export: one JSON user object per line, or CSV (a header line of the same keys, then one line
 * per user; `bom` starts it with a byte-order mark), read in chunks (constant memory). Checks run
 * when the first piece is asked for, so a bad request is still an ordinary JSON error.
 */
export async function* exportCohortUsers(ctx: DomainContext, scope: ProjectScope, body: UsersBody, signal: AbortSignal, bom = false): AsyncGenerator<string> {
  ignoreUnknown(body as unknown as Record<string, unknown>, ['cohortCode', 'limit', 'properties', 'tags', 'format'])
  const format = exportFormat(body.format)
  const cohort = usableCohort(ctx.meta, scope.appKey, body.cohortCode)
  const limit = body.limit === undefined || body.limit === null ? null : whole(body.limit, 'limit')
  const tags = resolveTags(ctx.meta, scope.appKey, body.tags)
  const session = await ctx.warehouse.session(scope.appKey, scope.timeZone)
  let columns: OutColumn[]
  try {
    columns = outColumns(propertyColumnsOf(ctx.meta, dialectOf(ctx, scope), scope.appKey, body.properties, await existingColumns(session)), tags)
  } catch (err) {
    session.close()
    throw err
  }
  const p = dialectOf(ctx, scope).params()
  const sql = selectSql(membersTable(cohort.code), columns, tags, p, { limit, offset: 0 })
  const rows = streamRows(session, sql, p.values, signal)
  if (format === 'csv') {
    yield* csvLines(columns.map((c) => c.key), cells(rows, columns), bom)
    return
  }
  async function* shaped() {
    for await (const chunk of rows) yield chunk.map((r) => shape(r, columns))
  }
  yield* jsonLines(shaped())
}

async function* cells(chunks: AsyncIterable<Record<string, unknown>[]>, columns: OutColumn[]): AsyncGenerator<unknown[][]> {
  for await (const rows of chunks) yield rows.map((r) => columns.map((c) => cellValue(r, c)))
}
