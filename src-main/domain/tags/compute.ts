import type { DuckDBConnection } from '@duckdb/node-api'
import type { MetaDb } from '../../store/meta'
import { currentTime } from '../analysis/clock'
import { localStamp } from '../analysis/runner'
import { SqlParams } from '../analysis/sqlParams'
import { nowLocalSql, scopeOf, UNEXPECTED } from '../cohorts/compute'
import { hasUsers, loadValues } from '../cohorts/fileMatch'
import { dimensionNameClash } from '../cohorts/membership'
import { contentSql, usersFrom } from '../cohorts/ruleSql'
import { validateContent } from '../cohorts/rules'
import type { DomainContext } from '../context'
import { AppError } from '../errors'
import type { ProjectScope } from '../platform/projects'
import { propertyColumns } from '../schema/columns'
import { inTransaction } from '../schema/dimensionWarehouse'
import { planLookup } from '../schema/lookup'
import { withWriteLock } from '../writeLock'
import type { TagRow } from './store'
import { tagTable } from './versions'

/**
 * Computing a tag adds its next version to `tag_<code>` (version INTEGER, distinct_id BIGINT,
 * value VARCHAR), in one transaction inside the project's write lock; earlier versions stay. Like
 * cohorts, each start bumps `run` and an overtaken run writes nothing.
 */

export interface TagRule {
  value: string
  content: unknown
}

export interface TagOutcome {
  version: number
  userNumber: number
  /** File tags: rows of the file whose xwho is a known user. */
  matched?: number
}

const NO_VALUES = 'SELECT CAST(NULL AS BIGINT) AS distinct_id, CAST(NULL AS VARCHAR) AS value WHERE false'

/** Users with the value of the first rule they match; the contents are checked against today's plan. */
async function ruleSelect(ctx: DomainContext, conn: DuckDBConnection, row: TagRow, scope: ProjectScope, now: number, p: SqlParams): Promise<string> {
  const columns = { event: new Set((await propertyColumns(conn, 'event_vd')).keys()), user: new Set((await propertyColumns(conn, 'profile_vd')).keys()) }
  const env = { meta: ctx.meta, appKey: scope.appKey, lookup: planLookup(ctx.meta, scope.appKey), columns }
  const rules = JSON.parse(row.rules ?? '[]') as TagRule[]
  const checked = rules.map((r, i) => validateContent(r.content, `rules[${i}].content`, env))
  if (!(await hasUsers(conn))) return NO_VALUES
  const sqlEnv = { columns, nowLocal: nowLocalSql(now), today: localStamp(now, scope.timeZone).slice(0, 10) }
  const parts = checked.map((c, i) => contentSql(c, `t${i}`, sqlEnv, p))
  const ctes = parts.flatMap((part) => part.ctes)
  const cases = parts.map((part, i) => `WHEN ${part.condition} THEN ${p.add(rules[i].value)}`).join(' ')
  return `${ctes.length > 0 ? `WITH ${ctes.join(',\n    ')}` : ''}
    SELECT e.distinct_id, CASE ${cases} END AS value
    FROM ${usersFrom(parts)}
    WHERE ${parts.map((part) => part.condition).join(' OR ')}`
}

async function fileSelect(ctx: DomainContext, conn: DuckDBConnection, row: TagRow): Promise<{ select: string; matched: number }> {
  const rows = ctx.meta.prepare('SELECT xwho, value FROM tag_file_values WHERE tag_id = ?').all(row.id) as { xwho: string; value: string }[]
  await loadValues(
    conn,
    'file_values',
    rows.map((r) => r.xwho),
    rows.map((r) => r.value),
  )
  if (!(await hasUsers(conn))) return { select: NO_VALUES, matched: 0 }
  const matched = Number((await conn.runAndReadAll('SELECT count(*) FROM file_values WHERE value IN (SELECT xwho FROM user_ids)')).getRows()[0][0])
  return { select: 'SELECT e.distinct_id, f.label AS value FROM user_ids e JOIN file_values f ON f.value = e.xwho', matched }
}

function currentRun(meta: MetaDb, id: number, run: number): TagRow | undefined {
  return meta.prepare('SELECT * FROM tags WHERE id = ? AND run = ?').get(id, run) as TagRow | undefined
}

/** Computes run `run` of tag `id` as its next version; null when overtaken. Failures are recorded and rethrown. */
export async function materialiseTag(ctx: DomainContext, id: number, run: number, now: number): Promise<TagOutcome | null> {
  const appKey = ctx.meta.prepare('SELECT app_key FROM tags WHERE id = ?').pluck().get(id) as string | undefined
  if (!appKey) return null
  const scope = scopeOf(ctx.meta, appKey)
  try {
    return await withWriteLock(ctx, appKey, () =>
      ctx.warehouse.withConnection(appKey, scope.timeZone, async (conn) => {
        const row = currentRun(ctx.meta, id, run)
        if (!row) return null
        const table = tagTable(row.code)
        const clash = dimensionNameClash(ctx.meta, appKey, table)
        if (clash) throw new AppError(400, 400, clash)
        const p = new SqlParams()
        let matched: number | undefined
        let select: string
        if (row.source === 'file') ({ select, matched } = await fileSelect(ctx, conn, row))
        else select = await ruleSelect(ctx, conn, row, scope, now, p)
        const version = (ctx.meta.prepare('SELECT COALESCE(max(version), 0) + 1 FROM tag_versions WHERE tag_id = ?').pluck().get(id) as number) ?? 1
        const userNumber = await inTransaction(conn, async () => {
          await conn.run(`CREATE TABLE IF NOT EXISTS ${table} (version INTEGER NOT NULL, distinct_id BIGINT NOT NULL, value VARCHAR)`)
          // a version left by a run whose metadata write never happened is replaced
          await conn.run(`DELETE FROM ${table} WHERE version >= $1`, [version])
          await conn.run(`INSERT INTO ${table} SELECT ${p.add(version)}, distinct_id, value FROM (${select}) ORDER BY distinct_id`, p.values as never)
          return Number((await conn.runAndReadAll(`SELECT count(*) FROM ${table} WHERE version = $1`, [version])).getRows()[0][0])
        })
        ctx.meta.transaction(() => {
          ctx.meta.prepare('INSERT INTO tag_versions (tag_id, version, user_number, calculated_time) VALUES (?, ?, ?, ?)').run(id, version, userNumber, now)
          ctx.meta.prepare(`UPDATE tags SET status = 'success', fail_reason = NULL, update_time = ? WHERE id = ? AND run = ?`).run(now, id, run)
        })()
        return { version, userNumber, matched }
      }),
    )
  } catch (err) {
    const reason = err instanceof AppError ? err.message : UNEXPECTED
    ctx.meta.prepare(`UPDATE tags SET status = 'failed', fail_reason = ? WHERE id = ? AND run = ?`).run(reason, id, run)
    throw err
  }
}

export function newTagRun(meta: MetaDb, id: number): number {
  meta.prepare(`UPDATE tags SET status = 'calculating', fail_reason = NULL, run = run + 1 WHERE id = ?`).run(id)
  return meta.prepare('SELECT run FROM tags WHERE id = ?').pluck().get(id) as number
}

export function startTagComputation(ctx: DomainContext, id: number, now: number): number {
  const run = newTagRun(ctx.meta, id)
  ctx.background.run(`tag ${id} run ${run}`, async () => {
    try {
      await materialiseTag(ctx, id, run, now)
    } catch (err) {
      if (!(err instanceof AppError)) throw err
    }
  })
  return run
}

/** Tag computations cut short by a stop start again. */
export function resumeTags(ctx: DomainContext, now: number = currentTime()): number[] {
  const ids = ctx.meta.prepare(`SELECT id FROM tags WHERE status = 'calculating' ORDER BY id`).pluck().all() as number[]
  for (const id of ids) startTagComputation(ctx, id, now)
  return ids
}
