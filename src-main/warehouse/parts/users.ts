/**
 * Counting distinct users. Users are dense integers (distinct_id numbered from 1), so a set of users
 * can be a bitmap of one bit per id; an engine without bitmaps answers with exact distinct counts.
 */
export interface UsersPart {
  /** count of distinct `expr` among rows where `where` holds (all rows without it). */
  distinctCount(expr: string, where?: string): string
  /** A bitmap aggregate of the integer ids `id`, optionally only over rows where `where` holds. */
  bitmapOf(id: string, where?: string): string
  /** A bitmap aggregate of ids `id` known to lie in 0..`max` (SQL). */
  bitmapIn(id: string, max: string): string
  /** The number of set bits of a bitmap (its users). */
  bitmapCount(bitmap: string): string
  /** The users in both bitmaps. */
  bitmapAnd(a: string, b: string): string
  /** The union of bitmaps of a group (an aggregate). */
  bitmapUnion(bitmap: string): string
  /**
   * Whether a bitmap takes a bit per id of the id range, whatever it holds (the analyses check a
   * memory budget before using bitmaps: domain/analysis/userCounts.ts), or only its users, so that
   * bitmaps always fit.
   */
  bitmapsSpanIds: boolean
  /** The number of distinct users of rows where `where` holds, by bitmap (0 when none, as distinctCount). */
  bitmapUsers(id: string, where: string): string
  /** One row's value: the engine's statistics of a column of a table (for estimates). */
  columnStats(column: string, table: string): string
  /** The approximate number of distinct values in a statistics value read back, or null. */
  approxDistinct(stats: unknown): number | null
  /** The number of threads a query runs on (a setting). */
  threads(): string
}
