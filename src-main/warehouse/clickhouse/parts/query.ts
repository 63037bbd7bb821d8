import type { QueryPart } from '../../parts/query'
import { CH_TYPES, ident } from './names'

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
  // the list is the statement's one positional value: the executor binds values[0] to {p1:...}
  insertNumbers: (table) => `INSERT INTO ${table} SELECT arrayJoin({p1:Array(Float64)})`,
}
