import { series } from '../../time/calendar'
import { distributionAnalysis, perUserValues, WHOLE_RANGE, type DistributionRequest } from '../distribution'
import { intervalIndexSql } from '../intervals'
import type { CellModule } from './cell'

/**
 * The users of a distribution cell, from the per-user values the answer counts (distribution.ts
 * perUserValues) and its intervals: the row `byValue` (as the answer writes it: "all", a period's
 * first day, or a breakdown value) and the interval `bucket` (its label in `series`, e.g. "[2,3)").
 */
export const distributionCells: CellModule<DistributionRequest> = {
  fields: ['byValue', 'bucket'],
  analysis: distributionAnalysis,
  async select(env, req, cell) {
    const row = cell.label('byValue') ?? (req.byField || req.unit ? null : WHOLE_RANGE)
    if (row === null) throw cell.bad('byValue', 'is required: the row (a period\'s first day, or a breakdown value)')
    let key: string | number = 0
    if (req.unit) {
      key = series(req.fromDate, req.toDate, req.unit).indexOf(row)
      if (key === -1) throw cell.bad('byValue', `${row} does not start a period of the answer`)
    } else if (req.byField) key = row
    else if (row !== WHOLE_RANGE) throw cell.bad('byValue', `the only row is "${WHOLE_RANGE}"`)
    const bucket = cell.label('bucket')
    if (bucket === null) throw cell.bad('bucket', 'is required: an interval label of the answer (series)')
    const intervals = await perUserValues(env, req)
    const i = intervals.findIndex((iv) => iv.label === bucket)
    if (i === -1) throw cell.bad('bucket', `${bucket} is not an interval of the answer (${intervals.map((iv) => iv.label).join(', ') || 'none: nobody is counted'})`)
    const p = env.params()
    return { sql: `SELECT distinct_id FROM distribution_users WHERE r = ${p.add(key)} AND ${intervalIndexSql('v', intervals, p)} = ${p.add(i)}`, params: p }
  },
}
