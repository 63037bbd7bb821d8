import type { DomainContext } from './context'

/**
 * Runtime state that belongs to one server (its context), such as a cache or the jobs now
 * running: a module global would be shared by every server of the process (tests start many, the
 * CLI may run beside the app). Keyed by the context's warehouse, which every copy of a context
 * shares, as writeLock.ts does.
 */
export function contextState<T>(create: () => T): (ctx: Pick<DomainContext, 'warehouse'>) => T {
  const states = new WeakMap<object, T>()
  return (ctx) => {
    let state = states.get(ctx.warehouse)
    if (state === undefined) {
      state = create()
      states.set(ctx.warehouse, state)
    }
    return state
  }
}
