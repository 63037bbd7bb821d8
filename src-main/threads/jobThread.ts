import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parentPort, Worker, type TransferListItem } from 'node:worker_threads'

/**
 * Work that would hold the server's thread (decoding uploads, following funnel paths) runs on
 * worker threads. What every such thread shares: where its code is, and one job at a time per
 * message: the parent posts `{ id, ...job }`, the thread answers `{ id, ...reply }` (or
 * `{ id, failure }` when its handler throws). Threads are started on first use.
 */

/**
 * Where a thread's code is: `name` (a file beside `caller`, an import.meta.url). Built
 * (electron-vite: out/main/index.js), it is the entry of that name beside the bundle
 * (electron.vite.config.ts). From the sources (tsx: the CLI, `npm start`, the bench; vitest), the
 * thread first registers tsx, as the parent did, then imports the .ts file.
 */
export function threadEntry(caller: string, name: string): URL {
  if (!caller.endsWith('.ts')) return pathToFileURL(join(dirname(fileURLToPath(caller)), `${name}.js`))
  // tsx's ESM entry (its exports' `import` condition); resolved here, where node_modules is found
  const tsx = createRequire(caller).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')
  const source = pathToFileURL(join(dirname(fileURLToPath(caller)), `${name}.ts`)).href
  const boot = `import { register } from ${JSON.stringify(pathToFileURL(tsx).href)}; register(); await import(${JSON.stringify(source)})`
  return new URL(`data:text/javascript,${encodeURIComponent(boot)}`)
}

/** In a thread: answers each job with `handle`'s reply (its buffers transferred), or its failure's message. */
export function serveJobs<Job extends object, Reply extends object>(handle: (job: Job) => Promise<{ reply: Reply; transfer?: TransferListItem[] }> | { reply: Reply; transfer?: TransferListItem[] }): void {
  parentPort?.on('message', async ({ id, ...job }: { id: number } & Job) => {
    try {
      const { reply, transfer } = await handle(job as unknown as Job)
      parentPort!.postMessage({ id, ...reply }, transfer)
    } catch (err) {
      parentPort!.postMessage({ id, failure: err instanceof Error ? err.message : String(err) })
    }
  })
}

export interface JobThreadOptions {
  /** Heap of the thread, in MB. */
  heapMb: number
  /** Names for errors: the thread ("the decode thread") and its work ("decoding an upload"). */
  thread: string
  work: string
  /** What a job gets when the thread stops under it (default: the error; outOfMemory: its heap ran out). */
  lost?: (err: unknown, outOfMemory: boolean) => unknown
}

interface Pending {
  resolve: (reply: never) => void
  reject: (err: unknown) => void
}

/** One worker thread running jobs in the order sent; replaced on the next job after it stops. */
export class JobThread<Job extends object, Reply extends object> {
  private worker: Worker | null = null
  private readonly pending = new Map<number, Pending>()
  private nextId = 0

  constructor(
    private readonly entry: () => URL,
    private readonly options: JobThreadOptions,
  ) {}

  /** Whether the thread is started. */
  get started(): boolean {
    return this.worker !== null
  }

  /** Jobs sent and not answered yet. */
  get busy(): number {
    return this.pending.size
  }

  run(job: Job, transfer: TransferListItem[] = []): Promise<Reply> {
    const worker = this.worker ?? this.start()
    const id = ++this.nextId
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (reply: never) => void, reject })
      worker.postMessage({ id, ...job }, transfer)
    })
  }

  /** Stops the thread; jobs not answered fail. */
  async close(): Promise<void> {
    const worker = this.worker
    if (!worker) return
    this.lose(worker, new Error(`${this.options.thread} was closed`))
    await worker.terminate()
  }

  private start(): Worker {
    const worker = new Worker(this.entry(), { resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb } })
    // an idle thread keeps no process alive (the CLI, tests)
    worker.unref()
    worker.on('message', ({ id, ...reply }: { id: number; failure?: string }) => {
      const job = this.pending.get(id)
      if (!job) return
      this.pending.delete(id)
      if (reply.failure !== undefined && Object.keys(reply).length === 1) job.reject(new Error(`${this.options.work} failed: ${reply.failure}`))
      else job.resolve(reply as never)
    })
    const lost = (err: unknown) => {
      const outOfMemory = (err as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY'
      this.lose(worker, this.options.lost ? this.options.lost(err, outOfMemory) : err)
    }
    worker.on('error', lost)
    worker.on('exit', (code) => lost(new Error(`${this.options.thread} stopped (exit code ${code})`)))
    this.worker = worker
    return worker
  }

  private lose(worker: Worker, err: unknown): void {
    if (this.worker !== worker) return
    this.worker = null
    for (const job of this.pending.values()) job.reject(err)
    this.pending.clear()
  }
}
