import type { Warehouse } from '../../warehouse'
import { engineUnavailable } from '../../errors'
import { AppError } from '../errors'
import { inStaging, readWhole, stageExcel, stageRead, type StageSource } from './stage'
import { insertionOrder } from './sql'
import type { CellKind } from '../../warehouse/parts/typedReads'

/**
 * Imports of CSV, TSV and Parquet files read the file where it lies: `stage_rows` is a view over
 * DuckDB's reader, and the rows are read and checked in one pass (tabular.ts). A preview and the
 * other formats copy the cells into a table first (stage.ts `stageFile`).
 */

/** The staged columns (their names in file order) and what their cells hold. */
export async function stagedColumns(conn: Warehouse): Promise<{ name: string; cells: CellKind }[]> {
  const rows = await conn.rows(conn.dialect.tempColumns('stage_rows'))
  return rows.map((r) => ({ name: String(r[0]), cells: conn.dialect.cellKindOf(String(r[1])) }))
}

/** A file staged for an import (`withStagedFile`). */
export interface StagedFile {
  table: 'stage_records' | 'stage_rows'
  /**
   * `stage_rows` is a view that reads the file where it lies (CSV, TSV, Parquet): it has no
   * rowid, and a statement that reads it reads the whole file, in file order only under
   * `insertionOrder`. Copying the cells into a table first cost a third of a CSV import's time and
   * held every cell of the file as text.
   */
  streamed: boolean
  /** Runs statements that read the file: a file the reader refuses fails as the request's problem. */
  reading<T>(read: () => Promise<T>): Promise<T>
}

/**
 * Stages a whole file for an import and runs `work` while it is there: tabular files that DuckDB
 * reads (CSV, TSV, Parquet) as a view over the placed file, others as a table (as `stageFile`).
 */
export async function withStagedFile<T>(conn: Warehouse, stagingDir: string, source: StageSource, work: (staged: StagedFile) => Promise<T>): Promise<T> {
  if (source.format === 'excel') {
    await stageExcel(conn, source.file, source.sheet)
    return work({ table: 'stage_rows', streamed: false, reading: (read) => read() })
  }
  // JSON lines stay copied into a table: as a view, the key survey and the checks each read the
  // file again, and the checks keep insertion order to number the lines. At 2M lines that took
  // 8.4-9.0 s of CPU against 6.6-8.8 s with the copy (three rounds alternating, loaded machine).
  const streamed = source.format !== 'json'
  return inStaging(stagingDir, source.file, async (placed) => {
    const { table, explain } = await insertionOrder(conn, true, () => stageRead(conn, { ...source, file: placed }, streamed ? 'VIEW' : 'TABLE'))
    const reading = async <R>(read: () => Promise<R>): Promise<R> => {
      try {
        return await read()
      } catch (err) {
        // a file the reader refuses is its problem before any other (a mapping that does not fit it)
        if (streamed && err instanceof AppError && !conn.interrupted) await readWhole(conn).catch(async (failure) => Promise.reject(await explain(failure)))
        throw await explain(err)
      }
    }
    return work({ table, streamed, reading })
  })
}

/**
 * Throws when the import's connection was interrupted (a cancel, the project deleted) between
 * statements: an interrupt stops only the statement running, and a long one may come next.
 */
export function stopIfInterrupted(conn: Warehouse): void {
  if (conn.interrupted) throw engineUnavailable('the import was stopped')
}

