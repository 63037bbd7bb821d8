import type { UserSetsPart } from '../../parts/userSets'
import { time } from './time'

/** Texts are bound as one list each (the executor binds an array as a list) and unnested; ids as the text of a BIGINT list. */
export const userSets: UserSetsPart = {
  tableCount: (table) => `SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'main' AND table_name = '${table}'`,
  valuesTable(name, values, labels) {
    if (labels) {
      return { sql: `CREATE OR REPLACE TEMP TABLE ${name} AS SELECT unnest($1::VARCHAR[]) AS value, unnest($2::VARCHAR[]) AS label`, values: [values, labels] }
    }
    return { sql: `CREATE OR REPLACE TEMP TABLE ${name} AS SELECT DISTINCT unnest($1::VARCHAR[]) AS value`, values: [values] }
  },
  replaceTable: (table, select) => [`CREATE OR REPLACE TABLE ${table} AS ${select}`],
  tagVersionsTable: (table) => `CREATE TABLE IF NOT EXISTS ${table} (version INTEGER NOT NULL, distinct_id BIGINT NOT NULL, value VARCHAR)`,
  // inside the run's transaction: rolled back with it
  dropTagVersions: (table, from) => [{ sql: `DELETE FROM ${table} WHERE version >= $1`, values: [from] }],
  firstBy: (value, keys) => `arg_min(${value}, (${keys.join(', ')}))`,
  inIds: (id, ids, p) => `${id} IN (SELECT unnest(${p.add(`[${ids.join(',')}]`)}::BIGINT[]))`,
  formatStoredStamp: (column) => time.formatStamp(column),
  formatSlashed: (local) => `strftime(${local}, '%Y/%m/%d %H:%M:%S')`,
  epochMillis: (instant) => `epoch_ms(${instant})`,
  storedOrder: (row) => `${row}.rowid`,
}
