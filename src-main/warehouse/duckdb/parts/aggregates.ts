import type { AggregatesPart } from '../../parts/aggregates'

/** A named subquery as a FROM item, under its name or `alias`. */
const named = (name: string, alias?: string) => (alias ? `${name} ${alias}` : name)

/** FILTER clauses, WITH (materialized where asked) and GROUPING SETS. */
export const aggregates: AggregatesPart = {
  truth: (value) => (value ? 'true' : 'false'),
  aggregateWhere: (fn, value, condition) => `${fn}(${value}) FILTER (WHERE ${condition})`,
  aggregate: (fn, value) => `${fn}(${value})`,
  withQueries: (queries, main) =>
    `WITH ${queries.map((q) => `${q.name} AS ${q.materialized ? 'MATERIALIZED ' : ''}(${q.sql(named)})`).join(', ')}${main(named)}`,
  periodsAndWhole: (dims, period, items, from) => {
    const list = dims.map((d) => `${d}, `).join('')
    return `
      SELECT ${list}${period}, grouping(${period}) AS whole, ${items.join(', ')}
      ${from}
      GROUP BY GROUPING SETS ((${list}${period}), (${dims.join(', ')}))`
  },
  // `per` is a name (WITH … MATERIALIZED): reading it twice computes it once
  rollUp: (dims, period, items, per) => {
    const list = dims.map((d) => `${d}, `).join('')
    return `
      SELECT ${list}${period}, 0 AS whole, ${items.map((x) => `${x.period} AS ${x.name}`).join(', ')} FROM ${per}
      UNION ALL
      SELECT ${list}NULL, 1, ${items.map((x) => `${x.whole} AS ${x.name}`).join(', ')} FROM ${per} ${dims.length ? `GROUP BY ${dims.join(', ')}` : ''}`
  },
}
