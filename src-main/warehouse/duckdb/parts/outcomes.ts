import type { OutcomesPart } from '../../parts/outcomes'

const placeholders = (n: number) => Array.from({ length: n }, (_, i) => `$${i + 1}`).join(', ')

/** A keyed table, INSERT OR REPLACE, and DELETE inside the caller's transaction. */
export const outcomes: OutcomesPart = {
  outcomesTable: (table) => `CREATE TABLE IF NOT EXISTS ${table} (key VARCHAR PRIMARY KEY, outcome VARCHAR NOT NULL, sealed_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
  sealOutcomeSql: (table) => `INSERT OR REPLACE INTO ${table} (key, outcome) VALUES ($1, $2)`,
  outcomesTableCount: (table) => `SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = '${table}'`,
  readOutcomesSql: (table, keys) => (keys === null ? `SELECT key, outcome FROM ${table}` : `SELECT key, outcome FROM ${table} WHERE key IN (${placeholders(keys)})`),
  forgetOutcomesSql: (table, keys, keep) => {
    if (keep) return keys === 0 ? `DELETE FROM ${table}` : `DELETE FROM ${table} WHERE key NOT IN (${placeholders(keys)})`
    return `DELETE FROM ${table} WHERE key IN (${placeholders(keys)})`
  },
}
