import type { RetentionPart } from '../../parts/retention'

/**
 * DuckDB counts retention with bitmaps per chunk of ids and joins of user-period sets, written in
 * domain/analysis/retentionSql.ts from the other parts; the first-ever instant is a joined subquery.
 */
export const retention: RetentionPart = {
  atFirstEver: (firstEver) => ({ join: `LEFT JOIN (${firstEver}) fe ON fe.distinct_id = e.distinct_id`, condition: 'e.xwhen = fe.first_at' }),
  retentionCells: () => null,
  retentionCellUsers: () => null,
}
