import type { QueryPart } from '../../parts/query'
import { DUCK_TYPES } from './names'

export const query: QueryPart = {
  anyValue: (expr) => `any_value(${expr})`,
  groupByAll: () => 'GROUP BY ALL',
  allColumnsBut: (row, except) => `${row}.* EXCLUDE (${except.join(', ')})`,
  tempTableAs: (name, select) => `CREATE OR REPLACE TEMP TABLE ${name} AS\n     ${select}`,
  tempTable: (name, columns) => `CREATE OR REPLACE TEMP TABLE ${name} (${columns.map(([c, t]) => `${c} ${DUCK_TYPES[t]}`).join(', ')})`,
  insertNumbers: (table) => `INSERT INTO ${table} SELECT unnest($1::DOUBLE[])`,
}
