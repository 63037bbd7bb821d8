import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clickhouseAvailable, startClickHouse, type TestClickHouse } from '../helpers/clickhouse'
import { startCutProxy, type CutProxy } from '../helpers/cutProxy'
import { fixture, importAndWait } from '../helpers/ingest'
import { eventually, startTestServer, type TestServer } from '../helpers/server'
import { eventRule, settled, single } from '../server/cohorts-helpers'

/**
 * Work that runs after its request was answered (a cohort or tag computed in the background, an
 * import job) records why ClickHouse failed it in the words a request gets (the 503's): the server
 * cannot be reached, or it refused the statement, naming ClickHouse; never "failed unexpectedly".
 * The project reaches its server through a proxy that cuts the connection mid-request.
 */

const T = Date.UTC(2024, 0, 2, 10)
const rec = (xwho: string, xwhat: string, xwhen: number) => JSON.stringify({ xwho, xwhat, xwhen, xcontext: { $lib: 'js' } })
const LINES = [rec('a', 'view', T), rec('b', 'view', T + 1000), rec('a', 'pay', T + 2000)]
const UNREACHABLE = 'the ClickHouse server cannot be reached'
const REFUSED = /^the project's ClickHouse server cannot run this request yet \(ClickHouse error \d+\)$/

describe.skipIf(!clickhouseAvailable())('background work on a ClickHouse project that fails there (real clickhouse-server)', () => {
  let ch: TestClickHouse
  let proxy: CutProxy
  let s: TestServer
  let p: { appKey: string; token: string }

  beforeAll(async () => {
    ch = await startClickHouse()
    proxy = await startCutProxy(ch.url)
    s = await startTestServer()
    const x = { xtoken: s.creds.xtoken }
    const warehouse = { engine: 'clickhouse', url: proxy.url, database: 'uba_bgfail' }
    const made = await s.call('POST', '/uba/manage/enterprise/projects', { headers: x, body: { appKey: 'bgfail', name: 'bgfail', timeZone: 'UTC', warehouse } })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    await eventually(async () => (await s.call('GET', '/uba/manage/enterprise/projects/bgfail', { headers: x })).body.finish === true)
    const list = await s.call('GET', '/uba/manage/enterprise/projects', { headers: x })
    p = { appKey: 'bgfail', token: list.body.find((q: { appKey: string }) => q.appKey === 'bgfail').normalToken }
    expect(await importAndWait(s, p, { path: fixture('records.jsonl', LINES.join('\n')) })).toMatchObject({ state: 'succeeded', rowsWritten: 3 })
  }, 120_000)

  afterAll(async () => {
    await s?.stop()
    await proxy?.stop()
    await ch?.stop()
  })

  const viewers = single(eventRule('event.view', 'TOTAL_COUNT', 'GTE', [1], { abs: ['2024-01-01', '2024-01-03'] }))
  /** Starts a cohort with the proxy cutting in `mode`; resolves to the settled record. */
  const cohortWhileCut = async (mode: CutProxy['mode']) => {
    proxy.mode = mode
    try {
      const res = await s.call('POST', '/uba/api/cohort', { headers: p, body: { name: `viewers ${mode}`, dynamic: 0, content: viewers } })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return await settled(s, p, res.body.id)
    } finally {
      proxy.mode = 'pass'
    }
  }

  it('a cohort computed while the connection is cut records that the server cannot be reached', async () => {
    for (const mode of ['drop-request', 'cut-answer'] as const) {
      const cuts = proxy.cuts
      const cohort = await cohortWhileCut(mode)
      expect(proxy.cuts, mode).toBeGreaterThan(cuts)
      expect({ mode, status: cohort.status, failReason: cohort.failReason }).toEqual({ mode, status: 'failed', failReason: UNREACHABLE })
      // the same cohort computes once the server answers again
      const again = await s.call('POST', `/uba/api/cohort/${cohort.id}/recalculate`, { headers: p })
      expect(again.status, JSON.stringify(again.body)).toBe(200)
      expect(await settled(s, p, cohort.id)).toMatchObject({ status: 'success', userNumber: 2 })
    }
  }, 120_000)

  it('a tag computed while the connection is cut records that the server cannot be reached', async () => {
    proxy.mode = 'drop-request'
    let code: string
    try {
      const res = await s.call('POST', '/uba/api/tags', { headers: p, body: { name: 'viewer tag', rules: [{ value: 'v', content: viewers }] } })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      code = res.body.code
      let tag: any
      await eventually(async () => {
        tag = (await s.call('GET', '/uba/api/tags', { headers: p })).body.find((t: { code: string }) => t.code === code)
        return tag.status !== 'calculating'
      }, 30_000)
      expect({ status: tag.status, failReason: tag.failReason }).toEqual({ status: 'failed', failReason: UNREACHABLE })
    } finally {
      proxy.mode = 'pass'
    }
  }, 120_000)

  it('an import job cut while it ships records that the server cannot be reached, and nothing was imported', async () => {
    proxy.mode = 'drop-request'
    try {
      const job = await importAndWait(s, p, { path: fixture('more.jsonl', rec('c', 'view', T + 5000)) })
      expect(job).toMatchObject({ state: 'failed', rowsWritten: 0, error: expect.stringContaining(UNREACHABLE) })
    } finally {
      proxy.mode = 'pass'
    }
    const count = await fetch(`${ch.url}/?database=uba_bgfail`, { method: 'POST', body: 'SELECT count() FROM event_vd' })
    expect((await count.text()).trim()).toBe('3')
  }, 120_000)

  it('a cohort, a tag and an import ClickHouse refuses (a table dropped behind the app) record the refusal, naming ClickHouse', async () => {
    const dropped = await fetch(`${ch.url}/?query=${encodeURIComponent('DROP TABLE uba_bgfail.event_vd')}`, { method: 'POST' })
    expect(dropped.status).toBe(200)
    const res = await s.call('POST', '/uba/api/cohort', { headers: p, body: { name: 'refused', dynamic: 0, content: viewers } })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const cohort = await settled(s, p, res.body.id)
    expect({ status: cohort.status, failReason: cohort.failReason }).toEqual({ status: 'failed', failReason: expect.stringMatching(REFUSED) })
    const tagged = await s.call('POST', '/uba/api/tags', { headers: p, body: { name: 'refused tag', rules: [{ value: 'v', content: viewers }] } })
    expect(tagged.status, JSON.stringify(tagged.body)).toBe(200)
    let tag: any
    await eventually(async () => {
      tag = (await s.call('GET', '/uba/api/tags', { headers: p })).body.find((t: { code: string }) => t.code === tagged.body.code)
      return tag.status !== 'calculating'
    }, 30_000)
    expect({ status: tag.status, failReason: tag.failReason }).toEqual({ status: 'failed', failReason: expect.stringMatching(REFUSED) })
    const job = await importAndWait(s, p, { path: fixture('refused.jsonl', rec('d', 'view', T + 6000)) })
    expect({ state: job.state, error: job.error }).toEqual({ state: 'failed', error: expect.stringMatching(REFUSED) })
  }, 120_000)
})
