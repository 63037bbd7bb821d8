import type { AggregatesPart, NamedQuery } from '../../parts/aggregates'

/**
 * The rows grouped by `dims` and period, and by `dims` alone, in ONE read: each row goes twice into
 * one GROUP BY, under its period and under NULL (the whole range). Two GROUP BYs under UNION ALL
 * would read (and join) the rows twice.
 */
function periodsOnce(dims: string[], period: string, items: string[], rows: string): string {
  const list = dims.map((d) => `${d}, `).join('')
  return `
      SELECT ${list}_uba_p AS ${period}, isNull(_uba_p) AS whole, ${items.join(', ')}
      FROM (SELECT *, arrayJoin([toNullable(${period}), NULL]) AS _uba_p ${rows})
      GROUP BY ${list}_uba_p`
}

/**
 * 18.16 has no `true`/`false`, no FILTER clause (`…If` combinators), no `WITH name AS (subquery)`
 * (each name is its subquery, inlined where it is read: a subquery read twice is computed twice)
 * and no GROUPING SETS. `maxIf`/`minIf` of a Nullable value give 0, not NULL, where no row matches
 * (18.16, measured): they are NULL then.
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
  periodsAndWhole: (dims, period, items, from) => periodsOnce(dims, period, items, from),
  // a whole aggregate over one period's partials gives that period's value: the same single GROUP BY
  rollUp: (dims, period, items, per) => periodsOnce(dims, period, items.map((x) => `${x.whole} AS ${x.name}`), `FROM ${per}`),
}
