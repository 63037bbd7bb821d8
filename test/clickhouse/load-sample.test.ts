import { describe, expect, it } from 'vitest'
import { clickhouseAvailable } from '../helpers/clickhouse'
import { expectSameRows, houseRows, leftovers } from '../helpers/bothEngines'
import { eventually } from '../helpers/server'
import { useTwins } from '../helpers/twinProjects'

/**
 * Sample data into a ClickHouse project: generated on a local DuckDB and shipped whole, it is the
 * very sample a DuckDB project gets with the same seed, row for row, with the same job answer.
 */

describe.skipIf(!clickhouseAvailable())('sample data into a ClickHouse project (real clickhouse-server)', () => {
  const pair = useTwins('smp', 'America/New_York')

  const sample = async (p: { appKey: string; token: string }, body: Record<string, unknown>) => {
    const started = await pair.server.call('POST', '/uba/api/import/sample', { headers: p, body })
    expect(started.status, JSON.stringify(started.body)).toBe(200)
    let job: any
    await eventually(async () => {
      job = (await pair.server.call('GET', `/uba/api/import/jobs/${started.body.id}`, { headers: p })).body
      return !['queued', 'running'].includes(job.state)
    }, 120_000)
    return job
  }

  it('the same seed gives the same rows in every table and the same job answer', async () => {
    const body = { users: 150, days: 4, seed: 11, endDate: '2024-03-12' }
    const duck = await sample(pair.duck, body)
    const house = await sample(pair.house, body)
    const answer = (j: any) => ({ state: j.state, rowsRead: j.rowsRead, rowsWritten: j.rowsWritten, result: j.result, error: j.error })
    expect(duck.state).toBe('succeeded')
    expect(answer(house)).toEqual(answer(duck))
    const counts = await expectSameRows(pair.server, pair)
    expect(counts.profile_vd).toBe(150)
    expect(counts.event_vd).toBe(duck.result.eventsWritten)
    expect(await leftovers(pair.server, pair)).toEqual([])
    // the plan and the products table, as after a DuckDB sample
    const events = (p: { appKey: string; token: string }) => pair.server.call('GET', '/uba/api/schema/event', { headers: p })
    expect((await events(pair.house)).body).toEqual((await events(pair.duck)).body)
    expect(await houseRows(pair.server, pair.house.appKey, 'SELECT count() FROM products')).toEqual([[Number((await pair.server.call('POST', '/uba/api/sql/query', { headers: pair.duck, body: { sql: 'SELECT count(*) AS n FROM products', format: 'json' } })).body[0].n)]])
  }, 300_000)

  it('refuses a second sample on the ClickHouse project as on DuckDB: it is not empty', async () => {
    const res = await pair.server.call('POST', '/uba/api/import/sample', { headers: pair.house, body: { users: 10, days: 1, seed: 1 } })
    expect(res.status).toBe(400)
    expect(res.body.msg).toMatch(/only into an empty project/)
  })
})
