import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sdkRecord, switchStreamAndWait } from '../helpers/collector'
import { footprint, newProject } from '../helpers/ingest'
import { rawRequest, type RawResponse } from '../helpers/raw'
import { startTestServer, type TestServer } from '../helpers/server'

/**
 * Hostile uploads are refused with {code, msg, data} and do not stall the server: /health keeps
 * answering while they arrive. The payloads are gzip members laid end to end (gunzip reads them
 * as one stream), so a 1 GB bomb costs the test a few kilobytes to build.
 */

let s: TestServer
let host: string
let before: Awaited<ReturnType<typeof footprint>>

beforeAll(async () => {
  s = await startTestServer()
  await newProject(s, 'target', 'UTC')
  await switchStreamAndWait(s, 'target', true)
  host = `127.0.0.1:${s.app.port}`
  before = await footprint(s, 'target')
})
afterAll(() => s.stop())

/** gzip of `head`, then `times` copies of `body`, then `tail`: one stream once unzipped. */
function members(head: string, body: string, times: number, tail: string): Buffer {
  const repeated = gzipSync(body, { level: 9 })
  return Buffer.concat([gzipSync(head), ...Array.from({ length: times }, () => repeated), gzipSync(tail)])
}

const MB = 1024 * 1024
/** ~1 GB of records once unzipped (80 × 13 MB), sent as base64 text like the Java SDK. */
const bomb = () => members('[', '{"xwho":"a"},'.repeat(MB), 80, '{"xwho":"a"}]').toString('base64')
/** 40 million numbers: 80 MB once unzipped. */
const fortyMillion = () => members('[', '0,'.repeat(MB), 40, '0]').toString('base64')
/** 30 million numbers, 60 MB: under the unzip cap. */
const thirtyMillion = () => members('[', '0,'.repeat(MB), 30, '0]').toString('base64')

const post = (body: string | Buffer, type = 'text/plain', extra: Record<string, string> = {}) =>
  rawRequest(s.app.port, 'POST', '/up?appid=target', { host, 'content-type': type, ...extra }, body)

/** Polls /health every 10 ms while `work` runs; answers the latencies seen, in ms. */
async function healthWhile<T>(work: Promise<T>): Promise<{ result: T; latencies: number[] }> {
  const latencies: number[] = []
  let done = false
  const polling = (async () => {
    while (!done) {
      const start = performance.now()
      const res = await rawRequest(s.app.port, 'GET', '/health', { host })
      latencies.push(performance.now() - start)
      expect(res.status).toBe(200)
      await new Promise((r) => setTimeout(r, 10))
    }
  })()
  const result = await work.finally(() => (done = true))
  await polling
  return { result, latencies }
}

/**
 * Generous on purpose: the tests share two cores with much else, and the client runs in the same
 * process; before the caps, a bomb stalled every request for 12 s and a 40-million-element array 32 s.
 */
const HEALTH_LIMIT_MS = 2000

const summary = (latencies: number[]) => {
  const sorted = [...latencies].sort((a, b) => a - b)
  return { polls: sorted.length, median: Math.round(sorted[Math.floor(sorted.length / 2)]), max: Math.round(sorted[sorted.length - 1]) }
}

describe('hostile uploads', () => {
  it('a gzip bomb (base64 of gzip unzipping to 1 GB) is a 413, and /health keeps answering', async () => {
    const body = bomb()
    const rssBefore = process.memoryUsage().rss
    const { result, latencies } = await healthWhile(post(body, 'text/plain; charset=ISO-8859-1', { 'content-encoding': 'UTF-8' }))
    expect(result.status).toBe(413)
    expect(result.body).toEqual({ code: 413, msg: 'the upload unzips to more than 64 MB', data: ['body'] })
    const figures = summary(latencies)
    console.info(`gzip bomb: body ${(body.length / MB).toFixed(2)} MB, /health ${JSON.stringify(figures)} ms, rss +${Math.round((process.memoryUsage().rss - rssBefore) / MB)} MB`)
    expect(figures.max).toBeLessThan(HEALTH_LIMIT_MS)
  })

  it('an array of 40 million numbers (80 MB unzipped) or 30 million (60 MB) is a 400 from its first element', async () => {
    const notRecords = { code: 400, msg: 'record 1 of the upload is not an object', data: ['body'] }
    const forty = await healthWhile(post(fortyMillion()))
    expect(forty.result.body).toEqual(notRecords)
    const thirty = await healthWhile(post(thirtyMillion(), 'application/x-www-form-urlencoded'))
    expect(thirty.result.body).toEqual(notRecords)
    console.info(`40M array: /health ${JSON.stringify(summary(forty.latencies))} ms; 30M array: /health ${JSON.stringify(summary(thirty.latencies))} ms`)
    expect(Math.max(...forty.latencies, ...thirty.latencies)).toBeLessThan(HEALTH_LIMIT_MS)
  })

  it('several hostile uploads at once leave /health answering', async () => {
    const bodies = [bomb(), fortyMillion(), bomb(), thirtyMillion()]
    const { result, latencies } = await healthWhile(Promise.all(bodies.map((b) => post(b))))
    expect(result.map((r: RawResponse) => r.status)).toEqual([413, 400, 413, 400])
    const figures = summary(latencies)
    console.info(`4 hostile uploads at once: /health ${JSON.stringify(figures)} ms`)
    expect(figures.max).toBeLessThan(HEALTH_LIMIT_MS)
  })

  it('more than 10,000 records, or a record over 1 MB, is a 413 before anything is stored', async () => {
    const many = await post(JSON.stringify(Array.from({ length: 10_001 }, (_, i) => sdkRecord('target', `m${i}`, 'many'))), 'application/json')
    expect(many.status).toBe(413)
    expect(many.body).toEqual({ code: 413, msg: 'the upload holds more than 10000 records; send them in smaller batches', data: ['body'] })
    const big = await post(JSON.stringify([sdkRecord('target', 'ok', 'fine'), sdkRecord('target', 'big', 'big', { blob: 'x'.repeat(MB) })]), 'application/json')
    expect(big.status).toBe(413)
    expect(big.body).toEqual({ code: 413, msg: 'record 2 is larger than 1 MB', data: ['body'] })
    expect(await footprint(s, 'target')).toEqual(before)
  })

  it.each([
    ['[{"a":1},]', 'record 2 of the upload is not an object'],
    ['[{"a":1}', 'the upload is not a JSON array of records: it ends before its last record does'],
    ['[{"a":1}] x', 'the upload is not a JSON array of records: text after its end (byte 11)'],
    ['[{"a":tru}]', 'the upload is not a JSON array of records: record 1 is not valid JSON'],
    ['[[{"a":1}]]', 'record 1 of the upload is not an object'],
    ['["{}"]', 'record 1 of the upload is not an object'],
  ])('malformed JSON %j is a 400 naming body', async (body, msg) => {
    const res = await post(body, 'application/json')
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg, data: ['body'] })
  })
})
