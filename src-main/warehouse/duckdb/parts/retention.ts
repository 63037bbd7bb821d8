import type { RetentionPart } from '../../parts/retention'

/**
 * DuckDB counts retention with bitmaps per chunk of ids and joins of user-period sets, written in
 * domain/analysis/retentionSql.ts from the other parts (the bitmaps' cells are counted in JS:
 * retentionBitmaps.ts); the first-ever instant is a joined subquery.
 */
export const retention: RetentionPart = {
  atFirstEver: (firstEver) => ({ join: `LEFT JOIN (${firstEver}) fe ON fe.distinct_id = e.distinct_id`, condition: 'e.xwhen = fe.first_at' }),
  retentionCells: () => null,
  // BIT to BLOB drops the byte that counts the padding bits (a chunk's bits are a whole number of bytes)
  bitmapBytes: (bitmap) => `CAST(${bitmap} AS BLOB)`,
  retentionCellUsers: () => null,
}
