import type { WarehouseSession } from '../warehouse/duckdb'
import { engineUnavailable } from './errors'

/** A value as JSON can carry it: BIGINT as a number when it is exact, else as text. */
export function jsonValue(value: unknown): unknown {
  if (typeof value === 'bigint') return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value.toString()
  if (Array.isArray(value)) return value.map(jsonValue)
  return value
}

/**
 * The rows of one query, read from DuckDB's streaming result a chunk (about 2,048 rows) at a time,
 * so memory stays constant whatever the size and the first rows arrive before the last are
 * computed. The session is closed when the reader stops, finishes or fails; `signal` interrupts the
 * query (a client that went away). Values are converted with `jsonValue`.
 */
export async function* streamRows(
  session: WarehouseSession,
  sql: string,
  values: unknown[] = [],
  signal?: AbortSignal,
): AsyncGenerator<Record<string, unknown>[]> {
  const onAbort = () => session.interrupt()
  signal?.addEventListener('abort', onAbort, { once: true })
  try {
    if (signal?.aborted) return
    const result = await session.conn.stream(sql, values as never)
    for await (const rows of result.yieldRowObjectJs()) {
      if (signal?.aborted) return
      yield rows.map((row) => {
        const out: Record<string, unknown> = {}
        for (const key in row) out[key] = jsonValue(row[key])
        return out
      })
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
