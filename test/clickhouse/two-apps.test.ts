import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clickhouseAvailable, startClickHouse, type TestClickHouse } from '../helpers/clickhouse'
import { fixture, importAndWait } from '../helpers/ingest'
import { eventually, startTestServer, type TestServer } from '../helpers/server'

/**
 * Two UBA Desks (two data folders), each with a project on the same ClickHouse database, load new
 * users at the same time. Each app's write lock serialises only its own loads, so the loads guard
 * themselves: no two users ever share a distinct_id, and each job either succeeded or failed
 * saying another app loaded meanwhile, leaving none of its rows.
 */

const DATABASE = 'uba_shared'
const T = Date.UTC(2024, 0, 2, 10)
const USERS = 300
const REASON = `another app loaded into the ClickHouse database ${DATABASE} meanwhile: nothing was imported; try again`

describe.skipIf(!clickhouseAvailable())('two apps loading into one ClickHouse database at once (real clickhouse-server)', () => {
  let ch: TestClickHouse
  const apps: { s: TestServer; p: { appKey: string; token: string } }[] = []
  const house = async (sql: string) => (await (await fetch(`${ch.url}/?database=${DATABASE}`, { method: 'POST', body: sql })).text()).trim()

  beforeAll(async () => {
    ch = await startClickHouse()
    for (const appKey of ['left', 'right']) {
      const s = await startTestServer()
      const x = { xtoken: s.creds.xtoken }
      const warehouse = { engine: 'clickhouse', url: ch.url, database: DATABASE }
      const made = await s.call('POST', '/uba/manage/enterprise/projects', { headers: x, body: { appKey, name: appKey, timeZone: 'UTC', warehouse } })
      expect(made.status, JSON.stringify(made.body)).toBe(200)
      await eventually(async () => (await s.call('GET', `/uba/manage/enterprise/projects/${appKey}`, { headers: x })).body.finish === true)
      const list = await s.call('GET', '/uba/manage/enterprise/projects', { headers: x })
      apps.push({ s, p: { appKey, token: list.body.find((q: { appKey: string }) => q.appKey === appKey).normalToken } })
    }
  }, 120_000)

  afterAll(async () => {
    for (const { s } of apps) await s.stop()
    await ch?.stop()
  })

  it('no two users share a distinct_id; a job that lost the race failed with the reason and left nothing', async () => {
    const outcomes: string[] = []
    for (let round = 0; round < 3; round++) {
      const files = apps.map(({ p }) => {
        const lines = Array.from({ length: USERS }, (_, i) => JSON.stringify({ xwho: `${p.appKey}-${round}-${i}`, xwhat: 'view', xwhen: T + i, xcontext: { $lib: 'js' } }))
        return fixture(`${p.appKey}-${round}.jsonl`, lines.join('\n'))
      })
      // both start at once
      const jobs = await Promise.all(apps.map(({ s, p }, i) => importAndWait(s, p, { path: files[i] })))
      for (const [i, job] of jobs.entries()) {
        const prefix = `${apps[i].p.appKey}-${round}-`
        const stored = await house(`SELECT count() FROM user_ids WHERE startsWith(xwho, '${prefix}')`)
        const events = await house(`SELECT count() FROM event_vd WHERE startsWith(xwho, '${prefix}')`)
        if (job.state === 'succeeded') expect({ job: job.rowsWritten, stored, events }).toEqual({ job: USERS, stored: String(USERS), events: String(USERS) })
        else expect({ state: job.state, error: job.error, rowsWritten: job.rowsWritten, stored, events }).toEqual({ state: 'failed', error: REASON, rowsWritten: 0, stored: '0', events: '0' })
        outcomes.push(job.state)
      }
      expect(await house('SELECT distinct_id, count() AS n FROM user_ids GROUP BY distinct_id HAVING n > 1 LIMIT 5')).toBe('')
      expect(await house('SELECT count() FROM (SELECT distinct_id FROM event_vd GROUP BY distinct_id HAVING uniqExact(xwho) > 1)')).toBe('0')
      expect(await house(`SELECT count() FROM system.tables WHERE database = '${DATABASE}' AND startsWith(name, '_uba_')`)).toBe('0')
    }
    // whatever the timing, every round stored someone's users
    expect(outcomes.filter((o) => o === 'succeeded').length).toBeGreaterThanOrEqual(3)
  }, 300_000)
})
