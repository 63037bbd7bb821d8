import type { MetaDb } from '../../store/meta'
import { ignoreUnknown } from '../ignored'
import { dialectOf, type DomainContext } from '../context'
import { badParam } from '../errors'
import type { ProjectScope } from '../project/scope'

/**
 * Reading tag values (spec 2.9: `tag.<code>` in user details). A tag's versions are snapshots in
 * the warehouse table `tag_<code>` (version, distinct_id, value); a request names tags as
 * `[{code, version?}]`, the latest version by default.
 */

/** A tag code: `t` + the tag's id. */
export const TAG_CODE = /^t[0-9]{1,15}$/

/** The warehouse table of a tag's versions; the code is checked before it reaches SQL. */
export function tagTable(code: string): string {
  if (!TAG_CODE.test(code)) throw new Error(`not a tag code: ${code}`)
  return `tag_${code}`
}

/** One requested tag, resolved: its table, the version to read and the key it fills. */
export interface TagPick {
  code: string
  version: number
  table: string
  /** `tag.<code>` */
  key: string
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Checks `tags` of a request against the project's tags; `field` names it in a 400 (`tags[i].code`
 * for an unknown tag or one with no version yet, `tags[i].version` for a version it does not have).
 */
export function resolveTags(meta: MetaDb, appKey: string, value: unknown, field = 'tags'): TagPick[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) throw badParam(field, `${field} must be a list of {code, version}`)
  const tagOf = meta.prepare('SELECT id FROM tags WHERE app_key = ? AND code = ?').pluck()
  const versions = meta.prepare('SELECT version FROM tag_versions WHERE tag_id = ? ORDER BY version').pluck()
  const seen = new Set<string>()
  return value.map((t, i) => {
    const path = `${field}[${i}]`
    if (!isRecord(t)) throw badParam(path, `${path} must be an object {code, version}`)
    ignoreUnknown(t, ['code', 'version'], path)
    if (typeof t.code !== 'string' || t.code === '') throw badParam(`${path}.code`, `${path}.code is required`)
    const id = tagOf.get(appKey, t.code) as number | undefined
    if (id === undefined) throw badParam(`${path}.code`, `${path}.code: no tag of this project has the code ${t.code}`)
    if (seen.has(t.code)) throw badParam(`${path}.code`, `${path}.code: the tag ${t.code} is requested twice`)
    seen.add(t.code)
    const known = versions.all(id) as number[]
    let version: number
    if (t.version === undefined || t.version === null) {
      if (known.length === 0) throw badParam(`${path}.code`, `${path}.code: the tag ${t.code} has no computed version yet`)
      version = known[known.length - 1]
    } else {
      if (typeof t.version !== 'number' || !known.includes(t.version)) {
        throw badParam(`${path}.version`, `${path}.version: the tag ${t.code} has ${known.length === 0 ? 'no versions yet' : `versions ${known.join(', ')}`}`)
      }
      version = t.version
    }
    return { code: t.code, version, table: tagTable(t.code), key: `tag.${t.code}` }
  })
}

/**
 * The values of the requested tags (the `tags` of a request, as sent) for some users: per
 * distinct_id an object of `tag.<code>` -> value, null where the user has none at that version.
 * Every user asked for is in the answer. For user details (people) and anything else that shows users.
 */
export async function tagValuesFor(
  ctx: DomainContext,
  scope: ProjectScope,
  distinctIds: number[],
  requestedTags: unknown,
): Promise<Map<number, Record<string, string | null>>> {
  const picks = resolveTags(ctx.meta, scope.appKey, requestedTags)
  const out = new Map<number, Record<string, string | null>>()
  for (const id of distinctIds) out.set(id, Object.fromEntries(picks.map((p) => [p.key, null])))
  if (picks.length === 0 || distinctIds.length === 0) return out
  await ctx.warehouse.withConnection(scope.appKey, scope.timeZone, async (conn) => {
    for (const pick of picks) {
      const p = dialectOf(ctx, scope).params()
      const rows = await conn.rows(
        `SELECT distinct_id, value FROM ${pick.table} WHERE version = ${p.add(pick.version)} AND ${dialectOf(ctx, scope).inIds('distinct_id', distinctIds.filter(Number.isSafeInteger), p)}`,
        p.values,
      )
      for (const [id, value] of rows) {
        const user = out.get(Number(id))
        if (user) user[pick.key] = value === null ? null : String(value)
      }
    }
  })
  return out
}
