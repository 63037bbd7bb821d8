import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clickhouseAvailable, startClickHouse, type TestClickHouse } from '../helpers/clickhouse'
import { fixture, importAndWait } from '../helpers/ingest'
import { eventually, startTestServer, type TestServer } from '../helpers/server'
import { eventRule, settled, single } from '../server/cohorts-helpers'

/**
 * Data is sacred: a ClickHouse project's database dropped on the server while the app was closed
 * is not created again when the app starts (an empty database would look as if the data had
 * vanished without a word). The project's answers say the database is missing, naming it, with a
 * 503 (never a 500); only making a project creates its database.
 */

const DATABASE = 'uba_gonehouse'
const T = Date.UTC(2024, 0, 2, 10)
const rec = (xwho: string, xwhat: string, xwhen: number) => JSON.stringify({ xwho, xwhat, xwhen, xcontext: { $lib: 'js' } })
const MISSING = `the project's ClickHouse database ${DATABASE} is missing on `

describe.skipIf(!clickhouseAvailable())('a ClickHouse database dropped while the app was closed (real clickhouse-server)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'uba-chgone-'))
  let ch: TestClickHouse
  let s: TestServer
  let p: { appKey: string; token: string }
  const house = async (sql: string) => (await (await fetch(ch.url, { method: 'POST', body: sql })).text()).trim()
  const databaseThere = () => house(`SELECT count() FROM system.databases WHERE name = '${DATABASE}'`)
  const x = () => ({ xtoken: s.creds.xtoken })

  beforeAll(async () => {
    ch = await startClickHouse()
    s = await startTestServer({ dataDir })
    const warehouse = { engine: 'clickhouse', url: ch.url, database: DATABASE }
    const made = await s.call('POST', '/uba/manage/enterprise/projects', { headers: x(), body: { appKey: 'gonehouse', name: 'gonehouse', timeZone: 'UTC', warehouse } })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    await eventually(async () => (await s.call('GET', '/uba/manage/enterprise/projects/gonehouse', { headers: x() })).body.finish === true)
    const list = await s.call('GET', '/uba/manage/enterprise/projects', { headers: x() })
    p = { appKey: 'gonehouse', token: list.body.find((q: { appKey: string }) => q.appKey === 'gonehouse').normalToken }
    const lines = [rec('a', 'view', T), rec('b', 'view', T + 1000), rec('a', 'pay', T + 2000)]
    expect(await importAndWait(s, p, { path: fixture('records.jsonl', lines.join('\n')) })).toMatchObject({ state: 'succeeded', rowsWritten: 3 })
    expect(await house(`SELECT count() FROM ${DATABASE}.event_vd`)).toBe('3')
    // the app stops, the database is dropped on the server, the app starts again over the same folder
    await s.app.close()
    expect(await house(`DROP DATABASE ${DATABASE}`)).toBe('')
    s = await startTestServer({ dataDir })
  }, 120_000)

  afterAll(async () => {
    await s?.stop()
    await ch?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('start-up does not create the database again', async () => {
    await s.app.ctx.background.idle()
    expect(await databaseThere()).toBe('0')
  })

  it('an analysis answers 503 saying the database is missing, naming it', async () => {
    const body = { fromDate: '2024-01-01', toDate: '2024-01-03', unit: 'day', measures: [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }] }
    const res = await s.call('POST', '/uba/api/events/analyze', { headers: p, body })
    expect(res.status, JSON.stringify(res.body)).toBe(503)
    expect(res.body).toEqual({ code: 503, msg: expect.stringContaining(MISSING + ch.url), data: null })
    expect(await databaseThere()).toBe('0')
  })

  it('the project detail and the list say the database is missing, naming it', async () => {
    const detail = await s.call('GET', '/uba/manage/enterprise/projects/gonehouse', { headers: x() })
    expect(detail.status).toBe(200)
    expect(detail.body.warehouse).toEqual({ engine: 'clickhouse', url: ch.url, database: DATABASE, problem: `the database ${DATABASE} is missing on ${ch.url}: it was dropped there, and UBA Desk does not create it again` })
    const list = await s.call('GET', '/uba/manage/enterprise/projects', { headers: x() })
    expect(list.body.find((q: { appKey: string }) => q.appKey === 'gonehouse').warehouse.problem).toContain(DATABASE)
  })

  it('a cohort and an import fail saying the database is missing, and create nothing', async () => {
    const content = single(eventRule('event.view', 'TOTAL_COUNT', 'GTE', [1], { abs: ['2024-01-01', '2024-01-03'] }))
    const res = await s.call('POST', '/uba/api/cohort', { headers: p, body: { name: 'viewers', dynamic: 0, content } })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const cohort = await settled(s, p, res.body.id)
    expect({ status: cohort.status, failReason: cohort.failReason }).toEqual({ status: 'failed', failReason: expect.stringContaining(MISSING) })
    const job = await importAndWait(s, p, { path: fixture('more.jsonl', rec('c', 'view', T + 5000)) })
    expect({ state: job.state, rowsWritten: job.rowsWritten, error: job.error }).toEqual({ state: 'failed', rowsWritten: 0, error: expect.stringContaining(MISSING) })
    expect(await databaseThere()).toBe('0')
  }, 60_000)

  it('starting the stream does not create the database either: the stream is interrupted', async () => {
    const res = await s.call('POST', '/uba/manage/enterprise/projects/gonehouse/stream', { headers: x(), body: { streamSwitch: true } })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    // 3: interrupted (StreamState)
    await eventually(async () => (await s.call('GET', '/uba/manage/enterprise/projects/gonehouse', { headers: x() })).body.stream === 3)
    expect(await databaseThere()).toBe('0')
  })

  it('a new project on a database that does not exist still creates it', async () => {
    const warehouse = { engine: 'clickhouse', url: ch.url, database: 'uba_gonehouse2' }
    const made = await s.call('POST', '/uba/manage/enterprise/projects', { headers: x(), body: { appKey: 'gonehouse2', name: 'gonehouse2', timeZone: 'UTC', warehouse } })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    await eventually(async () => (await s.call('GET', '/uba/manage/enterprise/projects/gonehouse2', { headers: x() })).body.finish === true)
    expect(await house("SELECT count() FROM system.tables WHERE database = 'uba_gonehouse2' AND name = 'event_vd'")).toBe('1')
    expect((await s.call('GET', '/uba/manage/enterprise/projects/gonehouse2', { headers: x() })).body.warehouse.problem).toBeUndefined()
  }, 60_000)
})
