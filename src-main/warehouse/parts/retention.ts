import type { SqlParams } from '../dialect'

/** Retention's statements where an engine counts them its own way (domain/analysis/retentionSql.ts). */

/** What the statement counts: offsets 0..duration, "on" or "on or after", the breakdown's side. */
export interface RetentionShape {
  duration: number
  onOrAfter: boolean
  /** The side whose rows carry the breakdown label `d`: initial events, return events, or none. */
  side: 'first' | 'return' | null
  /** The measure's aggregator over the return events' values (scan column `v`; never with a breakdown or on or after). */
  measure: 'SUM' | 'AVG' | 'MAX' | 'MIN' | 'REMOVE_DUMPLICATE' | 'AVG_PER' | null
}

/** One cell's users: period s (null: every period), label d (null: every label), offset k (null: the starters), returned or not. */
export interface RetentionCellAt {
  s: number | null
  d: string | null
  k: number | null
  returned: boolean
}

export interface RetentionPart {
  /**
   * Keeps only the rows at each user's first-ever instant of the initial event: `firstEver` selects
   * (distinct_id, first_at) per user. `join` goes after the scan's joins, `condition` into its test.
   */
  atFirstEver(firstEver: string): { join: string; condition: string }
  /**
   * The cells {s, d, k, n, m} counted from `scan` (rows uid, period, f, r[, d][, v]) in the
   * engine's own way; null where the domain's bitmaps and joins count them.
   */
  retentionCells(scan: string, shape: RetentionShape, p: SqlParams): string | null
  /**
   * A bitmap of bitmapIn as bytes the domain reads back (8 ids a byte), to count retention's cells
   * itself (domain/analysis/retentionBitmaps.ts); null where the engine's bitmaps are not bits.
   */
  bitmapBytes(bitmap: string): string | null
  /** The users (one column, each once) of a cell, in the same way; null as retentionCells. */
  retentionCellUsers(scan: string, shape: RetentionShape, cell: RetentionCellAt, p: SqlParams): string | null
}
