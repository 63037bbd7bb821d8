import type { OutcomesPart } from '../../parts/outcomes'
import { quoteString } from '../literal'

const placeholders = (n: number) => Array.from({ length: n }, (_, i) => `$${i + 1}`).join(', ')

/**
 * A ReplacingMergeTree by key: a record inserted inside a transaction is staged with the data and
 * attached with it; the latest record of a key is read (argMax), so a replaced one never shows.
 * Forgetting is a mutation (`ALTER … DELETE`), applied by the server shortly after: a record read
 * meanwhile says what the metadata already says.
 */
export const outcomes: OutcomesPart = {
  outcomesTable: (table) => `CREATE TABLE IF NOT EXISTS ${table} (key String, outcome String, sealed_at DateTime DEFAULT now()) ENGINE = ReplacingMergeTree(sealed_at) ORDER BY key`,
  sealOutcomeSql: (table) => `INSERT INTO ${table} (key, outcome) VALUES ($1, $2)`,
  outcomesTableCount: (table) => `SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = ${quoteString(table)}`,
  readOutcomesSql: (table, keys) => `SELECT key, argMax(outcome, sealed_at) FROM ${table} ${keys === null ? '' : `WHERE key IN (${placeholders(keys)})`} GROUP BY key`,
  forgetOutcomesSql: (table, keys, keep) => {
    if (keep) return keys === 0 ? `ALTER TABLE ${table} DELETE WHERE 1` : `ALTER TABLE ${table} DELETE WHERE key NOT IN (${placeholders(keys)})`
    return `ALTER TABLE ${table} DELETE WHERE key IN (${placeholders(keys)})`
  },
}
