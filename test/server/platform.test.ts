import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setSetting } from '../../src-main/domain/platform/settings'
import { switchStream } from '../../src-main/domain/platform/stream'
import { eventually, startTestServer, type TestServer } from '../helpers/server'

let s: TestServer
let x: Record<string, string>

beforeAll(async () => {
  s = await startTestServer()
  x = { xtoken: s.creds.xtoken }
})
afterAll(() => s.stop())

async function waitFinished(appKey: string) {
  await eventually(async () => (await s.call('GET', `/uba/manage/enterprise/projects/${appKey}`, { headers: x })).body.finish === true)
}

describe('first start', () => {
  it('creates an xtoken of at least 128 bits and one usable project', async () => {
    expect(s.creds.xtoken).toMatch(/^[0-9a-f]{48}$/)
    expect(s.creds.projects).toHaveLength(1)
    expect(s.creds.projects[0].token).toMatch(/^[0-9a-f]{40}$/)
    const res = await s.call('GET', '/uba/api/project', { headers: s.project })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ appKey: s.project.appKey, name: 'Default', events: 0, users: 0, firstDay: null })
    const detail = await s.call('GET', `/uba/manage/enterprise/projects/${s.project.appKey}`, { headers: x })
    expect(detail.body).toMatchObject({ status: 1, finish: true })
  })
})

describe('project list and detail (4.1)', () => {
  it('lists status-1 projects with normalToken and the spec fields', async () => {
    const res = await s.call('GET', '/uba/manage/enterprise/projects', { headers: x })
    expect(res.status).toBe(200)
    const p = res.body.find((r: any) => r.appKey === s.project.appKey)
    expect(p).toMatchObject({ normalToken: s.project.token, cname: 'Default', status: 1, partitionNum: 1, stream: 0, version: '0.1.0' })
    expect(typeof p.createTime).toBe('number')
    expect(p.createTime).toBeGreaterThan(1_600_000_000_000)
    expect(p).not.toHaveProperty('finish')
    expect(p).not.toHaveProperty('logo')
    expect(p).not.toHaveProperty('sdkBack')
  })

  it('leaves out projects whose status is not 1', async () => {
    await s.call('POST', '/uba/manage/enterprise/projects', { headers: x, body: { appKey: 'gone1', name: 'Gone' } })
    await waitFinished('gone1')
    s.app.ctx.meta.prepare("UPDATE projects SET status = 2 WHERE app_key = 'gone1'").run()
    const res = await s.call('GET', '/uba/manage/enterprise/projects', { headers: x })
    expect(res.body.map((p: any) => p.appKey)).not.toContain('gone1')
    const detail = await s.call('GET', '/uba/manage/enterprise/projects/gone1', { headers: x })
    expect(detail.body.status).toBe(2)
  })

  it('shows the detail without normalToken and with finish', async () => {
    const res = await s.call('GET', `/uba/manage/enterprise/projects/${s.project.appKey}`, { headers: x })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ appKey: s.project.appKey, finish: true, status: 1 })
    expect(res.body).not.toHaveProperty('normalToken')
  })

  it('answers 400 naming appKey for an unknown project', async () => {
    const res = await s.call('GET', '/uba/manage/enterprise/projects/nosuch', { headers: x })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg: 'project nosuch does not exist', data: ['appKey'] })
  })
})

describe('project creation (4.1)', () => {
  it('accepts at once, then finishes by creating the project database with the base tables', async () => {
    const res = await s.call('POST', '/uba/manage/enterprise/projects', { headers: x, body: { appKey: 'shop2', name: 'Shop2', timeZone: 'Asia/Shanghai' } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ appKey: 'shop2', success: 0 })
    await waitFinished('shop2')
    expect(existsSync(join(s.dataDir, 'projects', 'shop2', 'warehouse.duckdb'))).toBe(true)
    const detail = await s.call('GET', '/uba/manage/enterprise/projects/shop2', { headers: x })
    expect(detail.body).toMatchObject({ cname: 'Shop2', timeZone: 'Asia/Shanghai', stream: 0, status: 1 })

    const columns = await s.app.ctx.warehouse.withConnection('shop2', 'Asia/Shanghai', async (conn) => {
      const reader = await conn.runAndReadAll(
        "SELECT table_name, column_name, data_type FROM information_schema.columns ORDER BY table_name, ordinal_position",
      )
      return reader.getRowObjectsJS().map((r) => `${r.table_name}.${r.column_name}:${r.data_type}`)
    })
    // the base columns; property columns come with their first data
    expect(columns).toEqual([
      'event_vd.distinct_id:BIGINT',
      'event_vd.xwho:VARCHAR',
      'event_vd.xwhat:VARCHAR',
      'event_vd.xwhen:TIMESTAMP WITH TIME ZONE',
      'event_vd.ds:INTEGER',
      'profile_vd.distinct_id:BIGINT',
      'profile_vd.xwho:VARCHAR',
    ])
    // the new project's own credentials open it
    const list = await s.call('GET', '/uba/manage/enterprise/projects', { headers: x })
    const token = list.body.find((p: any) => p.appKey === 'shop2').normalToken
    const overview = await s.call('GET', '/uba/api/project', { headers: { appKey: 'shop2', token } })
    expect(overview.body).toMatchObject({ appKey: 'shop2', name: 'Shop2', timeZone: 'Asia/Shanghai' })
  })

  it('generates a letters-and-digits appKey when none is given', async () => {
    const res = await s.call('POST', '/uba/manage/enterprise/projects', { headers: x, body: { name: 'NoKey' } })
    expect(res.status).toBe(200)
    expect(res.body.appKey).toMatch(/^[a-z][0-9a-f]{15}$/)
    await waitFinished(res.body.appKey)
  })

  it('answers 501/50101 for an appKey that exists, and writes nothing', async () => {
    const res = await s.call('POST', '/uba/manage/enterprise/projects', { headers: x, body: { appKey: 'shop2', name: 'Other' } })
    expect(res.status).toBe(501)
    expect(res.body).toEqual({ code: 50101, msg: 'a project with appKey shop2 already exists', data: null })
    const detail = await s.call('GET', '/uba/manage/enterprise/projects/shop2', { headers: x })
    expect(detail.body.cname).toBe('Shop2')
  })

  it.each([
    [{}, ['name']],
    [{ name: 'has space' }, ['name']],
    [{ name: 'ok', appKey: 'bad-key' }, ['appKey']],
    [{ name: 'x'.repeat(51) }, ['name']],
    [{ name: { text: 'ok' } }, ['name']],
    [{ name: 'ok', timeZone: 'Mars/Olympus' }, ['timeZone']],
  ])('rejects %j with 400 naming %j', async (body, params) => {
    const before = s.app.ctx.meta.prepare('SELECT count(*) AS n FROM projects').get()
    const res = await s.call('POST', '/uba/manage/enterprise/projects', { headers: x, body })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe(400)
    expect(res.body.data).toEqual(params)
    expect(typeof res.body.msg).toBe('string')
    expect(s.app.ctx.meta.prepare('SELECT count(*) AS n FROM projects').get()).toEqual(before)
  })

  it('answers 501/501 when the project quota is reached', async () => {
    const { n } = s.app.ctx.meta.prepare('SELECT count(*) AS n FROM projects WHERE status = 1').get() as { n: number }
    setSetting(s.app.ctx.meta, 'quota.projects', String(n))
    try {
      const res = await s.call('POST', '/uba/manage/enterprise/projects', { headers: x, body: { name: 'OneTooMany' } })
      expect(res.status).toBe(501)
      expect(res.body).toEqual({ code: 501, msg: `the platform holds at most ${n} projects`, data: null })
    } finally {
      setSetting(s.app.ctx.meta, 'quota.projects', '100')
    }
  })
})

describe('data stream (4.1, part 3)', () => {
  const detail = async (appKey: string) => (await s.call('GET', `/uba/manage/enterprise/projects/${appKey}`, { headers: x })).body.stream

  it('goes 0 -> 1 -> 2 on start and 2 -> 5 -> 0 on stop', async () => {
    await s.call('POST', '/uba/manage/enterprise/projects', { headers: x, body: { appKey: 'flow', name: 'Flow' } })
    await waitFinished('flow')
    expect(await detail('flow')).toBe(0)
    const start = await s.call('POST', '/uba/manage/enterprise/projects/flow/stream', { headers: x, body: { streamSwitch: true } })
    expect(start.body).toEqual({ success: 0 })
    await eventually(async () => (await detail('flow')) === 2)
    const stop = await s.call('POST', '/uba/manage/enterprise/projects/flow/stream', { headers: x, body: { streamSwitch: false } })
    expect(stop.body).toEqual({ success: 0 })
    await eventually(async () => (await detail('flow')) === 0)
  })

  it('passes through starting and closing: the switch answers before it completes', async () => {
    const ctx = s.app.ctx
    const state = () => ctx.meta.prepare("SELECT stream FROM projects WHERE app_key = 'flow'").pluck().get()
    switchStream(ctx, 'flow', true, null)
    expect(state()).toBe(1)
    await ctx.background.idle()
    expect(state()).toBe(2)
    switchStream(ctx, 'flow', false, null)
    expect(state()).toBe(5)
    await ctx.background.idle()
    expect(state()).toBe(0)
  })

  it('lets a newer switch supersede one still in flight', async () => {
    const ctx = s.app.ctx
    const state = () => ctx.meta.prepare("SELECT stream FROM projects WHERE app_key = 'flow'").pluck().get()
    switchStream(ctx, 'flow', true, null)
    await ctx.background.idle()
    switchStream(ctx, 'flow', false, null)
    switchStream(ctx, 'flow', true, null)
    expect(state()).toBe(1)
    await ctx.background.idle()
    expect(state()).toBe(2)
    switchStream(ctx, 'flow', false, null)
    await ctx.background.idle()
  })

  it('changes nothing when asked for the state it is already in', async () => {
    const stop = await s.call('POST', '/uba/manage/enterprise/projects/flow/stream', { headers: x, body: { streamSwitch: false } })
    expect(stop.status).toBe(200)
    expect(await detail('flow')).toBe(0)
  })

  it('answers 400 for an unknown project or a non-boolean switch', async () => {
    const unknown = await s.call('POST', '/uba/manage/enterprise/projects/nosuch/stream', { headers: x, body: { streamSwitch: true } })
    expect(unknown.status).toBe(400)
    expect(unknown.body.data).toEqual(['appKey'])
    const bad = await s.call('POST', '/uba/manage/enterprise/projects/flow/stream', { headers: x, body: { streamSwitch: 'on' } })
    expect(bad.status).toBe(400)
    expect(bad.body.data).toEqual(['streamSwitch'])
    const missing = await s.call('POST', '/uba/manage/enterprise/projects/flow/stream', { headers: x, body: {} })
    expect(missing.body.data).toEqual(['streamSwitch'])
  })
})

describe('unfinished creation', () => {
  it('finishes at the next start a project whose creation was cut off or failed', async () => {
    const first = await startTestServer()
    const dataDir = first.dataDir
    first.app.ctx.meta
      .prepare("INSERT INTO projects (app_key, cname, token, status, stream, finish, time_zone, version, create_time) VALUES ('cut', 'Cut', 'tok', 3, 0, 0, 'UTC', '0.1.0', 1)")
      .run()
    await first.app.close()
    const again = await startTestServer({ dataDir })
    try {
      const detail = await again.call('GET', '/uba/manage/enterprise/projects/cut', { headers: { xtoken: again.creds.xtoken } })
      expect(detail.body).toMatchObject({ status: 1, finish: true })
      expect(existsSync(join(dataDir, 'projects', 'cut', 'warehouse.duckdb'))).toBe(true)
    } finally {
      await again.stop()
    }
  })
})
