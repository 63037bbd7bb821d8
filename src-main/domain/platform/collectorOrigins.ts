import type { MetaDb } from '../../store/meta'
import type { DomainContext, Operator } from '../context'
import { badParam } from '../errors'
import { recordOperation } from '../project/operations'
import { originList, ProjectStatus } from './projects'

/**
 * Which web origins may upload a project's records to the collector. The collector is write-only
 * and gated by the project's data stream, so by default any origin may (an app under test on
 * http://shop.test:8080, a page opened from a file, a phone's web view); a project can narrow it
 * to a list. Only browser requests carry an origin: SDKs on servers and phones are never refused.
 */

/** Most origins one project may list. */
const MAX_ORIGINS = 50

/** `scheme://host[:port]` as a browser sends it in Origin, or the opaque origin `null`. */
export function normalOrigin(text: string): string | null {
  if (text === 'null') return text
  try {
    const url = new URL(text)
    if (!/^[a-z][a-z0-9+.-]*:$/.test(url.protocol) || url.host === '' || url.origin === 'null') return null
    return url.origin === text.replace(/\/$/, '') ? url.origin : null
  } catch {
    return null
  }
}

export function collectorOrigins(meta: MetaDb, appKey: string): string[] {
  const text = meta.prepare('SELECT collector_origins FROM projects WHERE app_key = ?').pluck().get(appKey) as string | undefined
  return originList(text)
}

/** Replaces the project's list (empty: any origin); answers the stored list. */
export function setCollectorOrigins(ctx: DomainContext, appKey: string, origins: string[], operator: Operator | null): string[] {
  const status = ctx.meta.prepare('SELECT status FROM projects WHERE app_key = ?').pluck().get(appKey) as number | undefined
  if (status === undefined) throw badParam('appKey', `project ${appKey} does not exist`)
  if (status !== ProjectStatus.normal) throw badParam('appKey', `project ${appKey} is not available`)
  if (origins.length > MAX_ORIGINS) throw badParam('allowedOrigins', `allowedOrigins lists at most ${MAX_ORIGINS} origins`)
  const normal: string[] = []
  for (const origin of origins) {
    const o = normalOrigin(origin)
    if (o === null) throw badParam('allowedOrigins', `${JSON.stringify(origin)} is not a web origin (scheme://host[:port], or null for pages opened from a file)`)
    if (!normal.includes(o)) normal.push(o)
  }
  ctx.meta.prepare('UPDATE projects SET collector_origins = ? WHERE app_key = ?').run(JSON.stringify(normal), appKey)
  recordOperation(ctx.meta, operator, 'collector.origins', appKey, normal.join(' ') || '*')
  return normal
}

/** May a browser page on `origin` upload to this project? (undefined: not a browser request) */
export function originMayUpload(meta: MetaDb, appKey: string, origin: string | undefined): boolean {
  if (origin === undefined) return true
  const allowed = collectorOrigins(meta, appKey)
  return allowed.length === 0 || allowed.includes(origin)
}
