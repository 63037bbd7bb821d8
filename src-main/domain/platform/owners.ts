import type { MetaDb } from '../../store/meta'
import type { Operator } from '../context'
import { badParam } from '../errors'

/** Who created a record (cohorts, tags, reports, dashboards), and the rule that only they delete it. */

/** What createdUser says for objects the API created without loginUser. */
export const API_CREATOR = 'API'

/** The display name of an account (name, else user name, else e-mail); the API without one. */
export function creatorName(meta: MetaDb, operator: Operator | null): string {
  if (!operator) return API_CREATOR
  const row = meta.prepare('SELECT name, user_name, email FROM accounts WHERE id = ?').get(operator.id) as { name: string | null; user_name: string | null; email: string } | undefined
  return row?.name || row?.user_name || row?.email || operator.email
}

/** Only the creator deletes (spec 4.5): the API's own cohorts without loginUser, an account's with it. */
export function checkOwner(row: { created_by: number | null; name: string }, operator: Operator | null, what = 'cohort', action = 'delete'): void {
  if ((operator?.id ?? null) === row.created_by) return
  throw badParam(
    'loginUser',
    operator
      ? `the ${what} ${row.name} was not created by ${operator.email}; only its creator may ${action} it`
      : `the ${what} ${row.name} was created by an account; only that account (as loginUser) may ${action} it`,
  )
}
