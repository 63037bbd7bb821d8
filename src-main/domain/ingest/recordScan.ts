import { setImmediate as yieldToRequests } from 'node:timers/promises'
import { AppError, badParam } from '../errors'

/**
 * Splits an upload's JSON (a top-level array of record objects, or one object) into its records
 * without materialising the whole document: a byte scan finds each record's bounds first, so an
 * array of 40 million numbers is refused at its first element, a record past the size cap or a
 * record past the count cap is refused before anything is parsed, and both the scan and the
 * parsing give way to other requests every few milliseconds (the server keeps answering).
 */

/** Most records one upload may hold. */
export const MAX_RECORDS = 10_000
/** Largest record, in bytes of JSON. */
export const MAX_RECORD_BYTES = 1024 * 1024
/** Bytes scanned, or parsed, between two turns given to other requests. */
const SLICE_BYTES = 1024 * 1024

/** One record of an upload: the `appid` it names (null when it names none) and its JSON text. */
export interface UploadRecord {
  appid: string | null
  text: string
}

export function tooLarge(message: string): AppError {
  return new AppError(413, 413, message, ['body'])
}

const notJson = (detail: string) => badParam('body', `the upload is not a JSON array of records: ${detail}`)

const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d])
const [QUOTE, BACKSLASH, COMMA, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY] = [0x22, 0x5c, 0x2c, 0x7b, 0x7d, 0x5b, 0x5d]

/** The [start, end) byte bounds of each top-level record. */
async function recordBounds(json: Buffer, from: number): Promise<[number, number][]> {
  const bounds: [number, number][] = []
  const single = json[from] === OPEN_OBJECT
  // depth of the record being read (0 between records); the top-level array itself is not counted
  let depth = 0
  let inString = false
  let escaped = false
  let start = -1
  let closed = false
  let expectRecord = true
  for (let i = single ? from : from + 1; i < json.length; i++) {
    if (i % SLICE_BYTES === 0) await yieldToRequests()
    const c = json[i]
    if (closed) {
      if (!SPACE.has(c)) throw notJson(`text after its end (byte ${i + 1})`)
      continue
    }
    if (depth > 0 && i - start > MAX_RECORD_BYTES) throw tooLarge(`record ${bounds.length + 1} is larger than ${MAX_RECORD_BYTES / 1024 / 1024} MB`)
    if (inString) {
      if (escaped) escaped = false
      else if (c === BACKSLASH) escaped = true
      else if (c === QUOTE) inString = false
      continue
    }
    if (depth === 0) {
      if (SPACE.has(c)) continue
      if (c === CLOSE_ARRAY && !single && (expectRecord === (bounds.length === 0))) {
        closed = true
        continue
      }
      if (expectRecord && c === OPEN_OBJECT) {
        if (bounds.length === MAX_RECORDS) throw tooLarge(`the upload holds more than ${MAX_RECORDS} records; send them in smaller batches`)
        start = i
        depth = 1
        expectRecord = false
        continue
      }
      if (!expectRecord && c === COMMA && !single) {
        expectRecord = true
        continue
      }
      if (expectRecord) throw badParam('body', `record ${bounds.length + 1} of the upload is not an object`)
      throw notJson(`unexpected character at byte ${i + 1}`)
    }
    if (c === QUOTE) inString = true
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--
      if (depth === 0) {
        bounds.push([start, i + 1])
        if (single) closed = true
      }
    }
  }
  if (!closed) throw notJson('it ends before its last record does')
  return bounds
}

/**
 * From the first bytes of an unzipped upload: an array whose first element is not a record (an
 * array of 40 million numbers) is refused before the rest is unzipped. Null when the bytes are
 * not a JSON array (base64 inside the zip) or its start looks right.
 */
export function firstRecordRefusal(prefix: Buffer): AppError | null {
  let i = prefix[0] === 0xef && prefix[1] === 0xbb && prefix[2] === 0xbf ? 3 : 0
  while (i < prefix.length && SPACE.has(prefix[i])) i++
  if (prefix[i] !== OPEN_ARRAY) return null
  i++
  while (i < prefix.length && SPACE.has(prefix[i])) i++
  if (i === prefix.length || prefix[i] === OPEN_OBJECT || prefix[i] === CLOSE_ARRAY) return null
  return badParam('body', 'record 1 of the upload is not an object')
}

/** The records of an upload's JSON bytes (leading spaces and a byte-order mark allowed). */
export async function splitRecords(json: Buffer): Promise<UploadRecord[]> {
  let from = json[0] === 0xef && json[1] === 0xbb && json[2] === 0xbf ? 3 : 0
  while (from < json.length && SPACE.has(json[from])) from++
  if (json[from] !== OPEN_ARRAY && json[from] !== OPEN_OBJECT) {
    throw badParam('body', 'the upload is neither a JSON array of records nor gzip-then-base64 JSON')
  }
  const bounds = await recordBounds(json, from)
  if (bounds.length === 0) throw badParam('body', 'the upload holds no records')
  const records: UploadRecord[] = []
  let sinceYield = 0
  for (const [start, end] of bounds) {
    sinceYield += end - start
    if (sinceYield > SLICE_BYTES) {
      sinceYield = 0
      await yieldToRequests()
    }
    const text = json.toString('utf8', start, end)
    let record: Record<string, unknown>
    try {
      record = JSON.parse(text) as Record<string, unknown>
    } catch {
      throw notJson(`record ${records.length + 1} is not valid JSON`)
    }
    const appid = typeof record.appid === 'string' && record.appid !== '' ? record.appid : null
    records.push({ appid, text })
  }
  return records
}
