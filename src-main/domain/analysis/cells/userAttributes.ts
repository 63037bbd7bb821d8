import { baseSql, userAttributeAnalysis, type UserAttributeRequest } from '../userAttributes'
import type { CellModule } from './cell'

/**
 * The users of a user-attribute row (`byValue`: its labels, one per breakdown; absent without
 * one), from the rows the answer aggregates (userAttributes.ts baseSql); for a property measure,
 * those with a value of it (the users SUM, AVG ... read).
 */
export const userAttributeCells: CellModule<UserAttributeRequest> = {
  fields: ['byValue'],
  analysis: userAttributeAnalysis,
  async select(env, req, cell) {
    const labels = cell.labels('byValue', req.byFields.length)
    const p = env.params()
    const base = baseSql(env, req, p)
    const where = [...(req.measure.property ? ['v IS NOT NULL'] : []), ...labels.map((l, j) => `d${j} = ${p.add(l)}`), env.dialect.truth(true)]
    const sql = env.dialect.withQueries([{ name: 'base', sql: () => base }], (from) => `SELECT DISTINCT id FROM ${from('base')} WHERE ${where.join(' AND ')}`)
    return { sql, params: p }
  },
}
