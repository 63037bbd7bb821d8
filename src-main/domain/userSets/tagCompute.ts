import type { Warehouse } from '../../warehouse'
import type { MetaDb } from '../../store/meta'
import type { Dialect, SqlParams } from '../../warehouse/dialect'
import { columnsOf } from './cohortCompute'
import { hasUsers, loadValues } from './fileMatch'
import { contentSql, usersFrom } from './ruleSql'
import { validateContent } from './rules'
import { materialiseRun, newRun, resumeRuns, startRun, type Computation } from './runs'
import { currentTime } from '../time/clock'
import { localStamp } from '../time/stamp'
import { dialectOf, type DomainContext } from '../context'
import { forgetOutcomes, prepareOutcomes, sealOutcome } from '../outcomes'
import { testPause } from '../../testPause'
import type { ProjectScope } from '../project/scope'
import { inTransaction } from '../schema/dimensionWarehouse'
import { planLookup } from '../schema/lookup'
import type { TagRow } from './records'
import { tagTable } from './tagVersions'

/**
 * Computing a tag adds its next version to `tag_<code>` (version INTEGER, distinct_id BIGINT,
 * value VARCHAR), in one transaction inside the project's write lock; earlier versions stay. Runs
 * and failures work as for cohorts (runs.ts).
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

/** An empty select of the right shape, for a project without users. */
function noValues(dialect: Dialect): string {
  return `SELECT ${dialect.cast('NULL', 'bigint')} AS distinct_id, ${dialect.cast('NULL', 'string')} AS value WHERE ${dialect.truth(false)}`
}

/** Users with the value of the first rule they match; the contents are checked against today's plan. */
async function ruleSelect(ctx: DomainContext, conn: Warehouse, row: TagRow, scope: ProjectScope, now: number, p: SqlParams): Promise<string> {
  const columns = await columnsOf(conn)
  const env = { meta: ctx.meta, appKey: scope.appKey, lookup: planLookup(ctx.meta, scope.appKey), columns }
  const rules = JSON.parse(row.rules ?? '[]') as TagRule[]
  const checked = rules.map((r, i) => validateContent(r.content, `rules[${i}].content`, env))
  if (!(await hasUsers(conn, dialectOf(ctx, scope)))) return noValues(dialectOf(ctx, scope))
  const sqlEnv = { dialect: dialectOf(ctx, scope), columns, nowLocal: dialectOf(ctx, scope).localNow(now), today: localStamp(now, scope.timeZone).slice(0, 10) }
  const parts = checked.map((c) => contentSql(c, sqlEnv, p))
  const cases = parts.map((part, i) => `WHEN ${part.condition} THEN ${p.add(rules[i].value)}`).join(' ')
  return `SELECT e.distinct_id, CASE ${cases} END AS value
    FROM ${usersFrom(parts)}
    WHERE ${parts.map((part) => part.condition).join(' OR ')}`
}

async function fileSelect(ctx: DomainContext, conn: Warehouse, row: TagRow, scope: ProjectScope): Promise<{ select: string; matched: number }> {
  const rows = ctx.meta.prepare('SELECT xwho, value FROM tag_file_values WHERE tag_id = ?').all(row.id) as { xwho: string; value: string }[]
  await loadValues(
    conn,
    dialectOf(ctx, scope),
    'file_values',
    rows.map((r) => r.xwho),
    rows.map((r) => r.value),
  )
  if (!(await hasUsers(conn, dialectOf(ctx, scope)))) return { select: noValues(dialectOf(ctx, scope)), matched: 0 }
  const matched = Number((await conn.rows('SELECT count(*) FROM file_values WHERE value IN (SELECT xwho FROM user_ids)'))[0][0])
  // a user merged by $alias may be listed by several of its ids: the value of its login id wins, else the first id's
  return {
    select: `SELECT e.distinct_id, ${dialectOf(ctx, scope).firstBy('f.label', ['e.xwho IN (SELECT original_id FROM user_aliases)', 'e.xwho'])} AS value
      FROM user_ids e JOIN file_values f ON f.value = e.xwho GROUP BY e.distinct_id`,
    matched,
  }
}

/** What a tag run seals with its version (domain/outcomes.ts). */
export interface SealedTagRun {
  version: number
  userNumber: number
  now: number
}

export const tagRunKey = (id: number, run: number): string => `tag:${id}:${run}`

/** Records a computed version of a tag and marks the run a success (again after a crash: no harm). */
export function recordTagVersion(meta: MetaDb, id: number, run: number, sealed: SealedTagRun): void {
  meta.transaction(() => {
    meta.prepare('INSERT OR IGNORE INTO tag_versions (tag_id, version, user_number, calculated_time) VALUES (?, ?, ?, ?)').run(id, sealed.version, sealed.userNumber, sealed.now)
    meta.prepare(`UPDATE tags SET status = 'success', fail_reason = NULL, update_time = ? WHERE id = ? AND run = ?`).run(sealed.now, id, run)
  })()
}

const TAGS: Computation<TagRow, TagOutcome> = {
  table: 'tags',
  label: 'tag',
  notesAttempt: false,
  // a tag has no flags
  row: (stored) => stored,
  warehouseTable: tagTable,
  fileSelect,
  ruleSelect,
  async store(ctx, conn, { appKey, row, run, now, table, select, p, matched }) {
    const id = row.id
    const version = (ctx.meta.prepare('SELECT COALESCE(max(version), 0) + 1 FROM tag_versions WHERE tag_id = ?').pluck().get(id) as number) ?? 1
    // made before the transaction: on ClickHouse the sealed record is then staged with the rows
    await prepareOutcomes(conn)
    const d = dialectOf(ctx, { appKey })
    const userNumber = await inTransaction(conn, async () => {
      await conn.run(d.tagVersionsTable(table))
      // a version left by a run whose metadata write never happened is replaced
      const older = d.params()
      const present = (await conn.rows(`SELECT DISTINCT version FROM ${table} WHERE version >= ${older.add(version)}`, older.values)).map((r) => Number(r[0]))
      for (const drop of d.dropTagVersions(table, version, present)) await conn.run(drop.sql, drop.values)
      // the rows the insert wrote: ClickHouse stages them, unseen by a count until the commit
      const n = await conn.run(`INSERT INTO ${table} SELECT ${p.add(version)}, distinct_id, value FROM (${select}) ORDER BY distinct_id`, p.values)
      // the run's outcome commits with its version: a crash before the metadata below is settled at start-up
      await sealOutcome(conn, tagRunKey(id, run), { version, userNumber: n, now } satisfies SealedTagRun)
      await testPause('before-commit', `tag ${id}`)
      return n
    })
    await testPause('after-commit', `tag ${id}`)
    recordTagVersion(ctx.meta, id, run, { version, userNumber, now })
    await forgetOutcomes(conn, [tagRunKey(id, run)]).catch(() => undefined)
    return { version, userNumber, matched }
  },
}

/** Computes run `run` of tag `id` as its next version; null when overtaken. Failures are recorded and rethrown. */
export function materialiseTag(ctx: DomainContext, id: number, run: number, now: number): Promise<TagOutcome | null> {
  return materialiseRun(ctx, TAGS, id, run, now)
}

export function newTagRun(meta: MetaDb, id: number, now: number): number {
  return newRun(meta, TAGS, id, now)
}

export function startTagComputation(ctx: DomainContext, id: number, now: number): number {
  return startRun(ctx, TAGS, id, now)
}

/** Tag computations cut short by a stop start again. */
export function resumeTags(ctx: DomainContext, now: number = currentTime()): number[] {
  return resumeRuns(ctx, TAGS, now)
}
