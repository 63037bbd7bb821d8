import { ignoreUnknown } from '../ignored'
import { dialectOf, type DomainContext } from '../context'
import { badParam } from '../errors'
import { resolveTags, tagValuesFor } from '../userSets/tagVersions'
import type { ProjectScope } from '../project/scope'
import { findUser, queryOn, userKeyOf, withoutUserKey, type UserKey } from './users'
import { maskedUserProperties, plannedValue, shownValue } from '../schema/shownValues'
import { flag } from '../../store/meta/flags'

interface PlanType {
  id: string
  data_type: string
}

/**
 * One user's detail (spec 2.9, 4.6): a flat object of user property ids to values (null when
 * empty), then `tag.<code>` keys for the requested tags (their values come from domain/tags).
 */

const FIELDS = ['properties', 'tags']

function knownFields(body: Record<string, unknown>): void {
  ignoreUnknown(body, FIELDS)
}

/**
 * The user properties to show. Requested ids must be user properties of the plan (else 400 naming
 * `properties[i]`); repeats are shown once. Omitted or []: every visible user property, `xwho`
 * first, then as the plan lists them (preset first, then by id); hidden ones (such as
 * `distinct_id`) only when asked for by id.
 */
export function detailProperties(ctx: DomainContext, appKey: string, value: unknown): string[] {
  const rows = ctx.meta.prepare('SELECT id, visible FROM plan_user_properties WHERE app_key = ? ORDER BY preset DESC, id').all(appKey) as { id: string; visible: number }[]
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) {
    const visible = rows.filter((r) => flag(r.visible)).map((r) => r.id)
    return visible.includes('xwho') ? ['xwho', ...visible.filter((id) => id !== 'xwho')] : visible
  }
  if (!Array.isArray(value)) throw badParam('properties', 'properties must be an array of user property ids')
  const known = new Set(rows.map((r) => r.id))
  value.forEach((id, i) => {
    if (typeof id !== 'string' || !known.has(id)) throw badParam(`properties[${i}]`, `properties[${i}]: ${String(id)} is not a user property of this project`)
  })
  return [...new Set(value as string[])]
}

/** A user's detail. Unknown user: 400 naming `xwho` or `distinctId`. */
export async function userDetail(ctx: DomainContext, scope: ProjectScope, key: UserKey, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  knownFields(body)
  const properties = detailProperties(ctx, scope.appKey, body.properties)
  // checked before the user is looked up, so a bad tag is refused whoever is asked for
  const tags = resolveTags(ctx.meta, scope.appKey, body.tags)
  const masked = maskedUserProperties(ctx.meta, scope.appKey)
  const { user, profile } = await ctx.warehouse.withConnection(scope.appKey, scope.timeZone, async (conn) => {
    const query = queryOn(conn)
    const user = await findUser(query, dialectOf(ctx, scope), key)
    const p = dialectOf(ctx, scope).params()
    // every profile column: the few that were asked for are picked below, a missing one is null
    // (SELECT * EXCLUDE fails on a profile table without property columns)
    const rows = await query(`SELECT * FROM profile_vd WHERE distinct_id = ${p.add(user.distinctId)}`, p)
    const { distinct_id: _id, xwho: _who, ...profile } = rows[0] ?? {}
    // an empty list may be a missing one (ClickHouse keeps no NULL list): the engine's test says which
    for (const id of properties) {
      const list = profile[id]
      if (!Array.isArray(list) || list.length > 0) continue
      const d = dialectOf(ctx, scope)
      const q = d.params()
      const [row] = await query(`SELECT ${d.listMissing(d.ident(id), true)} AS missing FROM profile_vd WHERE distinct_id = ${q.add(user.distinctId)}`, q)
      if (row?.missing) profile[id] = null
    }
    return { user, profile }
  })
  const base: Record<string, unknown> = { ...profile, xwho: user.xwho, distinct_id: user.distinctId }
  const types = new Map(ctx.meta.prepare('SELECT id, data_type FROM plan_user_properties WHERE app_key = ?').all(scope.appKey).map((r) => [(r as PlanType).id, (r as PlanType).data_type]))
  const detail: Record<string, unknown> = {}
  for (const id of properties) detail[id] = shownValue(plannedValue(base[id], types.get(id)), masked.has(id))
  if (tags.length > 0) Object.assign(detail, (await tagValuesFor(ctx, scope, [user.distinctId], body.tags)).get(user.distinctId))
  return detail
}

/** POST /uba/api/users/personal: the user named by exactly one of `distinctId` and `xwho`. */
export async function personalDetail(ctx: DomainContext, scope: ProjectScope, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  return userDetail(ctx, scope, userKeyOf(body), withoutUserKey(body))
}
