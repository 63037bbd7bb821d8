import { dialectOf, type DomainContext } from '../context'
import { dataChanged } from '../project/dataVersion'
import { withWriteLock } from '../writeLock'
import type { ProjectScope } from '../project/scope'
import type { WarehouseTable } from './columns'
import type { DataType } from './types'

/** A warehouse column that a plan change needs: created, or re-typed while it holds no data. */
export interface ColumnChange {
  table: WarehouseTable
  id: string
  dataType: DataType
  /** The column may exist with another type (a property re-declared before any data reported). */
  retype: boolean
}

/**
 * Runs a plan write under the project's write lock: a write checks the plan, then waits on DuckDB,
 * then writes the plan, and another write in that gap (a plan change, an import) would make the
 * check stale.
 */
export function serialized<T>(ctx: DomainContext, appKey: string, work: () => Promise<T>): Promise<T> {
  return withWriteLock(ctx, appKey, work)
}

/**
 * Applies a checked plan change: the columns first, in one DuckDB transaction (so analyses and SQL
 * can reference a planned property at once), then the plan rows in one SQLite transaction. A
 * failure in DuckDB leaves the plan untouched. Re-typing is safe because only properties without
 * reported data are re-typed: their column holds nulls only.
 */
export async function applyPlanChange(
  ctx: DomainContext,
  scope: ProjectScope,
  columns: ColumnChange[],
  writePlan: () => void,
): Promise<void> {
  if (columns.length > 0) {
    await ctx.warehouse.withConnection(scope.appKey, scope.timeZone, (conn) =>
      conn.transaction(async () => {
        for (const c of columns) {
          const column = { id: c.id, type: c.dataType }
          await conn.run(dialectOf(ctx, scope).addPropertyColumn(c.table, column))
          if (c.retype) await conn.run(dialectOf(ctx, scope).retypePropertyColumn(c.table, column))
        }
      }),
    )
  }
  ctx.meta.transaction(() => {
    writePlan()
    dataChanged(ctx.meta, scope.appKey)
  })()
}
