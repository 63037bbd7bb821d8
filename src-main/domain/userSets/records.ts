import { flag, type Stored } from '../../store/meta/flags'
import { badParam } from '../errors'

/**
 * The metadata records of the computed sets of users (migration 4): cohorts (members) and tags
 * (a value per user, in numbered versions). Their operations live in cohorts/ and tags/; what
 * computes them, here in userSets/.
 */

/** The longest name of a cohort or a tag. */
export const NAME_MAX = 100

/** A cohort's or tag's name as given: required, trimmed, at most NAME_MAX characters; else a 400 naming `name`. */
export function checkName(name: unknown): string {
  if (typeof name !== 'string' || name.trim() === '') throw badParam('name', 'name is required')
  if (name.trim().length > NAME_MAX) throw badParam('name', `name: at most ${NAME_MAX} characters`)
  return name.trim()
}

export type CohortStatus = 'calculating' | 'success' | 'failed'
export type CohortSource = 'rule' | 'file'

export interface CohortRow {
  id: number
  app_key: string
  code: string
  name: string
  dynamic: boolean
  source: CohortSource
  content: string | null
  file_property: string | null
  status: CohortStatus
  fail_reason: string | null
  run: number
  user_number: number | null
  calculated_time: number | null
  attempt_time: number | null
  created_by: number | null
  created_user: string
  create_time: number
  update_time: number
}

/** A cohort as the domain reads it: every read of the table goes through here. */
export function cohortRow(r: Stored<CohortRow>): CohortRow {
  return { ...r, dynamic: flag(r.dynamic) }
}

export type TagStatus = 'calculating' | 'success' | 'failed'

export interface TagRow {
  id: number
  app_key: string
  code: string
  name: string
  source: 'rule' | 'file'
  rules: string | null
  status: TagStatus
  fail_reason: string | null
  run: number
  created_by: number | null
  created_user: string
  create_time: number
  update_time: number
}
