import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REDACTED } from '../../src-main/serverLog'
import { ClickHouseClient } from '../../src-main/warehouse/clickhouse/client'
import { clickhouseAvailable, READER, startClickHouse, type TestClickHouse } from '../helpers/clickhouse'
import { startTestServer, type TestServer } from '../helpers/server'
import { closedPort } from '../helpers/failures'

describe.skipIf(!clickhouseAvailable())('a project on a ClickHouse server, through the API (real clickhouse-server)', () => {
  let ch: TestClickHouse
  let s: TestServer
  let logDir: string
  let logFile: string
  const xtoken = () => ({ xtoken: s.creds.xtoken })
  const create = (body: unknown) => s.call('POST', '/uba/manage/enterprise/projects', { headers: xtoken(), body })
  const registered = () => s.app.ctx.meta.prepare('SELECT count(*) FROM projects').pluck().get() as number
  const remoteRows = () => s.app.ctx.meta.prepare('SELECT * FROM project_warehouses ORDER BY app_key').all() as Record<string, unknown>[]

  beforeAll(async () => {
    ch = await startClickHouse()
    logDir = mkdtempSync(join(tmpdir(), 'uba-desk-log-'))
    logFile = join(logDir, 'server.log')
    // the product's redaction, at the most talkative level, written synchronously so the test reads it all
    const logger = pino({ level: 'trace', redact: REDACTED }, pino.destination({ dest: logFile, sync: true }))
    s = await startTestServer({ logger })
    await new ClickHouseClient({ url: ch.url }).command('CREATE DATABASE team_store')
  }, 60_000)

  afterAll(async () => {
    await s?.stop()
    await ch?.stop()
    if (logDir) rmSync(logDir, { recursive: true, force: true })
  })

  it('creates a project on ClickHouse and shows its warehouse without the password, never logging it', async () => {
    const before = registered()
    const res = await create({ appKey: 'onch', name: 'OnClickHouse', timeZone: 'UTC', warehouse: { engine: 'clickhouse', url: `${ch.url}/`, database: 'uba_onch', user: READER.user, password: READER.password } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ appKey: 'onch', success: 0 })
    expect(registered()).toBe(before + 1)

    const detail = await s.call('GET', '/uba/manage/enterprise/projects/onch', { headers: xtoken() })
    expect(detail.status).toBe(200)
    // the address as the client uses it (origin: the trailing slash dropped)
    expect(detail.body.warehouse).toEqual({ engine: 'clickhouse', url: ch.url, database: 'uba_onch', user: READER.user })
    const list = await s.call('GET', '/uba/manage/enterprise/projects', { headers: xtoken() })
    for (const text of [JSON.stringify(detail.body), JSON.stringify(list.body)]) expect(text).not.toContain(READER.password)

    // kept for the server like the tokens: in the metadata; the database did not exist, so the app creates it
    expect(remoteRows()).toEqual([{ app_key: 'onch', engine: 'clickhouse', url: ch.url, database: 'uba_onch', user: READER.user, password: READER.password, created_database: 1 }])
    const log = readFileSync(logFile, 'utf8')
    expect(log).toContain('/uba/manage/enterprise/projects')
    expect(log).not.toContain(READER.password)
  })

  it('records a database that was already there as not the app\'s (a team\'s store is never dropped)', async () => {
    const res = await create({ appKey: 'team', name: 'Team', timeZone: 'UTC', warehouse: { engine: 'clickhouse', url: ch.url, database: 'team_store' } })
    expect(res.status).toBe(200)
    expect(remoteRows().find((r) => r.app_key === 'team')).toMatchObject({ database: 'team_store', user: null, password: null, created_database: 0 })
    const detail = await s.call('GET', '/uba/manage/enterprise/projects/team', { headers: xtoken() })
    expect(detail.body.warehouse).toEqual({ engine: 'clickhouse', url: ch.url, database: 'team_store' })
  })

  it('refuses a database another project of this data folder already uses', async () => {
    const before = registered()
    const res = await create({ name: 'Twin', timeZone: 'UTC', warehouse: { engine: 'clickhouse', url: ch.url, database: 'uba_onch' } })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg: `warehouse.database: uba_onch on ${ch.url} already holds project onch`, data: ['warehouse.database'] })
    expect(registered()).toBe(before)
  })

  it('gives a database asked for by two creations at once to one of them', async () => {
    const warehouse = { engine: 'clickhouse', url: ch.url, database: 'uba_race' }
    const answers = await Promise.all([create({ name: 'RaceA', timeZone: 'UTC', warehouse }), create({ name: 'RaceB', timeZone: 'UTC', warehouse })])
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400])
    expect(answers.find((a) => a.status === 400)!.body.data).toEqual(['warehouse.database'])
    expect(remoteRows().filter((r) => r.database === 'uba_race')).toHaveLength(1)
  })

  it('keeps the embedded DuckDB as the default, and accepts engine duckdb', async () => {
    expect((await create({ appKey: 'local1', name: 'Local1', timeZone: 'UTC' })).status).toBe(200)
    expect((await create({ appKey: 'local2', name: 'Local2', timeZone: 'UTC', warehouse: { engine: 'duckdb' } })).status).toBe(200)
    await s.app.ctx.background.idle()
    for (const appKey of ['local1', 'local2']) {
      const detail = await s.call('GET', `/uba/manage/enterprise/projects/${appKey}`, { headers: xtoken() })
      expect(detail.body).toMatchObject({ finish: true, status: 1, warehouse: { engine: 'duckdb' } })
    }
    const list = await s.call('GET', '/uba/manage/enterprise/projects', { headers: xtoken() })
    expect(list.body.find((p: { appKey: string }) => p.appKey === s.project.appKey).warehouse).toEqual({ engine: 'duckdb' })
    expect(remoteRows().map((r) => r.app_key)).not.toContain('local1')
  })

  it.each([
    [{ engine: 'postgres', url: 'http://h:8123', database: 'd' }, 'warehouse.engine', /one of duckdb, clickhouse/],
    [{ url: 'http://h:8123', database: 'd' }, 'warehouse.engine', /required/],
    [{ engine: 'clickhouse', database: 'd' }, 'warehouse.url', /required/],
    [{ engine: 'clickhouse', url: 'http://h:8123' }, 'warehouse.database', /required/],
    [{ engine: 'clickhouse', url: 'not an address', database: 'd' }, 'warehouse.url', /not an address/],
    [{ engine: 'clickhouse', url: 'ftp://h:8123', database: 'd' }, 'warehouse.url', /http:\/\/ or https:\/\//],
    [{ engine: 'clickhouse', url: 'http://h:8123/db', database: 'd' }, 'warehouse.url', /scheme, host and port only/],
    [{ engine: 'clickhouse', url: 'http://u:p@h:8123', database: 'd' }, 'warehouse.url', /warehouse.user and warehouse.password/],
    [{ engine: 'clickhouse', url: 'http://h:8123', database: '1events' }, 'warehouse.database', /a plain name/],
    [{ engine: 'clickhouse', url: 'http://h:8123', database: 'a-b' }, 'warehouse.database', /a plain name/],
    [{ engine: 'clickhouse', url: 'http://h:8123', database: 'system' }, 'warehouse.database', /server's own database/],
    [{ engine: 'clickhouse', url: 'http://h:8123', database: 'd', user: 'a b' }, 'warehouse.user', /without spaces/],
    [{ engine: 'clickhouse', url: 'http://h:8123', database: 'd', password: 'line\nbreak' }, 'warehouse.password', /printable ASCII/],
    [{ engine: 'duckdb', url: 'http://h:8123' }, 'warehouse.url', /only a ClickHouse warehouse/],
  ])('refuses warehouse %j: 400 naming %s, nothing registered', async (warehouse, param, msg) => {
    const before = registered()
    const res = await create({ name: 'Refused', timeZone: 'UTC', warehouse })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe(400)
    expect(res.body.data).toEqual([param])
    expect(res.body.msg).toMatch(msg)
    expect(registered()).toBe(before)
  })

  it('refuses a server that does not answer: 400 naming warehouse, nothing registered', async () => {
    const before = registered()
    const rows = remoteRows().length
    const res = await create({ appKey: 'nobody', name: 'Nobody', warehouse: { engine: 'clickhouse', url: `http://127.0.0.1:${await closedPort()}`, database: 'd' } })
    expect(res.status).toBe(400)
    expect(res.body.data).toEqual(['warehouse'])
    expect(res.body.msg).toMatch(/^warehouse: no ClickHouse server answers at http:\/\/127\.0\.0\.1:\d+/)
    expect(registered()).toBe(before)
    expect(remoteRows()).toHaveLength(rows)
    expect((await s.call('GET', '/uba/manage/enterprise/projects/nobody', { headers: xtoken() })).status).toBe(400)
  })

  it('refuses a wrong password: 400 naming warehouse, the password not repeated, nothing registered', async () => {
    const before = registered()
    const res = await create({ appKey: 'wrongpw', name: 'WrongPw', warehouse: { engine: 'clickhouse', url: ch.url, database: 'd', user: READER.user, password: 'not-the-password' } })
    expect(res.status).toBe(400)
    expect(res.body.data).toEqual(['warehouse'])
    expect(res.body.msg).toBe(`warehouse: the ClickHouse server at ${ch.url} refused the user ${READER.user}: wrong user or password`)
    expect(JSON.stringify(res.body)).not.toContain('not-the-password')
    expect(registered()).toBe(before)
    expect(readFileSync(logFile, 'utf8')).not.toContain('not-the-password')
  })

  it('checks the appKey and time zone before trying the server', async () => {
    const taken = await create({ appKey: 'onch', name: 'Again', warehouse: { engine: 'clickhouse', url: `http://127.0.0.1:${await closedPort()}`, database: 'd' } })
    expect(taken.status).toBe(501)
    expect(taken.body.code).toBe(50101)
    const zone = await create({ name: 'Zone', timeZone: 'Mars/Olympus', warehouse: { engine: 'clickhouse', url: ch.url, database: 'd' } })
    expect(zone.status).toBe(400)
    expect(zone.body.data).toEqual(['timeZone'])
  })

  describe('Test connection', () => {
    const test = (warehouse: unknown, headers: Record<string, string> = xtoken()) => s.call('POST', '/uba/manage/enterprise/warehouse/test', { headers, body: { warehouse } })

    it('answers the server version and whether the database exists', async () => {
      const fresh = await test({ engine: 'clickhouse', url: ch.url, database: 'not_yet', user: READER.user, password: READER.password })
      expect(fresh.status).toBe(200)
      expect(fresh.body.version).toMatch(/^18\.16\.\d+/)
      expect(fresh.body).toEqual({ version: fresh.body.version, databaseExists: false })
      expect((await test({ engine: 'clickhouse', url: ch.url, database: 'team_store' })).body.databaseExists).toBe(true)
    })

    it('answers why a server cannot be used, naming the field', async () => {
      const wrong = await test({ engine: 'clickhouse', url: ch.url, database: 'd', user: READER.user, password: 'nope-nope' })
      expect(wrong.status).toBe(400)
      expect(wrong.body).toEqual({ code: 400, msg: `warehouse: the ClickHouse server at ${ch.url} refused the user ${READER.user}: wrong user or password`, data: ['warehouse'] })
      const away = await test({ engine: 'clickhouse', url: `http://127.0.0.1:${await closedPort()}`, database: 'd' })
      expect(away.status).toBe(400)
      expect(away.body.msg).toMatch(/no ClickHouse server answers/)
      const duck = await test({ engine: 'duckdb' })
      expect(duck.status).toBe(400)
      expect(duck.body.data).toEqual(['warehouse.engine'])
      const bad = await test({ engine: 'clickhouse', url: ch.url, database: 'no-dashes' })
      expect(bad.body.data).toEqual(['warehouse.database'])
    })

    it('needs the platform token', async () => {
      expect((await test({ engine: 'clickhouse', url: ch.url, database: 'd' }, {})).status).toBe(401)
    })
  })

  it('documents the warehouse in /openapi.json: the create body, the answers and the test route', async () => {
    const spec = (await s.call('GET', '/openapi.json')).body
    const projects = spec.paths['/uba/manage/enterprise/projects']
    const body = projects.post.requestBody.content['application/json'].schema
    expect(Object.keys(body.properties.warehouse.properties)).toEqual(['engine', 'url', 'database', 'user', 'password'])
    const listed = projects.get.responses['200'].content['application/json'].schema
    expect(JSON.stringify(listed)).toContain('"warehouse"')
    expect(JSON.stringify(listed)).not.toContain('"password"')
    const testRoute = spec.paths['/uba/manage/enterprise/warehouse/test'].post
    expect(testRoute.summary).toBe('Test a ClickHouse connection')
    expect(Object.keys(testRoute.responses)).toEqual(expect.arrayContaining(['200', '400', '401']))
  })
})
