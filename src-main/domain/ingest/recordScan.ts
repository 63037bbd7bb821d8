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

const [QUOTE, BACKSLASH, COMMA, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY] = [0x22, 0x5c, 0x2c, 0x7b, 0x7d, 0x5b, 0x5d]

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09

/** Where the scan of an upload stands between two slices. */
interface ScanState {
  bounds: [number, number][]
  /** One record object, not an array of them. */
  single: boolean
  /** Nesting inside the record being read (0 between records); the top-level array is not counted. */
  depth: number
  /** Where the record being read starts. */
  start: number
  expectRecord: boolean
  closed: boolean
}

/** The end of the string whose opening quote is at `open` (the index of its closing quote), or -1. */
function stringEnd(json: Buffer, open: number): number {
  let at = open
  for (;;) {
    at = json.indexOf(QUOTE, at + 1)
    if (at < 0) return -1
    let backslashes = 0
    while (json[at - 1 - backslashes] === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return at
  }
}

/** Scans bytes [from, to) (a string may run past `to`); answers where the next slice starts. */
function scanSlice(json: Buffer, from: number, to: number, state: ScanState): number {
  let i = from
  for (; i < to; i++) {
    const c = json[i]
    if (state.closed) {
      if (!isSpace(c)) throw notJson(`text after its end (byte ${i + 1})`)
      continue
    }
    if (state.depth === 0) {
      if (isSpace(c)) continue
      if (c === CLOSE_ARRAY && !state.single && state.expectRecord === (state.bounds.length === 0)) {
        state.closed = true
      } else if (state.expectRecord && c === OPEN_OBJECT) {
        if (state.bounds.length === MAX_RECORDS) throw tooLarge(`the upload holds more than ${MAX_RECORDS} records; send them in smaller batches`)
        state.start = i
        state.depth = 1
        state.expectRecord = false
      } else if (!state.expectRecord && c === COMMA && !state.single) {
        state.expectRecord = true
      } else if (state.expectRecord) {
        throw badParam('body', `record ${state.bounds.length + 1} of the upload is not an object`)
      } else {
        throw notJson(`unexpected character at byte ${i + 1}`)
      }
      continue
    }
    if (c === QUOTE) {
      // strings are skipped whole (memchr speed): records are mostly strings
      const end = stringEnd(json, i)
      if (end < 0) throw notJson('it ends before its last record does')
      i = end
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      state.depth++
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      state.depth--
      if (state.depth === 0) {
        state.bounds.push([state.start, i + 1])
        if (state.single) state.closed = true
      }
    }
    if (i - state.start >= MAX_RECORD_BYTES) throw tooLarge(`record ${state.bounds.length + 1} is larger than ${MAX_RECORD_BYTES / 1024 / 1024} MB`)
  }
  return i
}

/** The [start, end) byte bounds of each top-level record, scanned a slice at a time. */
async function recordBounds(json: Buffer, from: number): Promise<[number, number][]> {
  const single = json[from] === OPEN_OBJECT
  const state: ScanState = { bounds: [], single, depth: 0, start: -1, expectRecord: true, closed: false }
  let i = single ? from : from + 1
  while (i < json.length) {
    i = scanSlice(json, i, Math.min(i + SLICE_BYTES, json.length), state)
    if (i < json.length) await yieldToRequests()
  }
  if (!state.closed) throw notJson('it ends before its last record does')
  return state.bounds
}

/**
 * From the first bytes of an unzipped upload: an array whose first element is not a record (an
 * array of 40 million numbers) is refused before the rest is unzipped. Null when the bytes are
 * not a JSON array (base64 inside the zip) or its start looks right.
 */
export function firstRecordRefusal(prefix: Buffer): AppError | null {
  let i = prefix[0] === 0xef && prefix[1] === 0xbb && prefix[2] === 0xbf ? 3 : 0
  while (i < prefix.length && isSpace(prefix[i])) i++
  if (prefix[i] !== OPEN_ARRAY) return null
  i++
  while (i < prefix.length && isSpace(prefix[i])) i++
  if (i === prefix.length || prefix[i] === OPEN_OBJECT || prefix[i] === CLOSE_ARRAY) return null
  return badParam('body', 'record 1 of the upload is not an object')
}

/** The records of an upload's JSON bytes (leading spaces and a byte-order mark allowed). */
export async function splitRecords(json: Buffer): Promise<UploadRecord[]> {
  let from = json[0] === 0xef && json[1] === 0xbb && json[2] === 0xbf ? 3 : 0
  while (from < json.length && isSpace(json[from])) from++
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
