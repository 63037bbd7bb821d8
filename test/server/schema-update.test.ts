import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../helpers/server'
import { columnsOf, lastOperation, planSnapshot, report, row } from './plan-helpers'

let s: TestServer
let accountA: number

beforeAll(async () => {
  s = await startTestServer()
  accountA = (await s.call('POST', '/uba/manage/enterprise/accounts', { headers: { xtoken: s.creds.xtoken }, body: { email: 'a@example.com' } })).body.userId
  await report(s, { userProperties: { vip: 'boolean' }, events: { visit: { properties: { stay: 'number' } } } })
  const h = { headers: s.project }
  await s.call('POST', '/uba/api/schema/userProperties', { ...h, body: { id: 'level', name: 'Level', dataType: 'number', remark: 'Tier' } })
  await s.call('POST', '/uba/api/schema/event', { ...h, body: { id: 'buy', name: 'Buy', remark: 'Order', properties: [{ id: 'price', name: 'Price', dataType: 'number', remark: 'cents' }] } })
  await s.call('POST', '/uba/api/schema/event', { ...h, body: { id: 'refund', properties: [{ id: 'price', dataType: 'number' }] } })
  await s.call('POST', '/uba/api/meta/event/virtual', { ...h, body: { id: 'v_buy', events: [{ expression: 'event.buy' }] } })
})
afterAll(() => s.stop())

const put = (path: string, body?: unknown) => s.call('PUT', path, { headers: s.project, body })
const stale = (table: string, id: string) => s.app.ctx.meta.prepare(`UPDATE ${table} SET update_time = 0 WHERE app_key = ? AND id = ?`).run(s.project.appKey, id)

async function refused(path: string, body: unknown, msg: string, data: string[]) {
  const before = await planSnapshot(s)
  const res = await put(path, body)
  expect(res.status).toBe(400)
  expect(res.body).toEqual({ code: 400, msg, data })
  expect(await planSnapshot(s)).toEqual(before)
}

describe('PUT /uba/api/schema/userProperties', () => {
  it('changes only the fields sent, sets update_time, and records the operator', async () => {
    stale('plan_user_properties', 'level')
    const res = await put('/uba/api/schema/userProperties?id=level&loginUser=a@example.com', { name: 'Member level' })
    expect(res.body).toEqual({ success: 0 })
    const level = row(s, 'plan_user_properties', 'level')
    expect(level).toMatchObject({ name: 'Member level', remark: 'Tier', data_type: 'number', plan: 1, data_status: 0 })
    expect(level.update_time).toBeGreaterThan(0)
    expect(lastOperation(s)).toEqual({ operator_id: accountA, app_key: s.project.appKey, action: 'schema.userProperty.update', target: 'level' })
  })

  it('clears a remark with null, and finds the property by an upper-case id', async () => {
    await put('/uba/api/schema/userProperties?id=LEVEL', { remark: null })
    expect(row(s, 'plan_user_properties', 'level')).toMatchObject({ name: 'Member level', remark: null })
  })

  it('changes the data type while no data has reported, re-typing the column', async () => {
    const res = await put('/uba/api/schema/userProperties?id=level', { dataType: 'string' })
    expect(res.body).toEqual({ success: 0 })
    expect(row(s, 'plan_user_properties', 'level').data_type).toBe('string')
    expect((await columnsOf(s, 'profile_vd')).level).toBe('VARCHAR')
  })

  it('renames a preset and a reported property, and accepts their current type', async () => {
    await put('/uba/api/schema/userProperties?id=xwho', { name: 'Account id', dataType: 'string' })
    await put('/uba/api/schema/userProperties?id=vip', { name: 'VIP', dataType: 'boolean' })
    expect(row(s, 'plan_user_properties', 'xwho')).toMatchObject({ name: 'Account id', data_type: 'string', preset: 1 })
    expect(row(s, 'plan_user_properties', 'vip')).toMatchObject({ name: 'VIP', plan: 0, data_status: 1 })
  })

  it.each([
    ['id=vip', { dataType: 'string' }, 'vip has reported data as boolean; its data type cannot change', ['dataType']],
    ['id=xwho', { dataType: 'number' }, 'xwho is a preset string property; its data type cannot change', ['dataType']],
    ['id=$email', { name: 'Mail', dataType: 'array<string>' }, '$email is a preset string property; its data type cannot change', ['dataType']],
    ['id=nope', { name: 'x' }, 'user property nope does not exist', ['id']],
    ['', { name: 'x' }, 'id is required', ['id']],
    ['id=level', {}, 'nothing to change: send at least one of name, dataType, remark, masking', ['body']],
    ['id=level', { masking: 2 }, 'masking must be one of 0, 1', ['masking']],
    // a bare PUT is {} and an unknown field is ignored: nothing to change either way
    ['id=level', undefined, 'nothing to change: send at least one of name, dataType, remark, masking', ['body']],
    ['id=level', { plan: 1 }, 'nothing to change: send at least one of name, dataType, remark, masking', ['body']],
    ['id=level', { dataType: 'text' }, 'dataType must be one of string, number, boolean, datetime, array<string>', ['dataType']],
    ['id=level', { name: 'x{y}' }, 'name: letters, digits, spaces and _ - . , : ; ! ? ( ) [ ] / & + # % @ * = ~ | only, at most 50 characters', ['name']],
  ])('refuses ?%s %j with 400, changing nothing', async (query, body, msg, data) => {
    await refused(`/uba/api/schema/userProperties?${query}`, body, msg, data)
  })
})

describe('PUT /uba/api/schema/event', () => {
  it('changes the name or remark sent, and nothing else', async () => {
    stale('plan_events', 'buy')
    expect((await put('/uba/api/schema/event?id=buy', { remark: 'Order placed' })).body).toEqual({ success: 0 })
    expect(row(s, 'plan_events', 'buy')).toMatchObject({ name: 'Buy', remark: 'Order placed', plan: 1 })
    expect(row(s, 'plan_events', 'buy').update_time).toBeGreaterThan(0)
    await put('/svc/uba/api/schema/event?id=$pageview', { name: 'Screen view', remark: '' })
    expect(row(s, 'plan_events', '$pageview')).toMatchObject({ name: 'Screen view', remark: null, preset: 1 })
    expect(lastOperation(s)).toMatchObject({ action: 'schema.event.update', target: '$pageview' })
  })

  it.each([
    ['id=nope', { name: 'x' }, 'event nope does not exist', ['id']],
    ['id=Buy', { name: 'x' }, 'event Buy does not exist', ['id']],
    ['id=v_buy', { name: 'x' }, 'v_buy is a virtual event; change it through /uba/api/meta/event/virtual', ['id']],
    ['id=buy', {}, 'nothing to change: send at least one of name, remark', ['body']],
    ['id=buy', { dataType: 'string' }, 'nothing to change: send at least one of name, remark', ['body']],
    ['id=buy', { name: 'n'.repeat(51) }, 'name: letters, digits, spaces and _ - . , : ; ! ? ( ) [ ] / & + # % @ * = ~ | only, at most 50 characters', ['name']],
    ['', { name: 'x' }, 'id is required', ['id']],
  ])('refuses ?%s %j with 400, changing nothing', async (query, body, msg, data) => {
    await refused(`/uba/api/schema/event?${query}`, body, msg, data)
  })
})

describe('PUT /uba/api/schema/eventProperties', () => {
  it('changes the property for every event that carries it (one name, one type per id)', async () => {
    const res = await put('/uba/api/schema/eventProperties?eventId=refund&propertyId=Price', { name: 'Amount', remark: null })
    expect(res.body).toEqual({ success: 0 })
    const onBuy = (await s.call('GET', '/uba/api/schema/eventProperties?eventId=buy', { headers: s.project })).body.find((p: any) => p.id === 'price')
    expect(onBuy).toMatchObject({ name: 'Amount', remark: null, dataType: 'number' })
    expect(lastOperation(s)).toMatchObject({ action: 'schema.eventProperty.update', target: 'refund.price' })
  })

  it('changes the data type while no event has reported it, re-typing the event_vd column', async () => {
    await put('/uba/api/schema/eventProperties?eventId=buy&propertyId=price', { dataType: 'string' })
    expect(row(s, 'plan_event_properties', 'price').data_type).toBe('string')
    expect((await columnsOf(s, 'event_vd')).price).toBe('VARCHAR')
  })

  it('renames a common preset property through any event', async () => {
    await put('/uba/api/schema/eventProperties?eventId=buy&propertyId=$os', { name: 'OS' })
    expect(row(s, 'plan_event_properties', '$os')).toMatchObject({ name: 'OS', data_type: 'string' })
  })

  it.each([
    ['eventId=visit&propertyId=stay', { dataType: 'string' }, 'stay has reported data as number; its data type cannot change', ['dataType']],
    ['eventId=buy&propertyId=$os', { dataType: 'number' }, '$os is a preset string property; its data type cannot change', ['dataType']],
    ['eventId=nope&propertyId=price', { name: 'x' }, 'event nope does not exist', ['eventId']],
    ['eventId=v_buy&propertyId=price', { name: 'x' }, 'event v_buy does not exist', ['eventId']],
    ['eventId=visit&propertyId=price', { name: 'x' }, 'price is not a property of event visit', ['propertyId']],
    ['eventId=buy&propertyId=nope', { name: 'x' }, 'nope is not a property of event buy', ['propertyId']],
    ['eventId=buy', { name: 'x' }, 'propertyId is required', ['propertyId']],
    ['propertyId=price', { name: 'x' }, 'eventId is required', ['eventId']],
    ['eventId=buy&propertyId=price', {}, 'nothing to change: send at least one of name, dataType, remark, masking', ['body']],
  ])('refuses ?%s %j with 400, changing nothing', async (query, body, msg, data) => {
    await refused(`/uba/api/schema/eventProperties?${query}`, body, msg, data)
  })
})
