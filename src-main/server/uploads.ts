import { randomUUID } from 'node:crypto'
import { createWriteStream, rmSync } from 'node:fs'
import { extname, join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { FastifyRequest } from 'fastify'
import { AppError, badParam } from '../domain/errors'
import { privateDir } from '../store/private'

/** A multipart request's fields and its one file, saved under the data folder's uploads/. */
export interface Upload {
  fields: Record<string, string>
  file: string | null
  filename: string | null
}

export const MAX_UPLOAD_BYTES = 4 * 1024 ** 3

/**
 * The multipart reader's own failures (no boundary, a body cut short, a bad part header) are the
 * caller's body: a 400 naming it. A failure to write the file (a full disk) stays what it is.
 */
export function unreadable(err: unknown): unknown {
  if (err instanceof AppError || !(err instanceof Error)) return err
  if ('syscall' in err || 'statusCode' in err) return err
  return badParam('body', `the multipart body cannot be read: ${err.message}`)
}

/**
 * Streams the file part to disk (never into memory) and collects the text fields. The caller owns
 * the saved file and deletes it when done.
 */
export async function receiveUpload(request: FastifyRequest, dataDir: string): Promise<Upload> {
  const dir = join(dataDir, 'uploads')
  privateDir(dir)
  const upload: Upload = { fields: {}, file: null, filename: null }
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (upload.file) throw badParam('file', 'send one file per request')
        // keep the extension (it names the format); the rest of the name is ours
        const ext = extname(part.filename).toLowerCase().replace(/[^.a-z0-9]/g, '').slice(0, 12)
        const gz = part.filename.toLowerCase().endsWith('.gz') ? extname(part.filename.slice(0, -3)).toLowerCase().replace(/[^.a-z0-9]/g, '') : ''
        upload.file = join(dir, `${randomUUID()}${gz}${ext}`)
        upload.filename = part.filename
        await pipeline(part.file, createWriteStream(upload.file, { mode: 0o600 }))
        if (part.file.truncated) throw badParam('file', `the file is larger than ${MAX_UPLOAD_BYTES / 1024 ** 3} GB`)
      } else {
        upload.fields[part.fieldname] = String(part.value)
      }
    }
  } catch (err) {
    if (upload.file) rmSync(upload.file, { force: true })
    throw unreadable(err)
  }
  return upload
}
