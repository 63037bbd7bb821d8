import type { UserSetsPart } from '../../parts/userSets'
import { literal, quoteString } from '../literal'
import { seconds, zoneLiteral } from '../zone'

const strings = (values: string[]) => `CAST(${literal(values)} AS Array(String))`

/**
 * Sets of users and single users. Values are printed as literals (no server-side parameters on
 * 18.16); a long list makes a long statement, which the executor allows through max_query_size.
 */
export function userSets(timeZone: string): UserSetsPart {
  const z = zoneLiteral(timeZone)
  return {
    tableCount: (table) => `SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = ${quoteString(table)}`,
    valuesTable(name, values, labels) {
      if (labels) {
        return { sql: `CREATE TEMPORARY TABLE ${name} ENGINE = Memory AS SELECT value, label FROM (SELECT ${strings(values)} AS value, ${strings(labels)} AS label) ARRAY JOIN value, label`, values: [] }
      }
      return { sql: `CREATE TEMPORARY TABLE ${name} ENGINE = Memory AS SELECT DISTINCT arrayJoin(${strings(values)}) AS value`, values: [] }
    },
    // built beside, then swapped in by one RENAME (18.16 has neither CREATE OR REPLACE nor EXCHANGE):
    // a reader sees the old rows or the new ones, never no table
    replaceTable: (table, select) => [
      `DROP TABLE IF EXISTS ${table}__next`,
      `CREATE TABLE ${table}__next ENGINE = MergeTree ORDER BY tuple() AS ${select}`,
      `CREATE TABLE IF NOT EXISTS ${table} AS ${table}__next`,
      `RENAME TABLE ${table} TO ${table}__old, ${table}__next TO ${table}`,
      `DROP TABLE ${table}__old`,
    ],
    // a partition per version: a run's rows are attached in one step, a version dropped at once
    // (no NOT NULL in 18.16's column definitions; ALTER … DELETE would be an asynchronous mutation)
    tagVersionsTable: (table) => `CREATE TABLE IF NOT EXISTS ${table} (version Int32, distinct_id Int64, value Nullable(String)) ENGINE = MergeTree PARTITION BY version ORDER BY distinct_id`,
    dropTagVersions: (table, _from, present) => present.map((v) => ({ sql: `ALTER TABLE ${table} DROP PARTITION ${literal(v)}`, values: [] })),
    firstBy: (value, keys) => `argMin(${value}, tuple(${keys.join(', ')}))`,
    inIds: (id, ids) => (ids.length === 0 ? '0' : `${id} IN (${ids.map((n) => literal(n)).join(', ')})`),
    // given an instant (e.xwhen, epoch ms), as the domain uses it
    // toString, then / in the date: formatDateTime's %M is the minute on 18.16, the month's name on current versions
    formatSlashed: (instant) => {
      const text = `toString(${seconds(instant)}, ${z})`
      return `concat(replaceAll(substring(${text}, 1, 10), '-', '/'), substring(${text}, 11))`
    },
    // stored as epoch ms of the local time (the wall clock labelled UTC): its text, whole seconds
    formatStoredStamp: (column) => `toString(toDateTime(intDiv(${column}, 1000), 'UTC'))`,
    epochMillis: (instant) => `toInt64(${instant})`,
    // a MergeTree keeps no row order (no rowid on 18.16): ties after the caller's keys stay unordered
    storedOrder: () => 'toUInt8(0)',
  }
}
