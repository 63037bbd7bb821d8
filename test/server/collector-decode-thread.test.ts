import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { Worker } from 'node:worker_threads'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sdkRecord, switchStreamAndWait } from '../helpers/collector'
import { footprint, newProject, warehouseRows } from '../helpers/ingest'
import { rawRequest } from '../helpers/raw'
import { startTestServer, type TestServer } from '../helpers/server'

/**
 * Uploads are decoded on worker threads (decodePool.ts): from the sources here (tsx registered in
 * the thread), and from the build (out/main/uploadDecodeWorker.js, beside the app's index.js).
 */

let s: TestServer
let host: string

beforeAll(async () => {
  // a 60 MB upload needs more warehouse memory than the tests' usual 512 MB (see the last test)
  s = await startTestServer({ memoryLimit: '2GB' })
  await newProject(s, 'big', 'UTC')
  await switchStreamAndWait(s, 'big', true)
  host = `127.0.0.1:${s.app.port}`
})
afterAll(() => s.stop())

const MB = 1024 * 1024

/** 10,000 records of 6 KB: 60 MB once unzipped (the caps: 64 MB, 10,000 records). */
function bigUpload(appKey: string): Buffer {
  const filler = 'x'.repeat(5800)
  const json = JSON.stringify(Array.from({ length: 10_000 }, (_, i) => sdkRecord(appKey, `u${i % 300}`, 'view', { note: `${i} ${filler}`, n: i })))
  expect(json.length).toBeGreaterThan(57 * MB)
  return gzipSync(json)
}

describe('the decode threads', () => {
  it('store a 60 MB upload of 10,000 records while /health keeps answering', async () => {
    const body = bigUpload('big')
    const latencies: number[] = []
    let done = false
    const polling = (async () => {
      while (!done) {
        const start = performance.now()
        expect((await rawRequest(s.app.port, 'GET', '/health', { host })).status).toBe(200)
        latencies.push(performance.now() - start)
        await new Promise((r) => setTimeout(r, 10))
      }
    })()
    const res = await rawRequest(s.app.port, 'POST', '/up?appid=big', { host, 'content-type': 'application/json', 'content-encoding': 'gzip' }, body).finally(() => (done = true))
    await polling
    expect(res.body).toMatchObject({ received: 10_000, stored: 10_000, rejected: 0 })
    expect(await warehouseRows(s, 'big', 'SELECT count(*) AS n, sum(n) AS total, max(length(note)) AS longest FROM event_vd')).toEqual([
      { n: 10_000, total: (9_999 * 10_000) / 2, longest: 5805 },
    ])
    latencies.sort((a, b) => a - b)
    console.info(`60 MB upload: /health ${latencies.length} polls, median ${latencies[latencies.length >> 1].toFixed(1)} ms, max ${latencies[latencies.length - 1].toFixed(1)} ms`)
    // generous: the machine running the tests is shared; before the decode threads, 116-359 ms
    expect(latencies[latencies.length - 1]).toBeLessThan(1000)
  })

  const built = resolve(import.meta.dirname, '..', '..', 'out', 'main', 'uploadDecodeWorker.js')
  it.runIf(existsSync(built))('the built thread (out/main) decodes an upload and answers a refusal with its parts', async () => {
    const worker = new Worker(built)
    try {
      const replies = new Map<number, unknown>()
      const all = new Promise<void>((done, fail) => {
        worker.on('message', (m: { id: number }) => {
          replies.set(m.id, m)
          if (replies.size === 2) done()
        })
        worker.on('error', fail)
      })
      const zipped = gzipSync(JSON.stringify([{ appid: 'a', xwho: 'u', xwhat: 'e', xwhen: 1 }, { xwho: 'v' }]))
      worker.postMessage({ id: 1, request: { query: 'appid=q', body: zipped, contentEncoding: 'gzip' } })
      worker.postMessage({ id: 2, request: { query: '', body: Buffer.from('[1,2]') } })
      await all
      // the texts come back end to end in one transferred buffer
      const first = '{"appid":"a","xwho":"u","xwhat":"e","xwhen":1}'
      const packed = (replies.get(1) as { packed: { appid: string; appids: unknown[]; bytes: Uint8Array; ends: Uint32Array } }).packed
      expect(packed.appid).toBe('q')
      expect(packed.appids).toEqual(['a', null])
      expect(Buffer.from(packed.bytes).toString('utf8')).toBe(`${first}{"xwho":"v"}`)
      expect([...packed.ends]).toEqual([first.length, first.length + '{"xwho":"v"}'.length])
      expect(replies.get(2)).toEqual({ id: 2, refusal: { status: 400, code: 400, message: 'record 1 of the upload is not an object', data: ['body'] } })
    } finally {
      await worker.terminate()
    }
  })

  it('a warehouse with too little memory for an upload answers 413 and stores nothing of it', async () => {
    const small = await startTestServer({ memoryLimit: '256MB' })
    try {
      await newProject(small, 'tight', 'UTC')
      await switchStreamAndWait(small, 'tight', true)
      const before = await footprint(small, 'tight')
      const res = await rawRequest(small.app.port, 'POST', '/up?appid=tight', { host: `127.0.0.1:${small.app.port}`, 'content-type': 'application/json', 'content-encoding': 'gzip' }, bigUpload('tight'))
      expect(res.status).toBe(413)
      expect(res.body).toEqual({ code: 413, msg: 'project tight has too little warehouse memory to store this upload at once; send it in smaller batches', data: ['body'] })
      expect(await footprint(small, 'tight')).toEqual(before)
    } finally {
      await small.stop()
    }
  })
})
