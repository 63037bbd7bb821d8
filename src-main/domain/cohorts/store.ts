import type { MetaDb } from '../../store/meta'
import { asFlag, type Stored } from '../../store/meta/flags'
import { localStamp } from '../time/stamp'
import type { Operator } from '../context'
import { alreadyExists, badParam, quotaReached } from '../errors'
import { creatorName } from '../platform/owners'
import { cohortRow, type CohortRow, type CohortSource, type CohortStatus } from '../userSets/records'
import type { ProjectScope } from '../project/scope'

/**
 * The cohort records in the metadata database (migration 4) and their API shape (spec 2.6).
 * Codes are `c` + the cohort's id (`c12`): unique across projects, never reused after a delete
 * (ids come from AUTOINCREMENT), and safe as an identifier part, so the members live in the
 * warehouse table `cohort_<code>` (`cohort_c12`).
 */

/** The settings key of the most cohorts a project may hold, and its default. */
export const QUOTA_KEY = 'quota.cohorts'
export const DEFAULT_QUOTA = 500

export function cohortById(meta: MetaDb, appKey: string, id: number): CohortRow | undefined {
  const row = meta.prepare('SELECT * FROM cohorts WHERE app_key = ? AND id = ?').get(appKey, id) as Stored<CohortRow> | undefined
  return row && cohortRow(row)
}

export function cohortByCode(meta: MetaDb, appKey: string, code: string): CohortRow | undefined {
  const row = meta.prepare('SELECT * FROM cohorts WHERE app_key = ? AND code = ?').get(appKey, code) as Stored<CohortRow> | undefined
  return row && cohortRow(row)
}

/** A cohort of the project by its path id; unknown is a 400 naming `id`. */
export function existingCohort(meta: MetaDb, appKey: string, id: number): CohortRow {
  const row = cohortById(meta, appKey, id)
  if (!row) throw badParam('id', `no cohort of this project has the id ${id}`)
  return row
}

export function cohortQuota(meta: MetaDb): number {
  const value = meta.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(QUOTA_KEY) as string | undefined
  const n = Number(value)
  return value !== undefined && Number.isInteger(n) && n >= 0 ? n : DEFAULT_QUOTA
}

/** Name free and quota not reached; call inside the transaction that inserts. */
export function checkRoom(meta: MetaDb, appKey: string, name: string): void {
  if (meta.prepare('SELECT 1 FROM cohorts WHERE app_key = ? AND name = ?').get(appKey, name)) throw alreadyExists(`a cohort named ${name} already exists`)
  const quota = cohortQuota(meta)
  const held = meta.prepare('SELECT count(*) FROM cohorts WHERE app_key = ?').pluck().get(appKey) as number
  if (held >= quota) throw quotaReached(`a project holds at most ${quota} cohorts`)
}

export interface NewCohortRow {
  name: string
  dynamic: boolean
  source: CohortSource
  content: string | null
  fileProperty: string | null
  operator: Operator | null
  now: number
}

/** Inserts a cohort (status calculating, run 0) and gives it its code; returns the row. */
export function insertCohort(meta: MetaDb, appKey: string, input: NewCohortRow): CohortRow {
  const creator = creatorName(meta, input.operator)
  return meta.transaction(() => {
    checkRoom(meta, appKey, input.name)
    const { lastInsertRowid } = meta
      .prepare(
        `INSERT INTO cohorts (app_key, code, name, dynamic, source, content, file_property, status, created_by, created_user, create_time, update_time)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'calculating', ?, ?, ?, ?)`,
      )
      .run(appKey, `pending-${input.now}-${Math.random()}`, input.name, asFlag(input.dynamic), input.source, input.content, input.fileProperty, input.operator?.id ?? null, creator, input.now, input.now)
    const id = Number(lastInsertRowid)
    meta.prepare('UPDATE cohorts SET code = ? WHERE id = ?').run(`c${id}`, id)
    return cohortById(meta, appKey, id)!
  })()
}

export interface CohortView {
  id: number
  code: string
  name: string
  /** 1 dynamic, 0 static (spec 2.6). */
  dynamic: 0 | 1
  userNumber: number | null
  status: CohortStatus
  calculatedTime: string | null
  source?: CohortSource
  createdTime?: string
  createdUser?: string
  updatedTime?: string
  content?: unknown
  failReason?: string | null
}

export function cohortView(row: CohortRow, scope: ProjectScope, needMore: boolean): CohortView {
  const stamp = (ms: number | null) => (ms === null ? null : localStamp(ms, scope.timeZone))
  const view: CohortView = {
    id: row.id,
    code: row.code,
    name: row.name,
    dynamic: asFlag(row.dynamic),
    userNumber: row.user_number,
    status: row.status,
    calculatedTime: stamp(row.calculated_time),
  }
  if (!needMore) return view
  return {
    ...view,
    source: row.source,
    createdTime: stamp(row.create_time)!,
    createdUser: row.created_user,
    updatedTime: stamp(row.update_time)!,
    content: row.content === null ? '' : JSON.parse(row.content),
    failReason: row.fail_reason,
  }
}
