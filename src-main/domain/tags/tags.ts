import { currentTime } from '../time/clock'
import { ignoreUnknown } from '../ignored'
import { validateContent } from '../userSets/rules'
import { readColumns, type SheetFile } from '../userSets/sheet'
import type { DomainContext, Operator } from '../context'
import { badParam } from '../errors'
import { checkOwner } from '../platform/owners'
import { localStamp } from '../time/stamp'
import { recordOperation } from '../project/operations'
import type { ProjectScope } from '../project/scope'
import { planLookup } from '../schema/lookup'
import { withWriteLock } from '../writeLock'
import { materialiseTag, newTagRun, startTagComputation, type TagRule } from '../userSets/tagCompute'
import { existingTag, insertTag, tagView, type TagView } from './store'
import { checkName, type TagRow } from '../userSets/records'
import { tagTable } from '../userSets/tagVersions'

/** Tags (a UBA Desk definition; see tags/store.ts and userSets/records.ts): create from rules or a file, list, recalculate, delete. */

export const TAG_LIMITS = { rules: 50, value: 200 } as const

export interface NewTag {
  name: unknown
  rules: unknown
}

function rulesOf(ctx: DomainContext, appKey: string, value: unknown): TagRule[] {
  if (!Array.isArray(value) || value.length === 0) throw badParam('rules', 'rules must be a non-empty list of {value, content}')
  if (value.length > TAG_LIMITS.rules) throw badParam('rules', `rules holds at most ${TAG_LIMITS.rules} rules`)
  const env = { meta: ctx.meta, appKey, lookup: planLookup(ctx.meta, appKey), columns: { event: new Set<string>(), user: new Set<string>() } }
  return value.map((r, i) => {
    if (typeof r !== 'object' || r === null || Array.isArray(r)) throw badParam(`rules[${i}]`, `rules[${i}] must be an object {value, content}`)
    const rule = r as Record<string, unknown>
    ignoreUnknown(rule, ['value', 'content'], `rules[${i}]`)
    if (typeof rule.value !== 'string' || rule.value.trim() === '' || rule.value.length > TAG_LIMITS.value) {
      throw badParam(`rules[${i}].value`, `rules[${i}].value must be a text of 1-${TAG_LIMITS.value} characters`)
    }
    if (rule.content === undefined || rule.content === null) throw badParam(`rules[${i}].content`, `rules[${i}].content is required: {ruleGroup, relations}`)
    return { value: rule.value, content: validateContent(rule.content, `rules[${i}].content`, env).plain }
  })
}

export function createTag(ctx: DomainContext, scope: ProjectScope, input: NewTag, operator: Operator | null): { id: number; code: string; name: string; status: 'calculating'; createTime: string } {
  const name = checkName(input.name)
  const rules = rulesOf(ctx, scope.appKey, input.rules)
  const now = currentTime()
  const row = insertTag(ctx.meta, scope.appKey, { name, source: 'rule', rules: JSON.stringify(rules), operator, now })
  recordOperation(ctx.meta, operator, 'tag.create', scope.appKey, row.code)
  startTagComputation(ctx, row.id, now)
  return { id: row.id, code: row.code, name: row.name, status: 'calculating', createTime: localStamp(now, scope.timeZone) }
}

/**
 * A file of two columns, xwho and value (a first row "xwho", any case, is a header). Rows with an
 * empty cell are left out; when an xwho repeats, its last row wins.
 */
function fileRows(file: SheetFile | null): Map<string, string> {
  if (!file) throw badParam('file', 'file is required: an Excel or CSV file with two columns, xwho and value')
  const rows = readColumns(file, 2)
  if (rows[0]?.[0].toLowerCase() === 'xwho') rows.shift()
  const values = new Map<string, string>()
  for (const [xwho, value] of rows) {
    if (xwho === '' || value === '') continue
    if (value.length > TAG_LIMITS.value) throw badParam('file', `a value of the file is longer than ${TAG_LIMITS.value} characters: ${value.slice(0, 40)}...`)
    values.set(xwho, value)
  }
  if (values.size === 0) throw badParam('file', 'the file holds no rows with both an xwho and a value')
  return values
}

export async function createFileTag(
  ctx: DomainContext,
  scope: ProjectScope,
  input: { name: unknown; file: SheetFile | null },
  operator: Operator | null,
): Promise<{ id: number; code: string; name: string; version: number; userNumber: number; matched: number; unmatched: number }> {
  const name = checkName(input.name)
  const values = fileRows(input.file)
  const now = currentTime()
  const row = ctx.meta.transaction(() => {
    const inserted = insertTag(ctx.meta, scope.appKey, { name, source: 'file', rules: null, operator, now })
    const add = ctx.meta.prepare('INSERT INTO tag_file_values (tag_id, xwho, value) VALUES (?, ?, ?)')
    for (const [xwho, value] of values) add.run(inserted.id, xwho, value)
    return inserted
  })()
  const run = newTagRun(ctx.meta, row.id, now)
  try {
    const outcome = await materialiseTag(ctx, row.id, run, now)
    if (!outcome) throw new Error(`tag ${row.code} was overtaken while it was created`)
    recordOperation(ctx.meta, operator, 'tag.byfile', scope.appKey, row.code)
    const matched = outcome.matched ?? 0
    return { id: row.id, code: row.code, name: row.name, version: outcome.version, userNumber: outcome.userNumber, matched, unmatched: values.size - matched }
  } catch (err) {
    await dropTag(ctx, scope, row)
    throw err
  }
}

export function listTags(ctx: DomainContext, scope: ProjectScope): TagView[] {
  const rows = ctx.meta.prepare('SELECT * FROM tags WHERE app_key = ? ORDER BY id').all(scope.appKey) as TagRow[]
  return rows.map((r) => tagView(ctx.meta, r, scope))
}

/** Computes the tag's next version in the background. */
export function recalculateTag(ctx: DomainContext, scope: ProjectScope, code: string, operator: Operator | null): { code: string; status: 'calculating' } {
  const row = existingTag(ctx.meta, scope.appKey, code)
  recordOperation(ctx.meta, operator, 'tag.recalculate', scope.appKey, row.code)
  startTagComputation(ctx, row.id, currentTime())
  return { code: row.code, status: 'calculating' }
}

async function dropTag(ctx: DomainContext, scope: ProjectScope, row: TagRow): Promise<void> {
  await withWriteLock(ctx, scope.appKey, async () => {
    ctx.meta.prepare('DELETE FROM tags WHERE id = ?').run(row.id)
    await ctx.warehouse.withConnection(scope.appKey, scope.timeZone, async (conn) => {
      // on a shared ClickHouse database, another data folder's table of this name stays
      if (conn.dropOwnTable) await conn.dropOwnTable(tagTable(row.code))
      else await conn.run(`DROP TABLE IF EXISTS ${tagTable(row.code)}`)
    })
  })
}

/** Removes a tag, every version of it; only its creator may (as for cohorts). */
export async function deleteTag(ctx: DomainContext, scope: ProjectScope, code: string, operator: Operator | null): Promise<void> {
  const row = existingTag(ctx.meta, scope.appKey, code)
  checkOwner(row, operator, 'tag')
  await dropTag(ctx, scope, row)
  recordOperation(ctx.meta, operator, 'tag.delete', scope.appKey, row.code)
}
