import { ref, type Ref } from 'vue'

/** What a store does with the end of a run that is still the current one. */
export interface RunSettle<T> {
  answer: (value: T) => void
  failed: (error: Error) => void
}

/** The work of one run: it stops when `signal` aborts, and may `report` how far it is, in percent (null: cannot tell). */
export type RunWork<T> = (signal: AbortSignal, report: (percent: number | null) => void) => Promise<T>

export interface CancellableRun<K> {
  /** The key of the run under way (what it computes), null when none is. */
  running: Ref<K | null>
  /** How far the run under way is, as its work last reported; null from its start until it says. */
  progress: Ref<number | null>
  /** A run for `key` is under way: a second caller for the same thing can leave it to that one. */
  live: (key: K) => boolean
  /** Starts a run for `key`, aborting the one under way; resolves once it ended (and was settled, if still current). */
  start: <T>(key: K, work: RunWork<T>, settle: RunSettle<T>) => Promise<void>
  /** Aborts the run under way and ends it at once: it is no longer running, and its answer or failure is dropped. */
  cancel: () => void
}

/**
 * One run at a time that the user can cancel (an analysis, a SQL query), for a store. A start
 * aborts the run before it; the answer or failure of a run that was aborted (replaced or
 * cancelled) is never settled, so what the store kept before stays. Progress is the current run's only.
 */
export function cancellableRun<K>(): CancellableRun<K> {
  const running = ref(null) as Ref<K | null>
  const progress = ref<number | null>(null)
  let controller: AbortController | null = null

  function live(key: K): boolean {
    return controller !== null && running.value === key
  }

  async function start<T>(key: K, work: RunWork<T>, settle: RunSettle<T>): Promise<void> {
    controller?.abort()
    const own = new AbortController()
    controller = own
    running.value = key
    progress.value = null
    const current = () => controller === own
    try {
      const value = await work(own.signal, (percent) => {
        if (current()) progress.value = percent
      })
      if (current()) settle.answer(value)
    } catch (err) {
      if (current()) settle.failed(err as Error)
    } finally {
      if (current()) {
        controller = null
        running.value = null
      }
    }
  }

  function cancel(): void {
    controller?.abort()
    controller = null
    running.value = null
  }

  return { running, progress, live, start, cancel }
}
