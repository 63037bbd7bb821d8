import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../helpers/server'
import { columnsOf, lastOperation, planSnapshot, report, row } from './plan-helpers'

let s: TestServer
let accountA: number

const PRESET_USER_IDS = [
  '$city', '$country', '$email', '$first_visit_language', '$first_visit_time', '$is_login', '$lib', '$lib_version',
  '$original_id', '$phone', '$platform', '$province', '$signup_time', '$time_zone', 'distinct_id', 'xwho',
]

beforeAll(async () => {
  s = await startTestServer()
  const created = await s.call('POST', '/uba/manage/enterprise/accounts', { headers: { xtoken: s.creds.xtoken }, body: { email: 'a@example.com' } })
  accountA = created.body.userId
  await report(s, {
    userProperties: { vip: 'boolean', score: 'number' },
    events: { visit: { properties: { $os: 'string', channel: 'string' }, platforms: ['JS', 'Android'] } },
  })
})
afterAll(() => s.stop())

const get = (path: string) => s.call('GET', path, { headers: s.project })
const post = (path: string, body: unknown) => s.call('POST', path, { headers: s.project, body })
const ids = (list: { id: string }[]) => list.map((x) => x.id)

describe('GET /uba/api/schema/userProperties', () => {
  it('lists every user property with the 2.8 fields, hidden presets included', async () => {
    const res = await get('/uba/api/schema/userProperties')
    expect(res.status).toBe(200)
    expect(ids(res.body)).toEqual([...PRESET_USER_IDS, 'score', 'vip'])
    expect(res.body.find((p: any) => p.id === 'distinct_id')).toEqual({
      id: 'distinct_id', name: 'Distinct id', remark: null, enable: 1, visible: 0, preset: 1, dataType: 'number', plan: 1, dataStatus: 0, dict: 0, masking: 0,
    })
    expect(res.body.find((p: any) => p.id === 'vip')).toEqual({
      id: 'vip', name: null, remark: null, enable: 1, visible: 1, preset: 0, dataType: 'boolean', plan: 0, dataStatus: 1, dict: 0, masking: 0,
    })
  })

  it('filters by plan and by dataStatus, together or alone', async () => {
    expect(ids((await get('/uba/api/schema/userProperties?plan=0')).body)).toEqual(['score', 'vip'])
    expect(ids((await get('/uba/api/schema/userProperties?dataStatus=1')).body)).toEqual(['score', 'vip'])
    expect(ids((await get('/uba/api/schema/userProperties?plan=1&dataStatus=0')).body)).toEqual(PRESET_USER_IDS)
    expect((await get('/uba/api/schema/userProperties?plan=1&dataStatus=1')).body).toEqual([])
  })

  it('answers the same at the /svc form of the path', async () => {
    const plain = await get('/uba/api/schema/userProperties?plan=0')
    const svc = await get('/svc/uba/api/schema/userProperties?plan=0')
    expect(svc.status).toBe(200)
    expect(svc.body).toEqual(plain.body)
  })

  it.each([
    ['plan=2', 'plan must be one of 0, 1', ['plan']],
    ['dataStatus=-1', 'dataStatus must be one of 0, 1', ['dataStatus']],
    ['plan=yes', 'plan must be integer; plan must be one of 0, 1', ['plan']],
  ])('refuses ?%s with 400', async (query, msg, data) => {
    for (const path of ['/uba/api/schema/userProperties', '/svc/uba/api/schema/userProperties', '/uba/api/schema/event', '/svc/uba/api/schema/event']) {
      const res = await get(`${path}?${query}`)
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ code: 400, msg, data })
    }
  })

  it('needs the project credentials (401)', async () => {
    const res = await s.call('GET', '/uba/api/schema/userProperties', { headers: { appKey: s.project.appKey, token: 'wrong' } })
    expect(res.status).toBe(401)
    expect((await s.call('GET', '/svc/uba/api/schema/event')).status).toBe(401)
  })
})

describe('GET /uba/api/schema/event', () => {
  it('lists tracked events with their fields; platform joins the reporting platforms', async () => {
    const res = await get('/uba/api/schema/event')
    expect(res.status).toBe(200)
    expect(res.body).toHaveLength(22)
    expect(res.body.find((e: any) => e.id === 'visit')).toEqual({
      id: 'visit', name: null, remark: null, plan: 0, dataStatus: 1, preset: 0, enable: 1, platform: 'Android,JS',
    })
    expect(res.body.find((e: any) => e.id === '$pageview')).toEqual({
      id: '$pageview', name: 'Page view', remark: null, plan: 1, dataStatus: 0, preset: 1, enable: 1, platform: null,
    })
    expect(ids((await get('/svc/uba/api/schema/event?plan=0')).body)).toEqual(['visit'])
  })

  it('does not list virtual events (the metadata API does)', async () => {
    await post('/uba/api/meta/event/virtual', { id: 'any_visit', events: [{ expression: 'event.visit' }] })
    expect(ids((await get('/uba/api/schema/event')).body)).not.toContain('any_visit')
    expect(ids((await get('/uba/api/meta/event?type=virtual')).body)).toEqual(['any_visit'])
  })
})

describe('GET /uba/api/schema/eventProperties', () => {
  it("lists the common properties and the event's own, with plan and dataStatus as they stand on that event", async () => {
    const res = await get('/uba/api/schema/eventProperties?eventId=visit')
    expect(res.status).toBe(200)
    expect(res.body).toHaveLength(38)
    expect(res.body.find((p: any) => p.id === 'channel')).toEqual({
      id: 'channel', name: null, remark: null, enable: 1, global: 0, preset: 0, dataType: 'string', plan: 0, dataStatus: 1, dict: 0, masking: 0,
    })
    // a common property is planned with the property; reported here because visit carried it
    expect(res.body.find((p: any) => p.id === '$os')).toMatchObject({ global: 1, preset: 1, plan: 1, dataStatus: 1 })
    expect(res.body.find((p: any) => p.id === '$browser')).toMatchObject({ global: 1, preset: 1, plan: 1, dataStatus: 0 })
    expect(ids((await get('/uba/api/schema/eventProperties?eventId=visit&dataStatus=1')).body)).toEqual(['$os', 'channel'])
    expect(ids((await get('/uba/api/schema/eventProperties?eventId=visit&plan=0')).body)).toEqual(['channel'])
  })

  it('does not show one event the properties of another', async () => {
    const res = await get('/uba/api/schema/eventProperties?eventId=$pageview')
    expect(res.body).toHaveLength(37)
    expect(ids(res.body)).not.toContain('channel')
  })

  it.each([
    ['eventId=nope', 'event nope does not exist', ['eventId']],
    ['eventId=any_visit', 'event any_visit does not exist', ['eventId']],
    ['', 'eventId is required', ['eventId']],
    ['eventId=visit&plan=3', 'plan must be one of 0, 1', ['plan']],
  ])('refuses ?%s with 400', async (query, msg, data) => {
    const res = await get(`/uba/api/schema/eventProperties?${query}`)
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg, data })
  })
})

describe('POST /uba/api/schema/userProperties', () => {
  it('creates a new property in the plan, with its profile_vd column usable by SQL at once', async () => {
    const res = await post('/uba/api/schema/userProperties?loginUser=a@example.com', { id: 'level', name: 'Level 等级 (v2)', dataType: 'number', remark: 'Membership level, 1-5.' })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ success: 0 })
    expect(row(s, 'plan_user_properties', 'level')).toMatchObject({
      name: 'Level 等级 (v2)', remark: 'Membership level, 1-5.', data_type: 'number', plan: 1, data_status: 0, preset: 0, visible: 1, enable: 1,
    })
    expect((await columnsOf(s, 'profile_vd')).level).toBe('DOUBLE')
    const sql = await s.app.ctx.warehouse.withConnection(s.project.appKey, 'UTC', async (c) => (await c.runAndReadAll('SELECT COUNT(level) AS n FROM profile_vd')).getRowObjectsJS())
    expect(sql).toEqual([{ n: 0n }])
    expect(lastOperation(s)).toEqual({ operator_id: accountA, app_key: s.project.appKey, action: 'schema.userProperty.create', target: 'level' })
  })

  it('folds an upper-case id to lower case, as data does', async () => {
    await post('/uba/api/schema/userProperties', { id: 'VipLevel', dataType: 'string' })
    expect(row(s, 'plan_user_properties', 'viplevel')).toMatchObject({ data_type: 'string', plan: 1 })
    expect(row(s, 'plan_user_properties', 'VipLevel')).toBeUndefined()
    expect((await columnsOf(s, 'profile_vd')).viplevel).toBe('VARCHAR')
  })

  it('puts a property outside the plan into it, with the name and remark sent', async () => {
    const res = await post('/uba/api/schema/userProperties', { id: 'vip', name: 'VIP', dataType: 'boolean', remark: 'Paying member' })
    expect(res.body).toEqual({ success: 0 })
    expect(row(s, 'plan_user_properties', 'vip')).toMatchObject({ name: 'VIP', remark: 'Paying member', plan: 1, data_status: 1, data_type: 'boolean' })
    expect(lastOperation(s)).toMatchObject({ operator_id: null, action: 'schema.userProperty.plan', target: 'vip' })
  })

  it('skips a property already in the plan with the same type: nothing changes, not even its name', async () => {
    const before = await planSnapshot(s)
    for (const body of [
      { id: 'vip', name: 'Another name', dataType: 'boolean' },
      { id: 'xwho', name: 'Account', dataType: 'string' },
      { id: 'distinct_id', dataType: 'number' },
      { id: '$city', dataType: 'string', remark: 'x' },
    ]) {
      const res = await post('/uba/api/schema/userProperties', body)
      expect(res.body).toEqual({ success: 0 })
    }
    expect(await planSnapshot(s)).toEqual(before)
  })

  it('re-declares a planned property without data: the new type wins, and its column is re-typed', async () => {
    await post('/uba/api/schema/userProperties', { id: 'nickname', name: 'Nick', dataType: 'number' })
    expect((await columnsOf(s, 'profile_vd')).nickname).toBe('DOUBLE')
    const res = await post('/uba/api/schema/userProperties', { id: 'nickname', name: 'Nickname', dataType: 'string' })
    expect(res.body).toEqual({ success: 0 })
    expect(row(s, 'plan_user_properties', 'nickname')).toMatchObject({ name: 'Nickname', data_type: 'string', plan: 1, data_status: 0 })
    expect((await columnsOf(s, 'profile_vd')).nickname).toBe('VARCHAR')
  })

  it.each([
    [{ id: 'vip', dataType: 'string' }, 'vip has reported data as boolean; its data type cannot change', ['dataType']],
    [{ id: 'score', dataType: 'string' }, 'score has reported data as number; its data type cannot change', ['dataType']],
    [{ id: 'xwho', dataType: 'number' }, 'xwho is a preset string property; its data type cannot change', ['dataType']],
    [{ id: '$signup_time', dataType: 'string' }, '$signup_time is a preset datetime property; its data type cannot change', ['dataType']],
    [{ id: '1level', dataType: 'string' }, '1level: a new property id has letters, digits and underscores, does not start with a digit and has at most 100 characters', ['id']],
    [{ id: 'my-level', dataType: 'string' }, 'my-level: a new property id has letters, digits and underscores, does not start with a digit and has at most 100 characters', ['id']],
    [{ id: '$custom', dataType: 'string' }, '$custom: a new property id has letters, digits and underscores, does not start with a digit and has at most 100 characters', ['id']],
    [{ id: 'a'.repeat(101), dataType: 'string' }, `${'a'.repeat(101)}: a new property id has letters, digits and underscores, does not start with a digit and has at most 100 characters`, ['id']],
    [{ id: 'a'.repeat(126), dataType: 'string' }, 'id must NOT have more than 125 characters', ['id']],
    [{ id: '', dataType: 'string' }, 'id must NOT have fewer than 1 characters', ['id']],
    [{ id: 'ok_id', dataType: 'int' }, 'dataType must be one of string, number, boolean, datetime, array<string>', ['dataType']],
    [{ id: 'ok_id' }, 'dataType is required', ['dataType']],
    [{ dataType: 'string' }, 'id is required', ['id']],
    [{ id: 'ok_id', dataType: 'string', name: 'a<b' }, 'name: letters, digits, spaces and _ - . , : ; ! ? ( ) [ ] / & + # % @ * = ~ | only, at most 50 characters', ['name']],
    [{ id: 'ok_id', dataType: 'string', name: 'n'.repeat(51) }, 'name: letters, digits, spaces and _ - . , : ; ! ? ( ) [ ] / & + # % @ * = ~ | only, at most 50 characters', ['name']],
    [{ id: 'ok_id', dataType: 'string', remark: 'r'.repeat(101) }, 'remark: letters, digits, spaces and _ - . , : ; ! ? ( ) [ ] / & + # % @ * = ~ | only, at most 100 characters', ['remark']],
    [{ id: 'ok_id', dataType: 'string', remark: 'two\nlines' }, 'remark: letters, digits, spaces and _ - . , : ; ! ? ( ) [ ] / & + # % @ * = ~ | only, at most 100 characters', ['remark']],
    [{ id: 'ok_id', dataType: 'string', name: 'say "hi"' }, 'name: letters, digits, spaces and _ - . , : ; ! ? ( ) [ ] / & + # % @ * = ~ | only, at most 50 characters', ['name']],
  ])('refuses %j with 400, changing nothing', async (body, msg, data) => {
    const before = await planSnapshot(s)
    const res = await post('/uba/api/schema/userProperties', body)
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg, data })
    expect(await planSnapshot(s)).toEqual(before)
  })

  it('accepts names in any script with everyday punctuation, and an empty name as none', async () => {
    const res = await post('/uba/api/schema/userProperties', { id: 'city_tier', name: 'Город / 城市 – tier #1, 50%!', dataType: 'string', remark: '' })
    expect(res.status).toBe(200)
    expect(row(s, 'plan_user_properties', 'city_tier')).toMatchObject({ name: 'Город / 城市 – tier #1, 50%!', remark: null })
  })

  it('also answers at the /svc form of the path, which /openapi.json leaves out', async () => {
    const res = await post('/svc/uba/api/schema/userProperties', { id: 'svc_prop', dataType: 'datetime' })
    expect(res.body).toEqual({ success: 0 })
    expect((await columnsOf(s, 'profile_vd')).svc_prop).toBe('TIMESTAMP')
    const doc = (await get('/openapi.json')).body
    expect(doc.paths['/uba/api/schema/userProperties']).toBeDefined()
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/svc/uba/api/schema'))).toEqual([])
  })

  it('serialises concurrent declarations: every one lands with its column', async () => {
    const names = Array.from({ length: 8 }, (_, i) => `parallel_${i}`)
    const results = await Promise.all(names.map((id) => post('/uba/api/schema/userProperties', { id, dataType: 'number' })))
    expect(results.map((r) => r.status)).toEqual(names.map(() => 200))
    const columns = await columnsOf(s, 'profile_vd')
    expect(names.map((id) => columns[id])).toEqual(names.map(() => 'DOUBLE'))
  })

  it('refuses an unknown loginUser with 400 and writes nothing', async () => {
    const before = await planSnapshot(s)
    const res = await post('/uba/api/schema/userProperties?loginUser=nobody@example.com', { id: 'ghost', dataType: 'string' })
    expect(res.status).toBe(400)
    expect(res.body.data).toEqual(['loginUser'])
    expect(await planSnapshot(s)).toEqual(before)
  })
})
