/**
 * The table of sealed outcomes (domain/outcomes.ts): a small record written in the same
 * transaction as the data it describes. Values are bound: `$1`, `$2` … in order.
 */
export interface OutcomesPart {
  /** Creates the outcomes table `table` (key, outcome, sealed_at) when it is absent. */
  outcomesTable(table: string): string
  /** Writes one record: $1 the key, $2 the outcome (JSON text); a later record of a key replaces it. */
  sealOutcomeSql(table: string): string
  /** A query of one row and one column: 1 when the outcomes table exists, else 0. */
  outcomesTableCount(table: string): string
  /** The records (key, outcome) of the keys `$1 … $n` (n = `keys`), or all of them (null). */
  readOutcomesSql(table: string, keys: number | null): string
  /** Drops the records of the keys `$1 … $n` (or, `keep`: every record but those keys). */
  forgetOutcomesSql(table: string, keys: number, keep: boolean): string
}
