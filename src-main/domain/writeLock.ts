import { AsyncLocalStorage } from 'node:async_hooks'
import type { DomainContext } from './context'
import { AppError } from './errors'

/**
 * One writer per project at a time. Imports, collector batches, sample generation, plan changes
 * and dimension tables all change a project's DuckDB catalog (new columns, new tables); two of
 * them at once would conflict there, and a plan check made before another write's commit would
 * be stale. So each holds the project's lock while it checks and writes.
 */
const tails = new WeakMap<object, Map<string, Promise<unknown>>>()
/** The locks the current async context holds: work inside a holder (a job creating a table) runs at once. */
const held = new AsyncLocalStorage<Set<string>>()

export class LockTimeout extends AppError {
  constructor() {
    super(503, 503, 'the project is busy with another import; try again shortly')
  }
}

/**
 * Runs `work` once every earlier holder of the project's lock is done. With `waitMs`, gives up
 * (LockTimeout) if the lock is not free by then; the work then never runs. Re-entrant: work that
 * already holds the lock runs at once.
 */
export function withWriteLock<T>(ctx: DomainContext, appKey: string, work: () => Promise<T>, waitMs?: number): Promise<T> {
  const mine = held.getStore()
  if (mine?.has(appKey)) return work()
  const holding = () => held.run(new Set([...(mine ?? []), appKey]), work)
  let byProject = tails.get(ctx.warehouse)
  if (!byProject) tails.set(ctx.warehouse, (byProject = new Map()))
  const queue = byProject
  const before = queue.get(appKey) ?? Promise.resolve()
  let timedOut = false
  const waited =
    waitMs === undefined
      ? before.catch(() => undefined)
      : Promise.race([
          before.catch(() => undefined),
          new Promise((_, reject) => setTimeout(() => ((timedOut = true), reject(new LockTimeout())), waitMs).unref()),
        ])
  const run = waited.then(() => (timedOut ? Promise.reject(new LockTimeout()) : holding()))
  // the next holder waits for this one and for everything before it, even if this one gave up
  const tail = run.catch(() => undefined).then(() => before.catch(() => undefined))
  queue.set(appKey, tail)
  void tail.then(() => {
    if (queue.get(appKey) === tail) queue.delete(appKey)
  })
  return run
}
