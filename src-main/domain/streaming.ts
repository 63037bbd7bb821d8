import type { BoundValues, WarehouseSession } from '../warehouse'
import { engineUnavailable } from './errors'

/**
 * The rows of one query, read from DuckDB's streaming result a chunk (about 2,048 rows) at a time,
 * so memory stays constant whatever the size and the first rows arrive before the last are
 * computed. The session is closed when the reader stops, finishes or fails; `signal` interrupts the
 * query (a client that went away). Values follow the `json` policy (warehouse/values.ts).
 */
export async function* streamRows(
  session: WarehouseSession,
  sql: string,
  values: BoundValues = [],
  signal?: AbortSignal,
): AsyncGenerator<Record<string, unknown>[]> {
  const onAbort = () => session.interrupt()
  signal?.addEventListener('abort', onAbort, { once: true })
  try {
    if (signal?.aborted) return
    for await (const rows of session.stream(sql, values, 'json')) {
      if (signal?.aborted) return
      yield rows
    }
    // an interrupted stream ends like a complete one: it must not pass for complete
    if (session.interrupted && !signal?.aborted) throw engineUnavailable('the query was stopped before its end')
  } finally {
    signal?.removeEventListener('abort', onAbort)
    session.close()
  }
}

/** Rows as JSON lines, one object per line, a chunk of rows per string. */
export async function* jsonLines(chunks: AsyncIterable<Record<string, unknown>[]>): AsyncGenerator<string> {
  for await (const rows of chunks) {
    if (rows.length === 0) continue
    let text = ''
    for (const row of rows) text += JSON.stringify(row) + '\n'
    yield text
  }
}
