import { setImmediate as yieldToRequests } from 'node:timers/promises'
import { JobThread, threadEntry } from '../../threads/jobThread'
import { AppError } from '../errors'
import { tooLarge } from './recordScan'
import type { DecodedUpload, UploadRequest } from './uploadDecode'
import type { DecodeJob, PackedUpload } from './uploadDecodeWorker'

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

interface Reply {
  packed?: PackedUpload
  refusal?: { status: number; code: number; message: string; data: unknown }
}

class Decoder {
  private readonly thread = new JobThread<DecodeJob, Reply>(() => threadEntry(import.meta.url, 'uploadDecodeWorker'), {
    heapMb: HEAP_MB,
    thread: 'the decode thread',
    work: 'decoding an upload',
    lost: (err, outOfMemory) => (outOfMemory ? tooLarge('the upload is too large to decode') : err),
  })

  async decode(request: UploadRequest): Promise<DecodedUpload> {
    const reply = await this.thread.run({ request })
    if (reply.refusal) throw new AppError(reply.refusal.status, reply.refusal.code, reply.refusal.message, reply.refusal.data)
    return unpacked(reply.packed!)
  }
}

const decoders = Array.from({ length: DECODERS }, () => new Decoder())
const idle = [...decoders]
const waiting: ((decoder: Decoder) => void)[] = []
let waitingBytes = 0
let waitingLimit = WAITING_BYTES
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
    return await decoder.decode(request)
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
