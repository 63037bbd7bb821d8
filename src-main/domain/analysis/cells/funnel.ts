import { series } from '../../time/calendar'
import { funnelAnalysis, type FunnelRequest } from '../funnels'
import { followPaths } from '../funnelFollow'
import type { CellModule } from './cell'

/**
 * The users of a funnel cell, heard from the path follower as it counts them (funnelPaths.ts
 * onCount, on the funnel threads: funnelThread.ts), so that every rule and option of the funnel
 * applies: `step` k (0-based) of the row `byValue` (a breakdown value; -1 or absent: the total)
 * and the column `day` (an entry day; absent: the whole range, $ALL). outcome "converted": the users whose counted path reached step k
 * (convertedUser[k]); "dropped": those who reached step k and not step k + 1 (convertedUser[k] -
 * convertedUser[k + 1]; not on the last step).
 */
export const funnelCells: CellModule<FunnelRequest> = {
  fields: ['step', 'outcome', 'byValue', 'day'],
  analysis: funnelAnalysis,
  async select(env, req, cell) {
    const steps = req.steps.length
    const k = cell.index('step', 0, steps - 1) as number
    const outcome = cell.choice('outcome', ['converted', 'dropped'] as const)
    if (outcome === 'dropped' && k === steps - 1) throw cell.bad('outcome', 'nobody drops off after the last step: dropped is for steps 0 to ' + (steps - 2))
    const label = cell.label('byValue')
    const row = label === null || label === '-1' ? null : label
    if (row !== null && !req.byField) throw cell.bad('byValue', 'this funnel has no breakdown: send -1 or nothing for the total')
    const days = series(req.fromDate, req.toDate, 'DAY')
    const entry = cell.day('day')
    const column = entry === null ? 0 : days.indexOf(entry) + 1
    if (column === 0 && entry !== null) throw cell.bad('day', `${entry} is not an entry day of the range ${req.fromDate}..${req.toDate}`)
    const { users } = await followPaths(env, req, days, { column, label: row, step: k, outcome })
    return { ids: users }
  },
}
