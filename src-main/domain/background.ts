/**
 * Work that a request starts and does not wait for (project creation, stream switches, later
 * imports and cohorts). Kept here so that shutdown and tests can wait until it has settled.
 */
export class Background {
  private readonly pending = new Set<Promise<void>>()

  constructor(private readonly onError: (err: unknown, what: string) => void) {}

  run(what: string, work: () => Promise<void>): void {
    const job = Promise.resolve()
      .then(work)
      .catch((err) => this.onError(err, what))
      .finally(() => this.pending.delete(job))
    this.pending.add(job)
  }

  /** Resolves once no background work is left, including work started meanwhile. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending])
  }
}
