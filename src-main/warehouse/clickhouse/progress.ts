import type { ClickHouseClient } from './client'
import { quoteString } from './literal'

const POLL_MS = 250

/**
 * How far a connection's running queries are: rows read of the rows ClickHouse expects to read,
 * from `system.processes` (18.16 accepts send_progress_in_http_headers but sends no progress
 * header). Asked every 250 ms while someone reads `value` and a query runs, and only then.
 */
export class ProgressPoll {
  #value = -1
  #polling = false

  constructor(
    private readonly client: () => ClickHouseClient,
    /** The ids of the queries now running (an empty set once the connection is closed). */
    private readonly running: () => ReadonlySet<string>,
  ) {}

  /** Percent, or -1 when nothing runs or the server cannot tell yet. */
  get value(): number {
    if (this.running().size === 0) return -1
    if (!this.#polling) void this.#poll()
    return this.#value
  }

  async #poll(): Promise<void> {
    this.#polling = true
    try {
      while (this.running().size > 0) {
        const ids = [...this.running()].map(quoteString).join(', ')
        const answer = await this.client()
          .query(`SELECT sum(read_rows), sum(total_rows_approx) FROM system.processes WHERE query_id IN (${ids})`)
          .catch(() => null)
        const [read, total] = answer ? answer.rows[0].map(Number) : [0, 0]
        this.#value = total > 0 ? Math.min(100, (100 * read) / total) : -1
        await new Promise((resolve) => setTimeout(resolve, POLL_MS).unref())
      }
    } finally {
      this.#polling = false
      this.#value = -1
    }
  }
}
