import type { AggregatesPart, NamedQuery } from '../../parts/aggregates'

/**
 * 18.16 has no `true`/`false`, no FILTER clause (`…If` combinators), no `WITH name AS (subquery)`
 * (each name is its subquery, inlined where it is read: a subquery read twice is computed twice)
 * and no GROUPING SETS (two GROUP BYs under UNION ALL: the rows are read twice). `maxIf`/`minIf`
 * of a Nullable value give 0, not NULL, where no row matches (18.16, measured): they are NULL then.
 */
export const aggregates: AggregatesPart = {
  truth: (value) => (value ? '1' : '0'),
  aggregateWhere: (fn, value, condition) => {
    if (fn === 'count') return value === '*' ? `countIf(${condition})` : `countIf(${value}, ${condition})`
    if (fn === 'max' || fn === 'min') return `if(countIf(isNotNull(${value}) AND (${condition})) = 0, NULL, ${fn}If(${value}, ${condition}))`
    return `${fn}If(${value}, ${condition})`
  },
  // over no value: avg of a non-Nullable column is nan, sum/max/min of one 0 (18.16)
  aggregate: (fn, value) => `if(count(${value}) = 0, NULL, ${fn}(${value}))`,
  withQueries: (queries, main) => {
    const byName = new Map<string, NamedQuery>(queries.map((q) => [q.name, q]))
    const from = (name: string, alias?: string): string => {
      const q = byName.get(name)
      if (!q) throw new RangeError(`no named query ${name}`)
      return `(${q.sql(from)}) AS ${alias ?? name}`
    }
    return main(from)
  },
  periodsAndWhole: (dims, period, items, from) => {
    const list = dims.map((d) => `${d}, `).join('')
    return `
      SELECT ${list}${period}, 0 AS whole, ${items.join(', ')}
      ${from}
      GROUP BY ${list}${period}
      UNION ALL
      SELECT ${list}NULL, 1, ${items.join(', ')}
      ${from}
      ${dims.length ? `GROUP BY ${dims.join(', ')}` : ''}`
  },
}
