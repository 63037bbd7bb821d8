import { parentPort } from 'node:worker_threads'
import { AppError } from '../errors'
import { decodeUpload, type UploadRequest } from './uploadDecode'

/**
 * A decode thread of the collector (see decodePool): unzips, splits and parses uploads here, so
 * that the server's own thread keeps answering. One upload at a time; refusals go back as the
 * AppError's parts, anything else as its message.
 */

/** A decoded upload as sent back: the records' texts end to end in `bytes`, record i ending at `ends[i]`. */
export interface PackedUpload {
  appid: string | null
  appids: (string | null)[]
  bytes: Uint8Array
  ends: Uint32Array
}

export interface DecodeJob {
  id: number
  request: UploadRequest
}

parentPort?.on('message', async ({ id, request }: DecodeJob) => {
  try {
    // the body arrives as a plain Uint8Array (structured clone): make it a Buffer again
    const body = request.body === null ? null : Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength)
    const upload = await decodeUpload({ ...request, body })
    // the texts go back as one transferred buffer, not as strings: cloning 60 MB of strings would
    // be read back on the server's thread in one go
    // its own memory (a small Buffer would be a slice of the shared pool, which cannot be transferred)
    const bytes = new TextEncoder().encode(upload.records.map((r) => r.text).join(''))
    const ends = new Uint32Array(upload.records.length)
    let at = 0
    upload.records.forEach((r, i) => (ends[i] = at += Buffer.byteLength(r.text, 'utf8')))
    const packed: PackedUpload = { appid: upload.appid, appids: upload.records.map((r) => r.appid), bytes, ends }
    parentPort!.postMessage({ id, packed }, [bytes.buffer, ends.buffer])
  } catch (err) {
    if (err instanceof AppError) parentPort!.postMessage({ id, refusal: { status: err.status, code: err.code, message: err.message, data: err.data } })
    else parentPort!.postMessage({ id, failure: err instanceof Error ? err.message : String(err) })
  }
})
