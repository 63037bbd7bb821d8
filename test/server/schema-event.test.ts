import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../helpers/server'
import { columnsOf, lastOperation, link, planSnapshot, report, row } from './plan-helpers'

let s: TestServer

beforeAll(async () => {
  s = await startTestServer()
  await report(s, { events: { visit: { properties: { $os: 'string', channel: 'string', stay: 'number' } } } })
  await s.call('POST', '/uba/api/meta/event/virtual', { headers: s.project, body: { id: 'any_visit', events: [{ expression: 'event.visit' }] } })
})
afterAll(() => s.stop())

const post = (body: unknown, path = '/uba/api/schema/event') => s.call('POST', path, { headers: s.project, body })
const ownProperties = async (eventId: string) =>
  (await s.call('GET', `/uba/api/schema/eventProperties?eventId=${eventId}`, { headers: s.project })).body
    .filter((p: any) => p.global === 0)
    .map((p: any) => `${p.id}:${p.dataType}:plan${p.plan}:data${p.dataStatus}`)

describe('POST /uba/api/schema/event', () => {
  it('creates a new event with new properties: planned, linked, with event_vd columns', async () => {
    const res = await post({
      id: 'PayOrder',
      name: 'Pay order',
      remark: 'Checkout completed',
      properties: [
        { id: 'Amount', name: 'Amount', dataType: 'number', remark: 'In cents' },
        { id: 'coupons', dataType: 'array<string>' },
        { id: 'paid_at', dataType: 'datetime' },
        { id: 'first_order', dataType: 'boolean' },
      ],
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ success: 0 })
    // event ids keep their case; property ids are folded
    expect(row(s, 'plan_events', 'PayOrder')).toMatchObject({ name: 'Pay order', remark: 'Checkout completed', type: 'event', plan: 1, data_status: 0, preset: 0 })
    expect(row(s, 'plan_event_properties', 'amount')).toMatchObject({ name: 'Amount', remark: 'In cents', data_type: 'number', plan: 1, data_status: 0, global: 0 })
    expect(await ownProperties('PayOrder')).toEqual([
      'amount:number:plan1:data0', 'coupons:array<string>:plan1:data0', 'first_order:boolean:plan1:data0', 'paid_at:datetime:plan1:data0',
    ])
    const columns = await columnsOf(s, 'event_vd')
    expect([columns.amount, columns.coupons, columns.paid_at, columns.first_order]).toEqual(['DOUBLE', 'VARCHAR[]', 'TIMESTAMP', 'BOOLEAN'])
    const log = s.app.ctx.meta.prepare('SELECT operator_id, action, target FROM operation_log ORDER BY id DESC LIMIT 5').all().reverse()
    expect(log).toEqual([
      { operator_id: null, action: 'schema.event.create', target: 'PayOrder' },
      { operator_id: null, action: 'schema.eventProperty.create', target: 'PayOrder.amount' },
      { operator_id: null, action: 'schema.eventProperty.create', target: 'PayOrder.coupons' },
      { operator_id: null, action: 'schema.eventProperty.create', target: 'PayOrder.paid_at' },
      { operator_id: null, action: 'schema.eventProperty.create', target: 'PayOrder.first_order' },
    ])
  })

  it('puts an event outside the plan into it and plans the links of the properties sent', async () => {
    const res = await post({ id: 'visit', name: 'Visit', remark: 'A page visit', properties: [{ id: 'channel', name: 'Channel', dataType: 'string' }] })
    expect(res.body).toEqual({ success: 0 })
    expect(row(s, 'plan_events', 'visit')).toMatchObject({ name: 'Visit', remark: 'A page visit', plan: 1, data_status: 1 })
    expect(row(s, 'plan_event_properties', 'channel')).toMatchObject({ name: 'Channel', plan: 1, data_status: 1 })
    // stay was not sent: it stays outside the plan on this event
    expect(await ownProperties('visit')).toEqual(['channel:string:plan1:data1', 'stay:number:plan0:data1'])
  })

  it('reuses an existing property for another event: one column, one type, a new link', async () => {
    const res = await post({ id: 'refund', properties: [{ id: 'amount', dataType: 'number', name: 'ignored: already planned' }] })
    expect(res.body).toEqual({ success: 0 })
    expect(await ownProperties('refund')).toEqual(['amount:number:plan1:data0'])
    expect(row(s, 'plan_event_properties', 'amount').name).toBe('Amount')
  })

  it('declares new properties of an event already in the plan, leaving the event itself untouched', async () => {
    s.app.ctx.meta.prepare("UPDATE plan_events SET update_time = 0 WHERE app_key = ? AND id = 'PayOrder'").run(s.project.appKey)
    const res = await post({ id: 'PayOrder', name: 'Renamed?', properties: [{ id: 'amount', dataType: 'number' }, { id: 'tax', dataType: 'number' }] })
    expect(res.body).toEqual({ success: 0 })
    expect(row(s, 'plan_events', 'PayOrder')).toMatchObject({ name: 'Pay order', update_time: 0 })
    expect(await ownProperties('PayOrder')).toEqual([
      'amount:number:plan1:data0', 'coupons:array<string>:plan1:data0', 'first_order:boolean:plan1:data0', 'paid_at:datetime:plan1:data0', 'tax:number:plan1:data0',
    ])
  })

  it('skips an event in the plan whose properties are all planned on it: nothing changes', async () => {
    const before = await planSnapshot(s)
    for (const body of [{ id: 'PayOrder' }, { id: 'PayOrder', remark: 'other', properties: [{ id: 'AMOUNT', dataType: 'number' }] }, { id: '$pageview', name: 'PV' }]) {
      expect((await post(body)).body).toEqual({ success: 0 })
    }
    expect(await planSnapshot(s)).toEqual(before)
  })

  it('links a common property when it is sent, and lists it once', async () => {
    await post({ id: 'signup', properties: [{ id: '$os', dataType: 'string' }] })
    expect(link(s, 'signup', '$os')).toEqual({ plan: 1, data_status: 0 })
    const listed = (await s.call('GET', '/uba/api/schema/eventProperties?eventId=signup', { headers: s.project })).body
    expect(listed.filter((p: any) => p.id === '$os')).toHaveLength(1)
    expect(listed).toHaveLength(37)
  })

  it('re-declares a property without data under a new type: the shared column is re-typed', async () => {
    await post({ id: 'PayOrder', properties: [{ id: 'tax', dataType: 'string', name: 'Tax code' }] })
    expect(row(s, 'plan_event_properties', 'tax')).toMatchObject({ data_type: 'string', name: 'Tax code' })
    expect((await columnsOf(s, 'event_vd')).tax).toBe('VARCHAR')
  })

  const idRule = 'a new event id has letters, digits and underscores, does not start with a digit and has at most 100 characters'
  const propertyRule = 'a new property id has letters, digits and underscores, does not start with a digit and has at most 100 characters'
  it.each([
    [{ id: 'buy', properties: [{ id: 'ok', dataType: 'string' }, { id: 'stay', dataType: 'string' }] }, 'stay has reported data as number; its data type cannot change', ['properties[1].dataType']],
    [{ id: 'buy', properties: [{ id: '$os', dataType: 'number' }] }, '$os is a preset string property; its data type cannot change', ['properties[0].dataType']],
    [{ id: 'buy', properties: [{ id: 'Price', dataType: 'number' }, { id: 'price', dataType: 'number' }] }, 'price is already listed as properties[0].id', ['properties[1].id']],
    [{ id: 'buy', properties: [{ id: 'xwhen', dataType: 'datetime' }] }, 'xwhen is a base column of event_vd and cannot be a property', ['properties[0].id']],
    [{ id: 'buy', properties: [{ id: 'ds', dataType: 'number' }] }, 'ds is a base column of event_vd and cannot be a property', ['properties[0].id']],
    [{ id: 'buy', properties: [{ id: '$price', dataType: 'number' }] }, `$price: ${propertyRule}`, ['properties[0].id']],
    [{ id: 'buy', properties: [{ id: 'price' }] }, 'properties[0].dataType is required', ['properties[0].dataType']],
    [{ id: 'buy', properties: [{ id: 'price', dataType: 'number', name: '<b>' }] }, 'properties[0].name: letters, digits, spaces and _ - . , : ; ! ? ( ) [ ] / & + # % @ * = ~ | only, at most 50 characters', ['properties[0].name']],
    [{ id: '9buy' }, `9buy: ${idRule}`, ['id']],
    [{ id: 'b'.repeat(101) }, `${'b'.repeat(101)}: ${idRule}`, ['id']],
    [{ id: '$buy' }, `$buy: ${idRule}`, ['id']],
    [{ id: 'any_visit', name: 'x' }, 'any_visit is a virtual event; change it through /uba/api/meta/event/virtual', ['id']],
    [{ name: 'x' }, 'id is required', ['id']],
    [{ id: 'buy', properties: {} }, 'properties must be array', ['properties']],
  ])('refuses %j with 400, changing nothing', async (body, msg, data) => {
    const before = await planSnapshot(s)
    const res = await post(body)
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg, data })
    expect(await planSnapshot(s)).toEqual(before)
    expect(row(s, 'plan_events', 'buy')).toBeUndefined()
  })

  it('refuses a different type for a property another event already reported or planned, creating nothing', async () => {
    await report(s, { events: { visit: { properties: { tax: 'string' } } } })
    const before = await planSnapshot(s)
    const res = await post({ id: 'buy', properties: [{ id: 'price', dataType: 'number' }, { id: 'tax', dataType: 'number' }] })
    expect(res.body).toEqual({ code: 400, msg: 'tax has reported data as string; its data type cannot change', data: ['properties[1].dataType'] })
    expect(await planSnapshot(s)).toEqual(before)
    expect(row(s, 'plan_event_properties', 'price')).toBeUndefined()
  })

  it('takes any schema id of spec part 8 as a new event id: a leading underscore, 100 characters', async () => {
    for (const id of ['_checkout_v2', 'c'.repeat(100)]) {
      const res = await post({ id, name: 'Planned' })
      expect(res.status).toBe(200)
      expect(row(s, 'plan_events', id)).toMatchObject({ id, name: 'Planned', plan: 1 })
    }
  })

  it('answers at the /svc form of the path too, and records loginUser', async () => {
    const account = await s.call('POST', '/uba/manage/enterprise/accounts', { headers: { xtoken: s.creds.xtoken }, body: { email: 'e@example.com' } })
    const res = await post({ id: 'share_link', properties: [{ id: 'target', dataType: 'string' }] }, '/svc/uba/api/schema/event?loginUser=e@example.com')
    expect(res.body).toEqual({ success: 0 })
    expect(row(s, 'plan_events', 'share_link')).toMatchObject({ plan: 1, created_by: account.body.userId })
    expect(lastOperation(s)).toMatchObject({ operator_id: account.body.userId, action: 'schema.eventProperty.create', target: 'share_link.target' })
  })
})
