import { parentPort } from 'node:worker_threads'
import { AppError } from '../errors'
import { decodeUpload, type UploadRequest } from './uploadDecode'

/**
 * A decode thread of the collector (see decodePool): unzips, splits and parses uploads here, so
 * that the server's own thread keeps answering. One upload at a time; refusals go back as the
 * AppError's parts, anything else as its message.
 */

export interface DecodeJob {
  id: number
  request: UploadRequest
}

parentPort?.on('message', async ({ id, request }: DecodeJob) => {
  try {
    // the body arrives as a plain Uint8Array (structured clone): make it a Buffer again
    const body = request.body === null ? null : Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength)
    parentPort!.postMessage({ id, upload: await decodeUpload({ ...request, body }) })
  } catch (err) {
    if (err instanceof AppError) parentPort!.postMessage({ id, refusal: { status: err.status, code: err.code, message: err.message, data: err.data } })
    else parentPort!.postMessage({ id, failure: err instanceof Error ? err.message : String(err) })
  }
})
