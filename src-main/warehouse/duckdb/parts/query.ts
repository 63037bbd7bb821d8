import type { QueryPart } from '../../parts/query'
import { DUCK_TYPES } from './names'

export const query: QueryPart = {
  anyValue: (expr) => `any_value(${expr})`,
  groupByAll: () => 'GROUP BY ALL',
  allColumnsBut: (row, except) => `${row}.* EXCLUDE (${except.join(', ')})`,
  tempTableAs: (name, select) => `CREATE OR REPLACE TEMP TABLE ${name} AS\n     ${select}`,
  tempTable: (name, columns) => `CREATE OR REPLACE TEMP TABLE ${name} (${columns.map(([c, t]) => `${c} ${DUCK_TYPES[t]}`).join(', ')})`,
  eventRows: ({ rows = 'event_vd', joins = [], profile }) =>
    [`${rows} e`, ...joins.map((j) => j.sql), ...(profile ? ['LEFT JOIN profile_vd u ON u.distinct_id = e.distinct_id'] : [])].join('\n        '),
  innerJoinOn: (keys, range) => ({ on: `${keys} AND ${range}`, where: null }),
  insertNumbers: (table) => `INSERT INTO ${table} SELECT unnest($1::DOUBLE[])`,
}
