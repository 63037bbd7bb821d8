import type { MetaDb } from '../../store/meta'

/**
 * A project's data version: bumped by every change that can change an analysis result (loads,
 * plan changes such as virtual events, dimension tables, cohorts). Cached results are valid only
 * for the version they were computed at.
 */
export function dataChanged(meta: MetaDb, appKey: string): void {
  meta.prepare('UPDATE projects SET data_version = data_version + 1 WHERE app_key = ?').run(appKey)
}

export function dataVersion(meta: MetaDb, appKey: string): number {
  return (meta.prepare('SELECT data_version FROM projects WHERE app_key = ?').pluck().get(appKey) as number | undefined) ?? 0
}
