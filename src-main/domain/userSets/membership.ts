import type { MetaDb } from '../../store/meta'

/**
 * Where a cohort's members live, and whether an analysis may use a cohort as a crowd. Kept apart
 * from the rest of the cohort engine (which builds on the analyses' SQL) so that the analyses can
 * read it without an import cycle.
 */

/** A cohort code: `c` + the cohort's id. */
export const CODE = /^c[0-9]{1,15}$/

/** The warehouse table of a cohort's members; the code is checked before it reaches SQL. */
export function membersTable(code: string): string {
  if (!CODE.test(code)) throw new Error(`not a cohort code: ${code}`)
  return `cohort_${code}`
}

/**
 * Why a cohort cannot be a crowd of the project, or null when it can: it must exist and have been
 * computed at least once (a cohort being recomputed serves its previous members meanwhile).
 */
export function cohortCheck(meta: MetaDb, appKey: string): (code: string) => string | null {
  const read = meta.prepare('SELECT status, calculated_time FROM cohorts WHERE app_key = ? AND code = ?')
  return (code) => {
    const row = read.get(appKey, code) as { status: string; calculated_time: number | null } | undefined
    if (!row) return `no cohort of this project has the code ${code}`
    if (row.calculated_time === null) return `the cohort ${code} has no members yet (status ${row.status})`
    return null
  }
}

/**
 * Refuses to replace a dimension table that happens to carry the name a cohort or tag table needs
 * (dimension names may start with cohort_ or tag_); the computation fails with this reason instead.
 */
export function dimensionNameClash(meta: MetaDb, appKey: string, table: string): string | null {
  const clash = meta.prepare('SELECT 1 FROM dimension_tables WHERE app_key = ? AND name = ?').get(appKey, table)
  return clash ? `the dimension table ${table} holds the name this table needs; rename or drop that dimension table` : null
}
