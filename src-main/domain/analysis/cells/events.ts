import { eventAnalysis, baseSql, type EventRequest } from '../events'
import { series } from '../../time/calendar'
import type { CellModule } from './cell'

/**
 * The users of an event-analysis cell, from the rows its measures aggregate (events.ts baseSql):
 * measure i (0-based), the row `byValue` (its labels, one per breakdown; absent without one) and
 * `period` (the first day of a period of `series`; absent: the whole range, `sum`). The users who
 * did the measure's event there (TRIGGER_USER_COUNT counts exactly them); for a property measure,
 * those whose matching events carry a value of the property.
 */
export const eventCells: CellModule<EventRequest> = {
  fields: ['measure', 'byValue', 'period'],
  analysis: eventAnalysis,
  async select(env, req, cell) {
    const i = cell.index('measure', 0, req.measures.length - 1, 0) as number
    const labels = cell.labels('byValue', req.byFields.length)
    const periods = series(req.fromDate, req.toDate, req.unit)
    const start = cell.day('period')
    const period = start === null ? null : periods.indexOf(start)
    if (period === -1) throw cell.bad('period', `${start} does not start a period of the answer (series)`)
    const p = env.params()
    // a cell is of the answer's range: the compared range's rows stay out
    const base = baseSql(env, { ...req, compare: null }, p)
    const where = [
      `m${i}`,
      ...(req.measures[i].property ? [`v${i} IS NOT NULL`] : []),
      ...labels.map((l, j) => `d${j} = ${p.add(l)}`),
      ...(period === null ? [] : [`period = ${p.add(period)}`]),
    ]
    const sql = env.dialect.withQueries([{ name: 'base', sql: () => base }], (from) => `SELECT DISTINCT distinct_id FROM ${from('base')} WHERE ${where.join(' AND ')}`)
    return { sql, params: p }
  },
}
