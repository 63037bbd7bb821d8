import type { EventRowsSpec, JoinClause, QueryPart } from '../../parts/query'
import { CH_TYPES, ident } from './names'

const PROFILE_JOIN = 'LEFT JOIN profile_vd u ON u.distinct_id = e.distinct_id'

/**
 * 18.16 takes one JOIN per SELECT (error 48), so joins are nested: the event rows and one join
 * become a subquery called `e` again, whose columns are e's own plus each column read through the
 * join's alias, named `alias.column`. 18.16 and current versions read the text `u.tier` as such a
 * column when no table is called u, so the query above reads what it would read at one level. The
 * profile is joined innermost, after `eventWhere`: 18.16 pushes no condition into a subquery
 * (enable_optimize_predicate_expression = 0), so the rows are cut before they are joined. A LEFT
 * join's missing profile reads its column's default: NULL for a Nullable property, [] for a list.
 */
function eventRows({ rows = 'event_vd', joins = [], profile, eventWhere }: EventRowsSpec): string {
  // nothing read from the profile: a LEFT join on one row per user changes no row
  const levels: JoinClause[] = [...(profile && profile.length > 0 ? [{ sql: PROFILE_JOIN, alias: 'u', columns: profile }] : []), ...joins]
  let from = `${rows} e`
  levels.forEach((level, i) => {
    if (i === levels.length - 1) {
      from = `${from} ${level.sql}`
      return
    }
    const reads = level.columns.map((c) => `${level.alias}.${ident(c)} AS \`${level.alias}.${c}\``)
    from = `(SELECT e.*${reads.map((r) => `, ${r}`).join('')} FROM ${from} ${level.sql}${i === 0 && eventWhere ? ` WHERE ${eventWhere}` : ''}) e`
  })
  return from
}

/**
 * Clauses and statements. Temporary tables live in the HTTP session of the project's connection
 * (the executor names one per connection); 18.16 has no CREATE OR REPLACE, and a connection starts
 * without temporary tables, so they are created plainly.
 */
export const query: QueryPart = {
  anyValue: (expr) => `any(${expr})`,
  // 18.16 has no GROUP BY ALL (current versions do)
  groupByAll: (columns) => `GROUP BY ${columns.join(', ')}`,
  // 18.16 has no `* EXCEPT` (current versions do): each column named, as itself
  allColumnsBut: (row, except, columns) => columns.filter((c) => !except.includes(c)).map((c) => `${row}.${ident(c)} AS ${ident(c)}`).join(', '),
  tempTableAs: (name, select) => `CREATE TEMPORARY TABLE ${name} ENGINE = Memory AS\n     ${select}`,
  tempTable: (name, columns) => `CREATE TEMPORARY TABLE ${name} (${columns.map(([c, t]) => `${c} ${t === 'array<string>' ? CH_TYPES[t] : `Nullable(${CH_TYPES[t]})`}`).join(', ')}) ENGINE = Memory`,
  eventRows,
  // 18.16 takes only equalities in ON (a comparison there: error 403, "Invalid expression for JOIN ON")
  innerJoinOn: (keys, range) => ({ on: keys, where: range }),
  // the list is the statement's one positional value: the executor binds values[0] to {p1:...}
  insertNumbers: (table) => `INSERT INTO ${table} SELECT arrayJoin({p1:Array(Float64)})`,
}
