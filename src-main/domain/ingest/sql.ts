import type { Dialect } from '../../warehouse/dialect'

/** Small helpers for SQL that the importers generate from checked names only. */

/** A SQL string literal. Used for file paths and checked ids, never for values (those are bound). */
export function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`
}

/** A quoted identifier for a column name that came from a file header. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

/** What the order settings need of a connection: a warehouse, or an engine connection with its dialect. */
interface StatementRunner {
  run(sql: string): Promise<unknown>
  readonly dialect: Pick<Dialect, 'insertionOrder' | 'defaultInsertionOrder'>
}

/**
 * Runs `work` with insertion order kept on this connection only (the dialect's `insertionOrder`).
 * Off: statements whose row order means nothing (rows carry their number in `_row`, stored events
 * have no order) run in parallel without collecting batches in order. On: a staging read, whose
 * rowids are line numbers. This connection only: a global setting would reorder a staging read on
 * another connection.
 */
export async function insertionOrder<T>(conn: StatementRunner, preserve: boolean, work: () => Promise<T>): Promise<T> {
  for (const statement of conn.dialect.insertionOrder(preserve)) await conn.run(statement)
  try {
    return await work()
  } finally {
    for (const statement of conn.dialect.defaultInsertionOrder()) await conn.run(statement).catch(() => undefined)
  }
}

/**
 * The order in which every load writes its events: by user, then time. A funnel follows the
 * events of one range of users at a time (analysis/funnels.ts); with each load's rows clustered
 * by user, DuckDB skips the row groups of the other users by their min/max statistics, and the
 * rows it returns come grouped by user. On the 10M-event bench this took a 4-step funnel from
 * about 1.8 s to 1.35 s. The sort cost an import no measurable time (sorted rows compress and
 * write faster: the 2M-row CSV's insert took 1.0-1.3 s sorted, 1.3-1.45 s not). The sample pays
 * more: its 6M rows of 41 columns (200k users) wrote 0.5-6 s slower sorted than not, of 40-56 s.
 */
export const EVENT_ORDER = 'distinct_id, xwhen'

/** `work` with the rows' order free (see insertionOrder). */
export function unordered<T>(conn: StatementRunner, work: () => Promise<T>): Promise<T> {
  return insertionOrder(conn, false, work)
}
