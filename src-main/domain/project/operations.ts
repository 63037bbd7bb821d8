import type { MetaDb } from '../../store/meta'
import type { Operator } from '../context'

/** Records who did what (part 1 rule 3): the operator's account, or null for the API itself. */
export function recordOperation(
  meta: MetaDb,
  operator: Operator | null,
  action: string,
  appKey: string | null,
  target: string | null = null,
): void {
  meta
    .prepare('INSERT INTO operation_log (at, operator_id, app_key, action, target) VALUES (?, ?, ?, ?, ?)')
    .run(Date.now(), operator?.id ?? null, appKey, action, target)
}
