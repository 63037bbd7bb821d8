import type { CustomSqlColumn } from './customSql'

/**
 * The text of a custom SQL result (spec 4.7), written by the engine itself: the checked query is
 * wrapped in a projection that turns each row into one CSV line or one JSON object, by the
 * engine's column types. The value formats are the product's:
 * - timestamps: `yyyy-MM-dd HH:mm:ss`, with `.SSS` when the value has milliseconds, a zoned one
 *   in the project's time zone (the connection's);
 * - 64-bit and wider integers: exact (CSV: the digits; JSON: a number within +-2^53-1, else text);
 * - lists, structs and maps: JSON (in CSV, the JSON text in one field);
 * - NaN and infinities: text in JSON (JSON has no such numbers);
 * - NULL: an empty CSV field, JSON null.
 */
export interface ResultTextPart {
  /**
   * The query that yields one text column `line` per row of `inner` (a checked SELECT whose
   * result columns are `columns`), with its bound values: a JSON object per row whose keys are
   * `keys` (bound, never written into SQL text), or an RFC 4180 CSV line. Row order is the inner
   * query's.
   */
  resultLines(inner: string, columns: CustomSqlColumn[], format: 'csv' | 'json', keys: string[]): { sql: string; values: string[] }
  /** A timestamp as every export writes it (see above). */
  exportStamp(value: string): string
}
