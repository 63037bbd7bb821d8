import type { Transform } from 'node:stream'
import { setImmediate as yieldToRequests } from 'node:timers/promises'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import { badParam } from '../errors'
import { firstRecordRefusal, splitRecords, tooLarge, type UploadRecord } from './recordScan'

/**
 * What the SDKs send to /up, by transport, turned into records:
 * - the browser SDK's image request: GET with `data` (base64 of the JSON, percent-encoded) in the
 *   address, and `appid`, `send_type` beside it;
 * - its XHR (form-urlencoded content type, raw JSON body) and its beacon (text/plain, raw JSON);
 * - Node: a JSON array; Python: base64 of gzip with no field name, as form-urlencoded; Java: base64
 *   of gzip as text/plain with `Content-Encoding: UTF-8` (a charset, not a compression).
 * Also a `data=` form field, URL-safe base64, and a real `Content-Encoding: gzip`. Everything that
 * unzips is capped, and the records are split and parsed in slices (see recordScan).
 */

/** Most bytes an upload may unzip to. */
export const MAX_UNZIPPED_BYTES = 64 * 1024 * 1024

export interface UploadRequest {
  /** The raw query string (after `?`), or ''. */
  query: string
  /** The raw body, or null (GET). */
  body: Buffer | null
  /** The Content-Encoding header. */
  contentEncoding?: string
}

export interface DecodedUpload {
  records: UploadRecord[]
  /** The `appid` of the address (or of the form), which records without their own take. */
  appid: string | null
}

const CHUNK_BYTES = 256 * 1024
const inflaters: Record<string, () => Transform> = {
  gzip: () => createGunzip({ chunkSize: CHUNK_BYTES }),
  'x-gzip': () => createGunzip({ chunkSize: CHUNK_BYTES }),
  deflate: () => createInflate({ chunkSize: CHUNK_BYTES }),
  br: () => createBrotliDecompress({ chunkSize: CHUNK_BYTES }),
}

/** The chunks as one buffer, copied a few megabytes at a time (a 64 MB copy would hold requests up). */
async function joined(chunks: Buffer[], total: number): Promise<Buffer> {
  const out = Buffer.allocUnsafe(total)
  let at = 0
  let sinceYield = 0
  for (const chunk of chunks) {
    chunk.copy(out, at)
    at += chunk.length
    sinceYield += chunk.length
    if (sinceYield >= 4 * 1024 * 1024) {
      sinceYield = 0
      await yieldToRequests()
    }
  }
  return out
}

/**
 * Unzips with the cap, as a stream: the work runs on libuv's pool (requests keep being answered),
 * it stops as soon as the cap is passed, and an array whose first element is not a record is
 * refused from its first bytes instead of after unzipping all of it.
 */
function unzip(bytes: Buffer, encoding: string, what: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const stream = inflaters[encoding]()
    const chunks: Buffer[] = []
    let total = 0
    let checked = false
    const stop = (err: Error) => {
      stream.destroy()
      reject(err)
    }
    stream.on('data', (chunk: Buffer) => {
      total += chunk.length
      if (total > MAX_UNZIPPED_BYTES) return stop(tooLarge(`the upload unzips to more than ${MAX_UNZIPPED_BYTES / 1024 / 1024} MB`))
      chunks.push(chunk)
      if (!checked && total >= 256) {
        checked = true
        const refusal = firstRecordRefusal(Buffer.concat(chunks))
        if (refusal) stop(refusal)
      }
    })
    stream.on('end', () => resolve(joined(chunks, total)))
    stream.on('error', () => reject(badParam('body', `the upload ${what} but does not unzip`)))
    stream.end(bytes)
  })
}

function percentDecode(text: string, name: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    throw badParam(name, `${name} is not valid percent-encoding`)
  }
}

/** Fields of a query string or form body, percent-decoded; a malformed one is a 400 naming it. */
function formFields(text: string): Map<string, string> {
  const fields = new Map<string, string>()
  for (const pair of text.split('&')) {
    if (pair === '') continue
    const at = pair.indexOf('=')
    const name = percentDecode(at < 0 ? pair : pair.slice(0, at), 'query')
    if (!fields.has(name)) fields.set(name, at < 0 ? '' : percentDecode(pair.slice(at + 1), name))
  }
  return fields
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/** Base64 (standard or URL-safe; a '+' that became a space in a form is put back) to bytes. */
function base64Bytes(text: string, name: string): Buffer {
  const clean = text.replace(/ /g, '+').replace(/[\r\n\t]/g, '').replace(/-/g, '+').replace(/_/g, '/')
  if (!BASE64.test(clean)) throw badParam(name, 'the upload is neither a JSON array of records nor gzip-then-base64 JSON')
  return Buffer.from(clean, 'base64')
}

const isGzip = (bytes: Buffer) => bytes[0] === 0x1f && bytes[1] === 0x8b

/** The JSON bytes a text value carries: JSON itself, or base64 of (possibly gzipped) JSON. */
async function jsonOfValue(value: string, name: string): Promise<Buffer> {
  const start = value.trimStart()[0]
  if (start === '[' || start === '{') return Buffer.from(value, 'utf8')
  const bytes = base64Bytes(value.trim(), name)
  return isGzip(bytes) ? unzip(bytes, 'gzip', 'is gzip-then-base64') : bytes
}

/** The media's own compression, if the Content-Encoding names one (else it is a charset label). */
function compressionOf(contentEncoding: string | undefined): string | null {
  const name = (contentEncoding ?? '').trim().toLowerCase()
  return Object.hasOwn(inflaters, name) ? name : null
}

const firstByte = (bytes: Buffer): number => {
  let i = 0
  while (i < bytes.length && [0x20, 0x09, 0x0a, 0x0d].includes(bytes[i])) i++
  return bytes[i]
}

export async function decodeUpload(request: UploadRequest): Promise<DecodedUpload> {
  const query = formFields(request.query)
  let appid = query.get('appid') || null
  let json: Buffer
  if (request.body === null) {
    const data = query.get('data')
    if (data === undefined || data === '') throw badParam('data', 'data is required: the records, as base64 of their JSON')
    json = await jsonOfValue(data, 'data')
  } else {
    const compression = compressionOf(request.contentEncoding)
    let body = compression ? await unzip(request.body, compression, `is sent with Content-Encoding ${compression}`) : request.body
    if (isGzip(body)) body = await unzip(body, 'gzip', 'is gzip')
    const first = firstByte(body)
    if (first === 0x5b || first === 0x7b || body[0] === 0xef) {
      json = body
    } else {
      const text = body.toString('latin1').trim()
      // a form with a `data` field (the records) and maybe `appid`; otherwise the body is the value
      const form = /^[\w.$-]+=/.test(text) && /(^|&)data=/.test(text) ? formFields(text) : null
      if (form) appid = form.get('appid') || appid
      // base64 is ASCII; a JSON body percent-encoded without a field name is ASCII too
      const value = form ? form.get('data')! : text.includes('%') ? percentDecode(text, 'body') : text
      json = await jsonOfValue(value, form ? 'data' : 'body')
    }
  }
  return { records: await splitRecords(json), appid }
}
