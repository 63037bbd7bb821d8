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
 * of parsing and garbage collection. DECODERS threads, one upload each at a time. The uploads
 * waiting their turn are bounded by their bytes, not by their number: a burst of the SDKs' usual
 * small batches (a few KB each) waits and lands, while hostile uploads cannot pile up in memory.
 * One that would pass the bound is a 503 "send again" (DecodersBusy), which the collector logs
 * (busyRefusals.ts): most SDKs drop a batch on a 503. A thread has a heap limit: an upload that
 * would pass it is a 413, and the thread is replaced.
 */

/** Threads decoding at once (the uploads decoded at once). */
export const DECODERS = 2
/** Bytes of the uploads waiting for a thread (as received); one that would pass it is refused with 503. */
export const WAITING_BYTES = 64 * 1024 * 1024
/** What a waiting upload counts for at least (its request's own memory): bounds a flood of empty ones. */
export const WAITING_FLOOR_BYTES = 16 * 1024

/** The collector's answer when the decoders are busy and the waiting uploads fill WAITING_BYTES. */
export class DecodersBusy extends AppError {
  constructor() {
    super(503, 503, 'the collector is busy decoding other uploads; send again in a moment')
  }
}
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
let waitingBytes = 0
let waitingLimit = WAITING_BYTES
let nextId = 0
/** Test seam (holdDecodersForTest): while set, a decoder taken waits for it before decoding. */
let held: Promise<void> | null = null

/** The bytes an upload holds while it waits: its body or, for an image request, its address. */
export const uploadBytes = (request: UploadRequest): number => request.body?.length ?? Buffer.byteLength(request.query)

/** Decodes an upload on a decode thread, in turn; DecodersBusy when too many bytes wait already. */
export async function decodeOffThread(request: UploadRequest): Promise<DecodedUpload> {
  let decoder = idle.pop()
  if (!decoder) {
    const bytes = Math.max(uploadBytes(request), WAITING_FLOOR_BYTES)
    // one upload larger than the bound may still wait alone
    if (waiting.length > 0 && waitingBytes + bytes > waitingLimit) throw new DecodersBusy()
    waitingBytes += bytes
    decoder = await new Promise<Decoder>((resolve) => waiting.push(resolve)).finally(() => (waitingBytes -= bytes))
  }
  try {
    if (held) await held
    return await decoder.decode(++nextId, request)
  } finally {
    // the thread passes straight to the next in line, or is free
    const next = waiting.shift()
    if (next) next(decoder)
    else idle.push(decoder)
  }
}

/** How busy the decoders are: uploads decoding (or held), and waiting with their counted bytes. */
export function decodeQueue(): { decoding: number; waiting: number; waitingBytes: number } {
  return { decoding: DECODERS - idle.length, waiting: waiting.length, waitingBytes }
}

/**
 * For tests only: holds every decoder taken from now on (the uploads stay "decoding") until the
 * returned release is called, and sets the waiting bound (WAITING_BYTES again at release), so that
 * a test fills the queue exactly instead of racing real decoding.
 */
export function holdDecodersForTest(limitBytes = WAITING_BYTES): () => void {
  let release = () => undefined as void
  held = new Promise<void>((resolve) => (release = resolve))
  waitingLimit = limitBytes
  return () => {
    held = null
    waitingLimit = WAITING_BYTES
    release()
  }
}
