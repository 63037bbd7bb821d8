import { availableParallelism } from 'node:os'
import { JobThread, threadEntry } from '../../threads/jobThread'
import type { DomainContext } from '../context'
import { contextState } from '../contextState'
import type { FunnelPart } from './funnelPart'
import type { FollowedPaths, FunnelJob, FunnelReply, FunnelThreadOptions, ThreadTally } from './funnelThread'

/**
 * The funnels' path following runs on worker threads (funnelThread.ts), never on the thread that
 * answers requests: on 10M events it takes seconds, and `/health`, the collector and every other
 * request would wait for it. One thread per core by default (the context's `analysisThreads`
 * forces another number), started on the first funnel and stopped when the app closes. A funnel's
 * parts of the users go to the least busy thread, one part per thread at a time while the next
 * part is read; the threads' tallies add up exactly (counts summed, step times joined before the
 * medians are taken).
 */

type FunnelThread = JobThread<FunnelJob, FunnelReply>

/** Heap of a path-following thread, in MB: its events and times are typed arrays, outside it. */
const HEAP_MB = 1024

/** The threads of one server (tests start many in one process). */
class FunnelThreadPool {
  private threads: FunnelThread[] = []
  private runs = 0

  /** The threads to use now: `size` of them (extra idle ones are stopped). */
  take(size: number): { threads: FunnelThread[]; run: number } {
    while (this.threads.length < size) {
      this.threads.push(new JobThread(() => threadEntry(import.meta.url, 'funnelThread'), { heapMb: HEAP_MB, thread: 'a funnel thread', work: 'following funnel paths' }))
    }
    for (const extra of this.threads.slice(size)) if (extra.busy === 0) void extra.close()
    this.threads = this.threads.filter((t, i) => i < size || t.busy > 0)
    return { threads: this.threads.slice(0, size), run: ++this.runs }
  }

  /** Threads started, and parts of funnels being followed or waiting on them. */
  state(): { started: number; following: number } {
    return { started: this.threads.filter((t) => t.started).length, following: this.threads.reduce((n, t) => n + t.busy, 0) }
  }

  async close(): Promise<void> {
    const threads = this.threads
    this.threads = []
    await Promise.all(threads.map((t) => t.close()))
  }
}

const pools = contextState(() => new FunnelThreadPool())

/** How many threads follow paths: the context's choice, else one per core. */
export function funnelThreadCount(ctx: Pick<DomainContext, 'analysisThreads'>): number {
  return ctx.analysisThreads && ctx.analysisThreads > 0 ? ctx.analysisThreads : availableParallelism()
}

/** How busy the server's funnel threads are (what /health's neighbours wait for; tests). */
export function funnelThreadState(ctx: Pick<DomainContext, 'warehouse'>): { started: number; following: number } {
  return pools(ctx).state()
}

/** Stops the server's funnel threads (the app's close). */
export function closeFunnelThreads(ctx: Pick<DomainContext, 'warehouse'>): Promise<void> {
  return pools(ctx).close()
}

/** One funnel's path following on the threads: its parts in, its rows out. */
export class ThreadedPaths {
  private readonly threads: FunnelThread[]
  private readonly run: number
  private readonly used = new Set<FunnelThread>()
  private readonly running = new Set<Promise<void>>()
  private failure: { err: unknown } | null = null
  private parts = 0

  constructor(
    ctx: Pick<DomainContext, 'warehouse' | 'analysisThreads'>,
    private readonly options: FunnelThreadOptions,
  ) {
    ;({ threads: this.threads, run: this.run } = pools(ctx).take(funnelThreadCount(ctx)))
  }

  /** Sends a part to the least busy thread, once fewer parts than threads are being followed; its buffers move there. */
  async add(part: FunnelPart): Promise<void> {
    while (this.running.size >= this.threads.length) await Promise.race(this.running)
    if (this.failure) throw this.failure.err
    // among the least busy, the next in turn: each thread gets its share of the parts
    const turn = this.parts++ % this.threads.length
    const thread = [...this.threads.slice(turn), ...this.threads.slice(0, turn)].reduce((a, b) => (b.busy < a.busy ? b : a))
    this.used.add(thread)
    const buffers = [part.uid.buffer, part.t.buffer, part.md.buffer, ...(part.li ? [part.li.buffer] : [])] as ArrayBuffer[]
    const following: Promise<void> = thread.run({ kind: 'part', run: this.run, options: this.options, part }, buffers).then(
      () => void this.running.delete(following),
      (err: unknown) => {
        this.failure ??= { err }
        this.running.delete(following)
      },
    )
    this.running.add(following)
  }

  /** The rows of every part added (and the cell's users): one thread adds up the others' tallies. */
  async finish(): Promise<FollowedPaths> {
    await Promise.all(this.running)
    if (this.failure) {
      this.drop()
      throw this.failure.err
    }
    const [collector, ...others] = this.used.size > 0 ? [...this.used] : [this.threads[0]]
    const tallies = (await Promise.all(others.map((t) => t.run({ kind: 'parts', run: this.run })))) as ThreadTally[]
    const buffers = tallies.flatMap((t) => t.tally.groups.flatMap((g) => [...g.counts.map((c) => c.buffer), ...g.times.map(([, v]) => v.buffer)])) as ArrayBuffer[]
    return (await collector.run({ kind: 'finish', run: this.run, options: this.options, others: tallies }, buffers)) as FollowedPaths
  }

  /** Forgets the run on the threads (after a failure: what they hold is freed). */
  drop(): void {
    for (const thread of this.used) thread.run({ kind: 'drop', run: this.run }).catch(() => undefined)
  }
}
