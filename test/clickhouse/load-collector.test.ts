import { gzipSync } from 'node:zlib'
import { beforeAll, describe, expect, it } from 'vitest'
import { clickhouseAvailable } from '../helpers/clickhouse'
import { expectSameRows, leftovers } from '../helpers/bothEngines'
import { sdkRecord, switchStreamAndWait } from '../helpers/collector'
import { rawRequest } from '../helpers/raw'
import { useTwins } from '../helpers/twinProjects'

/**
 * The collector into a ClickHouse project: the same SDK uploads (JSON arrays, gzip, a burst that
 * is written as one group, profile operations and `$alias` inside it) sent to a DuckDB project
 * and a ClickHouse project store the same rows and get the same answers.
 */

describe.skipIf(!clickhouseAvailable())('the collector into a ClickHouse project (real clickhouse-server)', () => {
  const pair = useTwins('col', 'UTC')
  let host: string

  beforeAll(async () => {
    host = `127.0.0.1:${pair.server.app.port}`
    for (const p of [pair.duck, pair.house]) await switchStreamAndWait(pair.server, p.appKey, true)
  }, 120_000)

  const upload = (body: string | Buffer, headers: Record<string, string> = {}) => rawRequest(pair.server.app.port, 'POST', '/up', { host, 'content-type': 'application/json', ...headers }, body)
  /** The same records (built per appid) uploaded to both projects; the answers must be equal. */
  const both = async (records: (appid: string) => object[], gzip = false) => {
    const answers = []
    for (const p of [pair.duck, pair.house]) {
      const text = JSON.stringify(records(p.appKey))
      const res = gzip ? await upload(gzipSync(text), { 'content-encoding': 'gzip' }) : await upload(text)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      answers.push(res.body)
    }
    expect(answers[1]).toEqual(answers[0])
    return answers[0]
  }

  it('stores an upload of events and profile operations, plain and gzip, with the same answer', async () => {
    const first = await both((a) => [
      sdkRecord(a, 'u1', 'open', { screen: 'home', price: 3 }),
      sdkRecord(a, 'u1', '$profile_set', { plan: 'pro', seats: 2 }),
      sdkRecord(a, 'u2', 'open', { $debug: 1 }),
      sdkRecord(a, 'u2', 'buy', { price: 'lots' }),
    ])
    expect(first).toMatchObject({ received: 4, debug: 1 })
    await both((a) => [sdkRecord(a, 'u1', '$profile_increment', { seats: 3 }), sdkRecord(a, 'u3', 'open', { tags: ['a', 'b'] })], true)
    expect(await expectSameRows(pair.server, pair)).toEqual({ event_vd: 3, profile_vd: 1, user_ids: 3, user_aliases: 0 })
  })

  it('an $alias of an id stored by an earlier upload moves its stored events and merges its profile into the login', async () => {
    await both((a) => [sdkRecord(a, 'anon-x', 'open', { screen: 'cart' }), sdkRecord(a, 'anon-x', '$profile_set', { plan: 'free', city: 'Oslo' })])
    await both((a) => [sdkRecord(a, 'login-x', '$profile_set', { plan: 'pro' })])
    const merged = await both((a) => [sdkRecord(a, 'login-x', '$alias', { $original_id: 'anon-x' }), sdkRecord(a, 'login-x', 'buy', { price: 9 })])
    expect(merged).toMatchObject({ aliasesMerged: 1 })
    await expectSameRows(pair.server, pair)
  })

  it('a burst of uploads at once (written as groups in one transaction, aliases and profiles alone) stores the same rows', async () => {
    const batch = (a: string, i: number) =>
      i % 5 === 4
        ? [sdkRecord(a, `v${i}`, '$alias', { $original_id: `anon${i}` }), sdkRecord(a, `v${i}`, '$profile_set', { plan: `p${i}` })]
        : [sdkRecord(a, `anon${i + 1}`, 'open', { n: i }), sdkRecord(a, `v${i}`, 'view', { n: i, [`prop${i % 3}`]: 'x' })]
    for (const p of [pair.duck, pair.house]) {
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => upload(JSON.stringify(batch(p.appKey, i)))))
      for (const res of answers) expect(res.status, JSON.stringify(res.body)).toBe(200)
    }
    await expectSameRows(pair.server, pair, { byUser: true })
    expect(await leftovers(pair.server, pair)).toEqual([])
  })

  it('the data stream of a ClickHouse project stops (nothing to fold into a file there), and uploads are refused again', async () => {
    await switchStreamAndWait(pair.server, pair.house.appKey, false)
    const res = await upload(JSON.stringify([sdkRecord(pair.house.appKey, 'late', 'open')]))
    expect(res.status).toBe(503)
  })
})
