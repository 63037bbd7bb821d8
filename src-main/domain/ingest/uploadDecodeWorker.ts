import { serveJobs } from '../../threads/jobThread'
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
  request: UploadRequest
}

serveJobs<DecodeJob, { packed: PackedUpload } | { refusal: { status: number; code: number; message: string; data: unknown } }>(async ({ request }) => {
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
    return { reply: { packed }, transfer: [bytes.buffer, ends.buffer] }
  } catch (err) {
    // anything else goes back as its message (serveJobs)
    if (!(err instanceof AppError)) throw err
    return { reply: { refusal: { status: err.status, code: err.code, message: err.message, data: err.data } } }
  }
})
