import { describe, expect, it } from 'vitest'
import { clickhouseAvailable } from '../helpers/clickhouse'
import { expectSameRows, houseRows, leftovers } from '../helpers/bothEngines'
import { fixture, importAndWait } from '../helpers/ingest'
import { eventually } from '../helpers/server'
import { useTwins } from '../helpers/twinProjects'

/**
 * File imports into a ClickHouse project (loaded on a local DuckDB, shipped in one staged write):
 * the same files imported into a DuckDB project and a ClickHouse project leave the same rows in
 * every table and the same job answers; a failed import leaves nothing in ClickHouse.
 */

const rec = (xwho: string, xwhat: string, xwhen: number, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen, xcontext })
const T = Date.UTC(2024, 0, 30, 10)
const DAY = 86_400_000

/** What a job answers, without what differs between any two runs (ids, times). */
const answer = (job: any) => ({ state: job.state, rowsRead: job.rowsRead, rowsWritten: job.rowsWritten, rowsRejected: job.rowsRejected, rejected: job.rejected, error: job.error, result: job.result })

describe.skipIf(!clickhouseAvailable())('imports into a ClickHouse project (real clickhouse-server)', () => {
  const pair = useTwins('imp', 'Asia/Shanghai')

  /** Imports the same body into both projects; both answers must be equal. */
  const both = async (body: Record<string, unknown>) => {
    const duck = await importAndWait(pair.server, pair.duck, body)
    const house = await importAndWait(pair.server, pair.house, body)
    expect(answer(house)).toEqual(answer(duck))
    return duck
  }

  it('SDK records: events over two months, every property type, profile operations, an alias', async () => {
    const lines = [
      rec('a', 'view', T, { price: 10, city: 'Oslo', vip: true, tags: ['x', 'y'], seen: '2024-01-02 03:04:05', $lib: 'js', $platform: 'Web' }),
      rec('a', 'view', T + 3 * DAY, { price: 12.5, city: 'Oslo' }), // the next month's partition
      rec('b', 'pay', T + 1000, { amount: 30, vip: false }),
      rec('anon-1', 'view', T + 2000, { price: 1 }),
      rec('a', '$profile_set', T, { age: 30, city: 'Oslo', tags: ['a'], joined: '2023-05-06 07:08:09' }),
      rec('a', '$profile_append', T + 10, { tags: ['b'] }),
      rec('a', '$profile_increment', T + 20, { age: 2 }),
      rec('b', '$profile_set_once', T, { age: 50 }),
      rec('c', '$profile_set', T, { city: 'Rome' }),
      rec('c', '$profile_delete', T + 5),
      rec('anon-1', '$profile_set', T + 2000, { city: 'Bergen', nick: 'an' }),
      rec('a', '$alias', T + 4000, { $original_id: 'anon-1' }),
    ]
    const job = await both({ path: fixture('records.jsonl', lines.join('\n')) })
    expect(job).toMatchObject({ state: 'succeeded', rowsRead: 12, rowsRejected: 0 })
    expect(await expectSameRows(pair.server, pair)).toEqual({ event_vd: 5, profile_vd: 2, user_ids: 4, user_aliases: 1 })
  })

  it('a second import changes stored profiles and merges a stored anonymous id (stored rows rewritten)', async () => {
    const lines = [
      rec('b', '$profile_set', T + DAY, { city: 'Paris', age: 51 }),
      rec('a', '$profile_unset', T + DAY, { tags: '' }),
      rec('anon-2', 'view', T + DAY, { price: 2 }),
      rec('d', 'view', T + DAY, { price: 3, newprop: 'n' }),
    ]
    await both({ path: fixture('more.jsonl', lines.join('\n')) })
    // the alias of an id stored by the import before: its stored events and profile move to the login's user
    const merge = [rec('b', '$alias', T + 2 * DAY, { $original_id: 'anon-2' }), rec('anon-2', 'view', T + 2 * DAY + 1, { price: 4 })]
    const job = await both({ path: fixture('merge.jsonl', merge.join('\n')) })
    expect(job.result).toMatchObject({ aliasesMerged: 1 })
    expect(await expectSameRows(pair.server, pair)).toEqual({ event_vd: 9, profile_vd: 2, user_ids: 6, user_aliases: 2 })
  })

  it('dedupe leaves out what is stored already, with the same counts', async () => {
    const lines = [rec('a', 'view', T, { price: 10, city: 'Oslo', vip: true, tags: ['x', 'y'], seen: '2024-01-02 03:04:05', $lib: 'js', $platform: 'Web' }), rec('e', 'view', T, { price: 7 })]
    const job = await both({ path: fixture('again.jsonl', lines.join('\n')), dedupe: true })
    expect(job.result).toMatchObject({ eventsWritten: 1, duplicatesSkipped: 1 })
    await expectSameRows(pair.server, pair)
  })

  it('a preview reads and checks the file on the local database: the same answer as on DuckDB', async () => {
    const body = { path: fixture('peek.jsonl', [rec('a', 'view', T, { price: 'x', fresh: 1 }), rec('z', 'view', T)].join('\n')) }
    const answers = []
    for (const p of [pair.duck, pair.house]) {
      const res = await pair.server.call('POST', '/uba/api/import/preview', { headers: p, body })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      answers.push(res.body)
    }
    expect(answers[1]).toEqual(answers[0])
    expect(answers[0].rowsRejected).toBe(1)
  })

  it('a CSV of events and of profiles', async () => {
    const events = 'user,event,time,price,note\nf,buy,2024-02-01 10:00:00,5,"a, b"\ng,buy,2024-02-01 11:00:00,6,\n'
    await both({ path: fixture('events.csv', events), kind: 'events', mapping: { xwho: 'user', xwhat: 'event', xwhen: 'time' } })
    const profiles = 'user,tier,score\nf,gold,1.5\na,silver,2\n'
    await both({ path: fixture('profiles.csv', profiles), kind: 'profiles', mapping: { xwho: 'user' } })
    await expectSameRows(pair.server, pair)
  })

  it('onError skip: the same rejections with reasons; abort: nothing written, no staging left', async () => {
    const lines = [rec('h', 'view', T, { price: 1 }), '{"xwho": "h", "xwhat": "view"}', rec('h', 'view', T + 1, { price: 'many' })]
    const skipped = await both({ path: fixture('bad.jsonl', lines.join('\n')), onError: 'skip' })
    expect(skipped).toMatchObject({ state: 'succeeded', rowsRejected: 2 })
    expect(skipped.rejected.length).toBe(2)
    const before = await expectSameRows(pair.server, pair)
    const aborted = await both({ path: fixture('bad2.jsonl', [rec('i', 'view', T), ...lines.slice(1)].join('\n')), onError: 'abort' })
    expect(aborted.state).toBe('failed')
    expect(await expectSameRows(pair.server, pair)).toEqual(before)
    expect(await leftovers(pair.server, pair)).toEqual([])
    expect(await houseRows(pair.server, pair.house.appKey, "SELECT count() FROM user_ids WHERE xwho = 'i'")).toEqual([[0]])
  })

  it('a cancelled import leaves nothing in ClickHouse', async () => {
    const counts = () => houseRows(pair.server, pair.house.appKey, 'SELECT (SELECT count() FROM event_vd), (SELECT count() FROM user_ids), (SELECT count() FROM profile_vd)')
    const before = await counts()
    const lines = Array.from({ length: 200_000 }, (_, i) => rec(`c${i % 5000}`, 'tap', T + i, { n: i }))
    const started = await pair.server.call('POST', '/uba/api/import/jobs', { headers: pair.house, body: { path: fixture('long.jsonl', lines.join('\n')) } })
    expect(started.status).toBe(200)
    await eventually(async () => (await pair.server.call('GET', `/uba/api/import/jobs/${started.body.id}`, { headers: pair.house })).body.state === 'running')
    expect((await pair.server.call('DELETE', `/uba/api/import/jobs/${started.body.id}`, { headers: pair.house })).status).toBe(200)
    let job: any
    await eventually(async () => !['queued', 'running'].includes((job = (await pair.server.call('GET', `/uba/api/import/jobs/${started.body.id}`, { headers: pair.house })).body).state), 60_000)
    expect(job.state).toBe('cancelled')
    expect(await counts()).toEqual(before)
    expect(await leftovers(pair.server, pair)).toEqual([])
  }, 120_000)
})
