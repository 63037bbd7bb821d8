import { dayOfDs, periodAfter } from '../../time/calendar'
import { ALL, retentionAnalysis } from '../retention'
import type { RetentionRequest } from '../retentionRequest'
import { cellUsersSql, STATS_SQL, windowOf } from '../retentionSql'
import type { CellModule } from './cell'

/**
 * The users of a retention cell, from retentionSql.ts's own scan and user-period pairs: the row
 * (`day`: the first day of an initial period; `byValue`: a breakdown value; neither: the $ALL row),
 * `offset` k (0..duration; absent: the row's totalPeople) and outcome "returned" (the users
 * counted in retentionPeoples[k]) or "notReturned" (the row's starters who did not return at +k).
 * A cell not observed yet (null in the answer) is a 400 naming cell.offset.
 */
export const retentionCells: CellModule<RetentionRequest> = {
  fields: ['day', 'byValue', 'offset', 'outcome'],
  analysis: retentionAnalysis,
  async select(env, req, cell) {
    const w = windowOf(req)
    const start = cell.day('day')
    const s = start === null ? null : w.periods.indexOf(start)
    if (s === -1) throw cell.bad('day', `${start} does not start a ${req.unit.toLowerCase()} of the range (${w.periods[0]} to ${w.periods[w.periods.length - 1]})`)
    const label = cell.label('byValue')
    const d = label === null || label === ALL ? null : label
    if (d !== null && !req.breakdown) throw cell.bad('byValue', `this retention has no breakdown: its rows are ${ALL} and the periods (cell.day)`)
    if (d !== null && s !== null) throw cell.bad('day', 'with a breakdown the rows are values: send byValue or day, not both')
    const k = cell.index('offset', 0, req.duration, null)
    const outcome = cell.choice('outcome', ['returned', 'notReturned'] as const)
    if (k === null && outcome === 'notReturned') throw cell.bad('offset', 'notReturned needs the offset of the return period')
    if (k !== null) {
      // as the answer: a period +k that starts after the latest data is not observed yet
      const [stats] = await env.query(STATS_SQL)
      const lastDay = stats.last_ds === null ? null : dayOfDs(Number(stats.last_ds))
      const first = start ?? w.periods[0]
      if (lastDay === null || periodAfter(first, req.unit, k) > lastDay) throw cell.bad('offset', `period +${k} of ${first} is not observed yet (the data ends ${lastDay ?? 'before it'})`)
    }
    const p = env.params()
    return { sql: cellUsersSql(env, req, w, { s, d, k, returned: outcome === 'returned' }, p), params: p }
  },
}
