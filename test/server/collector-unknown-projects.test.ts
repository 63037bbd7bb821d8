import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newProject } from '../helpers/ingest'
import { rawRequest } from '../helpers/raw'
import { APPID_CHARS, UNKNOWN_APPIDS_KEPT } from '../../src-main/domain/ingest/unknownProjects'
import { eventually, startTestServer, type TestServer } from '../helpers/server'

let s: TestServer
let host: string
let shop: Record<string, string>
let blog: Record<string, string>

beforeAll(async () => {
  s = await startTestServer()
  const p = await newProject(s, 'shop', 'UTC')
  shop = { appKey: p.appKey, token: p.token }
  const b = await newProject(s, 'blog', 'UTC')
  blog = { appKey: b.appKey, token: b.token }
  const x = { xtoken: s.creds.xtoken }
  await s.call('POST', '/uba/manage/enterprise/projects/shop/stream', { headers: x, body: { streamSwitch: true } })
  await eventually(async () => (await s.call('GET', '/uba/manage/enterprise/projects/shop', { headers: x })).body.stream === 2)
  host = `127.0.0.1:${s.app.port}`
})
afterAll(() => s.stop())

const PRESETS = { $lib: 'Android', $lib_version: '4.5.1', $platform: 'Android', $is_login: false, $debug: 0 }
const record = (appid: string | undefined, xwho: string) => ({ ...(appid === undefined ? {} : { appid }), xwho, xwhat: 'open', xwhen: 1717200000000, xcontext: PRESETS })
const upload = (records: unknown[]) => rawRequest(s.app.port, 'POST', '/up', { host, 'content-type': 'application/json' }, JSON.stringify(records))
const problems = async (headers = shop) => (await s.call('GET', '/uba/api/ingest/problems', { headers })).body
const keptRows = () => s.app.ctx.meta.prepare('SELECT count(*) FROM ingest_unknown_appids').pluck().get()

describe('records naming no known project', () => {
  it('are counted by the appid they name, with the SDK and the latest record, in every project\'s log', async () => {
    const before = Date.now()
    const res = await upload([record('shpo', 'u1'), record('shop', 'u2'), record(undefined, 'u3'), record('shpo', 'u4')])
    expect(res.body).toMatchObject({ received: 4, stored: 1, rejected: 3 })
    expect((await upload([record('shpo', 'u5')])).body).toMatchObject({ received: 1, stored: 0, rejected: 1 })

    const log = await problems()
    // the project's own counts are untouched: nothing of shop's was refused
    expect(log).toMatchObject({ total: 0, counts: [], examples: [] })
    expect(log.unknownProjects).toEqual({
      records: 4,
      lastTime: expect.any(Number),
      appids: [
        { appid: 'shpo', records: 3, uploads: 2, lastTime: expect.any(Number), lib: 'Android', libVersion: '4.5.1', record: JSON.stringify(record('shpo', 'u5')) },
        { appid: null, records: 1, uploads: 1, lastTime: expect.any(Number), lib: 'Android', libVersion: '4.5.1', record: JSON.stringify(record(undefined, 'u3')) },
      ],
      otherRecords: 0,
    })
    expect(log.unknownProjects.lastTime).toBeGreaterThanOrEqual(before)
    // server-wide: the same in another project's log
    expect((await problems(blog)).unknownProjects).toEqual(log.unknownProjects)
  })

  it('are counted even when the upload is refused because a named project\'s stream is stopped', async () => {
    const res = await upload([record('blog', 'b1'), record('nosuch', 'b2')])
    expect(res.status).toBe(503)
    const log = await problems(blog)
    expect(log.unknownProjects.appids[0]).toMatchObject({ appid: 'nosuch', records: 1, uploads: 1 })
    expect(log.counts).toMatchObject([{ kind: 'upload', count: 1, records: 1 }])
  })

  it(`name at most ${UNKNOWN_APPIDS_KEPT} appids, each cut to ${APPID_CHARS} characters: a flood adds to one count`, async () => {
    const long = 'x'.repeat(5000)
    expect((await upload([record(long, 'l1')])).body.problems).toEqual([{ row: 1, property: 'appid', value: long, reason: 'names no project' }])
    const kept = (await problems()).unknownProjects
    expect(kept.appids[0]).toMatchObject({ appid: 'x'.repeat(APPID_CHARS), records: 1 })
    const named = kept.appids.length
    expect(named).toBe(4)

    const flood = Array.from({ length: 2000 }, (_, i) => record(`fake${i}`, `f${i}`))
    expect((await upload(flood)).body).toMatchObject({ received: 2000, rejected: 2000 })
    expect((await upload(flood.slice(0, 300))).body).toMatchObject({ rejected: 300 })
    const log = (await problems()).unknownProjects
    expect(log.appids).toHaveLength(UNKNOWN_APPIDS_KEPT)
    // the first 46 fake appids found room; the others are counted, the named ones keep counting
    expect(log.otherRecords).toBe(2000 - (UNKNOWN_APPIDS_KEPT - named) + 300 - (UNKNOWN_APPIDS_KEPT - named))
    expect(log.appids.find((a: { appid: string }) => a.appid === 'fake0')).toMatchObject({ records: 2, uploads: 2 })
    // before the flood: 3 shpo, 1 naming none, 1 nosuch, 1 long
    expect(log.records).toBe(6 + 2300)
    expect(keptRows()).toBe(UNKNOWN_APPIDS_KEPT + 1)
  })

  it('are cleared with the project\'s log', async () => {
    expect((await s.call('DELETE', '/uba/api/ingest/problems', { headers: shop })).body).toEqual({ success: 0 })
    expect(await problems()).toEqual({ total: 0, lastTime: null, counts: [], examples: [] })
    expect(keptRows()).toBe(0)
  })
})
