import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getJob } from '../../src-main/domain/ingest/jobs'
import { startSampleJob } from '../../src-main/domain/ingest/sample'
import { createProject } from '../../src-main/domain/platform/projects'
import { setSetting } from '../../src-main/domain/platform/settings'
import { eventually, startTestServer, type TestServer } from '../helpers/server'

/**
 * The sample writes its events a part of the users at a time (setting ingest.sample.usersPerWrite,
 * 50,000 by default): the parts must store exactly the rows one write stores, still by user, then
 * time, across the parts' edges.
 */

let s: TestServer

beforeAll(async () => {
  s = await startTestServer()
})
afterAll(() => s.stop())

const request = { users: 1200, days: 30, seed: 9, endDate: '2024-09-30' }

async function loaded(appKey: string, usersPerWrite: string): Promise<{ events: number }> {
  setSetting(s.app.ctx.meta, 'ingest.sample.usersPerWrite', usersPerWrite)
  createProject(s.app.ctx, { appKey, name: appKey, timeZone: 'Europe/Berlin' }, null)
  await s.app.ctx.background.idle()
  const job = await startSampleJob(s.app.ctx, { appKey, timeZone: 'Europe/Berlin' }, request, null)
  await eventually(async () => !['queued', 'running'].includes(getJob(s.app.ctx, appKey, job.id).state), 120_000)
  const done = getJob(s.app.ctx, appKey, job.id)
  expect(done).toMatchObject({ state: 'succeeded', error: null })
  return { events: done.result!.eventsWritten }
}

async function one(appKey: string, sql: string): Promise<Record<string, unknown>> {
  return s.app.ctx.warehouse.withConnection(appKey, 'Europe/Berlin', async (conn) => (await conn.runAndReadAll(sql)).getRowObjectsJS()[0])
}

/** Every stored value of every event and profile, hashed in one number each (order aside). */
async function everything(appKey: string): Promise<Record<string, unknown>> {
  const columns = async (table: string) =>
    String((await one(appKey, `SELECT string_agg('"' || column_name || '"', ', ' ORDER BY column_name) AS c FROM information_schema.columns WHERE table_name = '${table}'`)).c)
  return one(appKey, `SELECT (SELECT count(*) FROM event_vd) AS events, (SELECT bit_xor(hash(${await columns('event_vd')})) FROM event_vd) AS e,
    (SELECT bit_xor(hash(${await columns('profile_vd')})) FROM profile_vd) AS p`)
}

describe('sample events written in parts of the users', () => {
  afterAll(() => setSetting(s.app.ctx.meta, 'ingest.sample.usersPerWrite', '50000'))

  it('stores the same rows in 9 parts of 137 users as in one write, by user then time across the parts', async () => {
    const whole = await loaded('whole', '50000')
    const parts = await loaded('parts', '137')
    expect(parts.events).toBe(whole.events)
    expect(whole.events).toBeGreaterThan(20_000)
    const [a, b] = [await everything('whole'), await everything('parts')]
    expect(b).toEqual(a)
    const order = await one('parts', `SELECT count(*) FILTER (WHERE prev_id > distinct_id OR (prev_id = distinct_id AND prev_time > xwhen)) AS out_of_order,
        count(DISTINCT distinct_id) AS users
      FROM (SELECT distinct_id, xwhen, lag(distinct_id) OVER (ORDER BY rowid) AS prev_id, lag(xwhen) OVER (ORDER BY rowid) AS prev_time FROM event_vd)`)
    expect(order).toEqual({ out_of_order: 0n, users: 1200n })
  })
})
