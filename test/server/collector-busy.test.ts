import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeQueue, holdDecodersForTest, WAITING_FLOOR_BYTES } from '../../src-main/domain/ingest/decodePool'
import { withWriteLock } from '../../src-main/domain/writeLock'
import { sdkRecord, switchStreamAndWait } from '../helpers/collector'
import { newProject, warehouseRows } from '../helpers/ingest'
import { rawRequest, type RawResponse } from '../helpers/raw'
import { eventually, startTestServer, type TestServer } from '../helpers/server'

/**
 * The collector's busy 503s ("send again", which most SDKs drop) are logged: refused by busy
 * decode threads (before decoding: the appid and SDK are read from the upload's first kilobytes),
 * or by a project busy writing. The decoders are held by the test seam, so the queue is filled
 * exactly, not raced.
 */

let s: TestServer
let host: string
let shop: Record<string, string>
let blog: Record<string, string>

beforeAll(async () => {
  s = await startTestServer()
  shop = await newProject(s, 'shop', 'UTC')
  blog = await newProject(s, 'blog', 'UTC')
  await switchStreamAndWait(s, 'shop', true)
  host = `127.0.0.1:${s.app.port}`
})
afterAll(() => s.stop())

/** `n` records of about 1 KB each, for user `who`. */
const records = (appid: string | undefined, who: string, n: number, lib: Record<string, unknown> = {}) =>
  Array.from({ length: n }, (_, i) => sdkRecord(appid, who, 'view', { ...lib, n: i, note: 'x'.repeat(900) }))

/** The browser SDK's post mode: raw JSON, form-urlencoded content type, appid in the address. */
const browserPost = (body: Buffer) => rawRequest(s.app.port, 'POST', '/up?appid=shop', { host, 'content-type': 'application/x-www-form-urlencoded' }, body)
const problems = async (headers: Record<string, string>) => (await s.call('GET', '/uba/api/ingest/problems', { headers })).body

describe('uploads refused while the collector is busy', () => {
  it('are counted exactly, under the project the address or the body names (else server-wide), and the waiting ones land in full', async () => {
    // two held by the decoders, three waiting (30 records each), then the bound is full
    const held = [0, 1].map((k) => Buffer.from(JSON.stringify(records(undefined, `held${k}`, 30))))
    const queued = [0, 1, 2].map((k) => Buffer.from(JSON.stringify(records(undefined, `queued${k}`, 30))))
    const queuedBytes = queued.reduce((sum, b) => sum + b.length, 0)
    expect(queued[0].length).toBeGreaterThan(WAITING_FLOOR_BYTES)
    // one more upload of at least the floor passes the bound by one byte
    const release = holdDecodersForTest(queuedBytes + WAITING_FLOOR_BYTES - 1)
    let answers: Promise<RawResponse>[] = []
    try {
      answers = held.map(browserPost)
      await eventually(async () => decodeQueue().decoding === 2)
      answers.push(...queued.map(browserPost))
      await eventually(async () => decodeQueue().waiting === 3)
      expect(decodeQueue().waitingBytes).toBe(queuedBytes)

      const before = Date.now()
      // browser post: the appid in the address
      const post = Buffer.from(JSON.stringify(records(undefined, 'lost1', 20)))
      const refused = await browserPost(post)
      expect(refused.status).toBe(503)
      expect(refused.body).toMatchObject({ code: 503, msg: 'the collector is busy decoding other uploads; send again in a moment' })
      // Python: base64 of gzip, as a form with no field name; the appid only inside
      const python = Buffer.from(gzipSync(JSON.stringify(records('shop', 'lost2', 20, { $lib: 'python', $lib_version: '4.2.1' }))).toString('base64'))
      expect((await rawRequest(s.app.port, 'POST', '/up', { host, 'content-type': 'application/x-www-form-urlencoded' }, python)).status).toBe(503)
      // the browser's image request: everything in the address
      const image = `appid=shop&data=${encodeURIComponent(Buffer.from(JSON.stringify(records(undefined, 'lost3', 2))).toString('base64'))}&send_type=img`
      expect((await rawRequest(s.app.port, 'GET', `/up?${image}`, { host })).status).toBe(503)
      // Node: a JSON array naming a project this server does not have: server-wide
      const node = Buffer.from(JSON.stringify(records('nosuch', 'lost4', 3, { $lib: 'Node', $lib_version: '1.1.0' })))
      expect((await rawRequest(s.app.port, 'POST', '/up', { host, 'content-type': 'application/json' }, node)).status).toBe(503)
      // nothing was decoded for them: the queue is as it was
      expect(decodeQueue()).toEqual({ decoding: 2, waiting: 3, waitingBytes: queuedBytes })

      const log = await problems(shop)
      // the problem counts are untouched: these are counted apart, with their bytes
      expect(log).toMatchObject({ total: 0, counts: [], examples: [] })
      expect(log.busyRefusals).toEqual({
        uploads: 4,
        bytes: post.length + python.length + Buffer.byteLength(image) + node.length,
        lastTime: expect.any(Number),
        refusals: expect.any(Array),
      })
      const rows = [...log.busyRefusals.refusals].sort((a: any, b: any) => `${a.scope}${a.lib}`.localeCompare(`${b.scope}${b.lib}`))
      const at = { lastTime: expect.any(Number) }
      expect(rows).toEqual([
        { scope: 'project', reason: 'decoders', appid: 'shop', lib: 'JS', libVersion: '4.1.0', uploads: 2, records: 0, bytes: post.length + Buffer.byteLength(image), ...at },
        { scope: 'project', reason: 'decoders', appid: 'shop', lib: 'python', libVersion: '4.2.1', uploads: 1, records: 0, bytes: python.length, ...at },
        { scope: 'server', reason: 'decoders', appid: 'nosuch', lib: 'Node', libVersion: '1.1.0', uploads: 1, records: 0, bytes: node.length, ...at },
      ])
      expect(log.busyRefusals.lastTime).toBeGreaterThanOrEqual(before)
      // another project's log shows the server-wide one only
      expect((await problems(blog)).busyRefusals).toMatchObject({ uploads: 1, bytes: node.length, refusals: [{ scope: 'server', appid: 'nosuch', uploads: 1 }] })
    } finally {
      release()
    }
    // released: the held and the waiting uploads land whole
    const landed = await Promise.all(answers)
    expect(landed.map((r) => [r.status, r.body.stored])).toEqual(Array.from({ length: 5 }, () => [200, 30]))
    expect(await warehouseRows(s, 'shop', `SELECT count(*) AS n, count(DISTINCT xwho) AS users FROM event_vd`)).toEqual([{ n: 150, users: 5 }])
    expect(await warehouseRows(s, 'shop', `SELECT count(*) AS n FROM event_vd WHERE xwho LIKE 'lost%'`)).toEqual([{ n: 0 }])
    expect(decodeQueue()).toEqual({ decoding: 0, waiting: 0, waitingBytes: 0 })
  })

  it('counts an upload refused because the project is busy writing, with its records', async () => {
    let free = () => undefined as void
    const writing = new Promise<void>((resolve) => (free = resolve))
    // another writer (an import, say) holds the project: the upload waits its 5 s, then is refused
    const holder = withWriteLock(s.app.ctx, 'shop', () => writing)
    try {
      const body = Buffer.from(JSON.stringify(records(undefined, 'late', 7, { $lib: 'Java', $lib_version: '3.6.0' })))
      const res = await browserPost(body)
      expect(res.status).toBe(503)
      expect(res.body).toMatchObject({ code: 503, msg: 'the project is busy with another import; try again shortly' })
      const writer = (await problems(shop)).busyRefusals.refusals.filter((r: any) => r.reason === 'writer')
      expect(writer).toEqual([{ scope: 'project', reason: 'writer', appid: 'shop', lib: 'Java', libVersion: '3.6.0', uploads: 1, records: 7, bytes: body.length, lastTime: expect.any(Number) }])
    } finally {
      free()
      await holder
    }
  }, 20_000)

  it('clearing the log empties the busy refusals, the server-wide ones too', async () => {
    expect((await s.call('DELETE', '/uba/api/ingest/problems', { headers: shop })).status).toBe(200)
    expect((await problems(shop)).busyRefusals).toBeUndefined()
    expect((await problems(blog)).busyRefusals).toBeUndefined()
  })

  it('the route schema describes them', async () => {
    const spec = (await s.call('GET', '/openapi.json')).body
    const schema = spec.paths['/uba/api/ingest/problems'].get.responses['200'].content['application/json'].schema
    const busy = schema.properties.busyRefusals
    expect(busy.required).toEqual(['uploads', 'bytes', 'lastTime', 'refusals'])
    expect(Object.keys(busy.properties.refusals.items.properties)).toEqual(['scope', 'reason', 'appid', 'lib', 'libVersion', 'uploads', 'records', 'bytes', 'lastTime'])
  })
})
