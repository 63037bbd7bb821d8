import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { setImmediate as yieldToRequests } from 'node:timers/promises'
import { Worker } from 'node:worker_threads'
import { AppError } from '../errors'
import { tooLarge } from './recordScan'
import type { DecodedUpload, UploadRequest } from './uploadDecode'
import type { PackedUpload } from './uploadDecodeWorker'

/**
 * Uploads are decoded (unzipped, split, parsed) on worker threads, never on the thread that
 * answers requests: a 60 MB upload would otherwise hold every other request for a few hundred ms
 * of parsing and garbage collection. DECODERS threads, one upload each at a time; at most
 * WAITING_MAX more wait their turn (later ones are a 503: send again), so hostile uploads cannot
 * pile up in memory. A thread has a heap limit: an upload that would pass it is a 413, and the
 * thread is replaced.
 */

/** Threads decoding at once (the uploads decoded at once). */
export const DECODERS = 2
/** Uploads waiting for a thread; more are refused with 503. */
export const WAITING_MAX = 16
/** Heap of a decode thread, in MB: a 64 MB upload decodes in well under that. */
const HEAP_MB = 512

/**
 * Where the thread's code is. Built (electron-vite: out/main/index.js), it is the
 * `uploadDecodeWorker` entry beside this bundle. From the sources (tsx: the CLI, `npm start`, the
 * bench; vitest), the thread first registers tsx, as the parent did, then imports the .ts file.
 */
function workerEntry(): URL {
  const here = import.meta.url
  if (!here.endsWith('.ts')) return pathToFileURL(join(dirname(fileURLToPath(here)), 'uploadDecodeWorker.js'))
  // tsx's ESM entry (its exports' `import` condition); resolved here, where node_modules is found
  const tsx = createRequire(here).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')
  const source = pathToFileURL(join(dirname(fileURLToPath(here)), 'uploadDecodeWorker.ts')).href
  const boot = `import { register } from ${JSON.stringify(pathToFileURL(tsx).href)}; register(); await import(${JSON.stringify(source)})`
  return new URL(`data:text/javascript,${encodeURIComponent(boot)}`)
}

/** The records' texts from a thread's packed answer, a megabyte at a time between other requests. */
async function unpacked(packed: PackedUpload): Promise<DecodedUpload> {
  const bytes = Buffer.from(packed.bytes.buffer, packed.bytes.byteOffset, packed.bytes.byteLength)
  const records: DecodedUpload['records'] = []
  let start = 0
  let sinceYield = 0
  for (let i = 0; i < packed.ends.length; i++) {
    records.push({ appid: packed.appids[i], text: bytes.toString('utf8', start, packed.ends[i]) })
    sinceYield += packed.ends[i] - start
    start = packed.ends[i]
    if (sinceYield >= 1024 * 1024) {
      sinceYield = 0
      await yieldToRequests()
    }
  }
  return { appid: packed.appid, records }
}

interface Pending {
  resolve: (upload: DecodedUpload) => void
  reject: (err: unknown) => void
}

interface Reply {
  id: number
  packed?: PackedUpload
  refusal?: { status: number; code: number; message: string; data: unknown }
  failure?: string
}

class Decoder {
  private worker: Worker | null = null
  private pending = new Map<number, Pending>()

  private start(): Worker {
    const worker = new Worker(workerEntry(), { resourceLimits: { maxOldGenerationSizeMb: HEAP_MB } })
    // an idle decoder keeps no process alive (the CLI, tests)
    worker.unref()
    worker.on('message', (reply: Reply) => {
      const job = this.pending.get(reply.id)
      if (!job) return
      this.pending.delete(reply.id)
      if (reply.packed) unpacked(reply.packed).then(job.resolve, job.reject)
      else if (reply.refusal) job.reject(new AppError(reply.refusal.status, reply.refusal.code, reply.refusal.message, reply.refusal.data))
      else job.reject(new Error(`decoding an upload failed: ${reply.failure}`))
    })
    const lost = (err: unknown) => {
      if (this.worker !== worker) return
      this.worker = null
      const outOfMemory = (err as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY'
      for (const job of this.pending.values()) job.reject(outOfMemory ? tooLarge('the upload is too large to decode') : err)
      this.pending.clear()
    }
    worker.on('error', lost)
    worker.on('exit', (code) => lost(new Error(`the decode thread stopped (exit code ${code})`)))
    this.worker = worker
    return worker
  }

  decode(id: number, request: UploadRequest): Promise<DecodedUpload> {
    const worker = this.worker ?? this.start()
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      worker.postMessage({ id, request })
    })
  }
}

const decoders = Array.from({ length: DECODERS }, () => new Decoder())
const idle = [...decoders]
const waiting: ((decoder: Decoder) => void)[] = []
let nextId = 0

/** Decodes an upload on a decode thread, in turn. */
export async function decodeOffThread(request: UploadRequest): Promise<DecodedUpload> {
  let decoder = idle.pop()
  if (!decoder) {
    if (waiting.length >= WAITING_MAX) throw new AppError(503, 503, `the collector is decoding ${DECODERS + WAITING_MAX} uploads already; send again in a moment`)
    decoder = await new Promise<Decoder>((resolve) => waiting.push(resolve))
  }
  try {
    return await decoder.decode(++nextId, request)
  } finally {
    // the thread passes straight to the next in line, or is free
    const next = waiting.shift()
    if (next) next(decoder)
    else idle.push(decoder)
  }
}
