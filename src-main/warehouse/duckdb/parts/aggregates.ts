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
}
