import { brotliDecompressSync, constants, gunzipSync, inflateSync } from 'node:zlib'
import type { UploadRequest } from './uploadDecode'

/**
 * Who sent an upload that the collector refuses before decoding it (busy decoders): the first
 * record's `appid`, `$lib` and `$lib_version`, read from the first few kilobytes only, so that the
 * refusal can be logged under its project. The browser SDK names the appid in the address; the
 * Node, Python and Java SDKs inside the body, which may be gzip and base64: a prefix of it is
 * unzipped (the output is capped), never the whole. Anything unreadable gives nulls, never an error.
 */

export interface UploadSender {
  /** The first record's own appid, else the address's (the record's is the one routed by); null when neither is read. */
  appid: string | null
  lib: string | null
  libVersion: string | null
}

/** Characters of the body (or of `data`) looked at. */
const PEEK_CHARS = 8 * 1024
/** Compressed bytes unzipped: a record or two of the SDKs' JSON. */
const PEEK_ZIPPED = 4 * 1024
/** Most a zipped prefix may unzip to (a prefix that unzips to more is not read): bounded work on the server's thread. */
const PEEK_UNZIPPED = 1024 * 1024

/** A string field of the record text, the first one found. */
export function stringField(text: string, name: string): string | null {
  const escaped = name.replace(/[$]/g, '\\$')
  const found = new RegExp(`"${escaped}"\\s*:\\s*"((?:[^"\\\\]|\\\\.){0,100})"`).exec(text.slice(0, 64 * 1024))
  if (!found) return null
  try {
    return JSON.parse(`"${found[1]}"`) as string
  } catch {
    return found[1]
  }
}

/** The start of a zipped stream, unzipped as far as the prefix goes (a cut stream is flushed, not an error). */
function unzipPrefix(bytes: Buffer, encoding: string): Buffer | null {
  const prefix = bytes.subarray(0, PEEK_ZIPPED)
  try {
    if (encoding === 'br') return brotliDecompressSync(prefix, { finishFlush: constants.BROTLI_OPERATION_FLUSH, maxOutputLength: PEEK_UNZIPPED })
    const unzip = encoding === 'deflate' ? inflateSync : gunzipSync
    return unzip(prefix, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: PEEK_UNZIPPED })
  } catch {
    return null
  }
}

const isGzip = (bytes: Buffer) => bytes[0] === 0x1f && bytes[1] === 0x8b

/** The JSON text a (prefix of a) value carries: JSON itself, or base64 of maybe-gzipped JSON. */
function jsonOfPrefix(value: string): string | null {
  const text = value.trimStart().slice(0, PEEK_CHARS)
  if (text.startsWith('[') || text.startsWith('{')) return text
  const clean = text.replace(/ /g, '+').replace(/[\r\n\t]/g, '').replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '')
  const usable = clean.slice(0, clean.length - (clean.length % 4))
  if (!/^[A-Za-z0-9+/]*$/.test(usable)) return null
  const bytes = Buffer.from(usable, 'base64')
  const json = isGzip(bytes) ? unzipPrefix(bytes, 'gzip') : bytes
  return json ? json.toString('utf8', 0, Math.min(json.length, 64 * 1024)) : null
}

/** A percent-encoded prefix decoded; a cut escape at its end is left off. */
function percentPrefix(text: string): string | null {
  try {
    return decodeURIComponent(text.slice(0, PEEK_CHARS * 3).replace(/%[0-9A-Fa-f]?$/, '').replace(/\+/g, ' '))
  } catch {
    return null
  }
}

function queryField(query: string, name: string): string | null {
  for (const pair of query.split('&')) {
    const at = pair.indexOf('=')
    if (at > 0 && pair.slice(0, at) === name) return pair.slice(at + 1)
  }
  return null
}

/** The first records' text, as far as a prefix of the upload shows it. */
function recordsPrefix(request: UploadRequest): string | null {
  if (request.body === null) {
    const data = queryField(request.query, 'data')
    const value = data === null ? null : percentPrefix(data)
    return value === null ? null : jsonOfPrefix(value)
  }
  let body: Buffer | null = request.body.subarray(0, PEEK_CHARS)
  const encoding = (request.contentEncoding ?? '').trim().toLowerCase().replace(/^x-/, '')
  if (['gzip', 'deflate', 'br'].includes(encoding)) body = unzipPrefix(request.body, encoding)
  if (body && isGzip(body)) body = unzipPrefix(body, 'gzip')
  if (!body) return null
  const text = body.toString('latin1').trimStart()
  if (text.startsWith('[') || text.startsWith('{')) return body.toString('utf8').trimStart()
  // a form with a `data` field, or the value alone (base64, or percent-encoded JSON)
  const data = /^[\w.$-]+=/.test(text) ? queryField(text, 'data') : null
  const value = data !== null ? percentPrefix(data) : text.includes('%') ? percentPrefix(text) : text
  return value === null ? null : jsonOfPrefix(value)
}

/** Reads the sender of an upload from its address and the first kilobytes of its records. */
export function peekUploadSender(request: UploadRequest): UploadSender {
  let records: string | null = null
  try {
    records = recordsPrefix(request)
  } catch {
    records = null
  }
  // as decodeUpload routes: the record's own appid, else the form's (beside `data`), else the address's
  const form = request.body === null ? null : queryField(request.body.subarray(0, PEEK_CHARS).toString('latin1'), 'appid')
  const address = queryField(request.query, 'appid')
  let appid = records === null ? null : stringField(records, 'appid')
  if (appid === null && form !== null) appid = percentPrefix(form)
  if (!appid && address !== null) appid = percentPrefix(address)
  return { appid: appid || null, lib: records === null ? null : stringField(records, '$lib'), libVersion: records === null ? null : stringField(records, '$lib_version') }
}
