import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../helpers/server'
import { lastOperation, planSnapshot, report, row } from './plan-helpers'

let s: TestServer
const account: Record<string, number> = {}

beforeAll(async () => {
  s = await startTestServer()
  for (const email of ['a@example.com', 'b@example.com']) {
    account[email] = (await s.call('POST', '/uba/manage/enterprise/accounts', { headers: { xtoken: s.creds.xtoken }, body: { email } })).body.userId
  }
  await report(s, {
    userProperties: { vip: 'boolean' },
    events: {
      buy: { properties: { price: 'number', $os: 'string' }, platforms: ['iOS'] },
      refund: { properties: { reason: 'string', price: 'number' }, platforms: ['JS', 'Android'] },
    },
  })
  await s.call('POST', '/uba/api/schema/event', { headers: s.project, body: { id: 'share', properties: [{ id: 'target', dataType: 'string' }] } })
})
afterAll(() => s.stop())

const get = (path: string) => s.call('GET', path, { headers: s.project })
const createVirtual = (body: unknown, query = '') => s.call('POST', `/uba/api/meta/event/virtual${query}`, { headers: s.project, body })
const changeVirtual = (body: unknown, query = '') => s.call('PUT', `/uba/api/meta/event/virtual${query}`, { headers: s.project, body })
const ids = (list: { id: string }[]) => list.map((x) => x.id)
const cond = (expression: string, fn: string, params: unknown[] = []) => ({ expression, function: fn, params })

describe('GET /uba/api/meta/userProperties', () => {
  it('lists planned and reported user properties, hidden presets included, with the metadata fields', async () => {
    const res = await get('/uba/api/meta/userProperties')
    expect(res.status).toBe(200)
    expect(res.body).toHaveLength(17)
    expect(res.body.find((p: any) => p.id === 'distinct_id')).toEqual({ id: 'distinct_id', name: 'Distinct id', enable: 1, visible: 0, preset: 1, dataType: 'number', dict: 0 })
    expect(res.body.find((p: any) => p.id === 'vip')).toEqual({ id: 'vip', name: null, enable: 1, visible: 1, preset: 0, dataType: 'boolean', dict: 0 })
  })
})

describe('POST /uba/api/meta/event/virtual', () => {
  it('creates a virtual event owned by the API, its rule stored normalised as an OR of members', async () => {
    const res = await createVirtual({
      id: 'money_moves',
      name: 'Money moves',
      remark: 'Buy or refund',
      events: [
        { expression: 'event.buy', filter: { conditions: [cond('event.buy.Price', 'GTE', [100]), cond('user.vip', 'TRUE')], relation: 'and' } },
        { expression: 'event.refund' },
      ],
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ success: 0 })
    expect(row(s, 'plan_events', 'money_moves')).toMatchObject({ type: 'virtual', name: 'Money moves', remark: 'Buy or refund', plan: 1, created_by: null })
    expect(JSON.parse(row(s, 'plan_events', 'money_moves').content)).toEqual({
      events: [
        { expression: 'event.buy', filter: { conditions: [cond('event.buy.price', 'GTE', [100]), cond('user.vip', 'TRUE')], relation: 'AND' } },
        { expression: 'event.refund' },
      ],
      relation: 'OR',
    })
    expect(lastOperation(s)).toMatchObject({ operator_id: null, action: 'meta.virtualEvent.create', target: 'money_moves' })
  })

  it("records loginUser's account as the creator", async () => {
    await createVirtual({ id: 'a_shares', events: [{ expression: 'event.share', filter: null }] }, '?loginUser=a@example.com')
    expect(row(s, 'plan_events', 'a_shares')).toMatchObject({ created_by: account['a@example.com'], content: '{"events":[{"expression":"event.share"}],"relation":"OR"}' })
  })

  const filterOf = (filter: unknown) => ({ id: 'v_bad', events: [{ expression: 'event.buy' }, { expression: 'event.refund', filter }] })
  const idRule = 'a virtual event id has letters, digits and underscores, does not start with a digit and has at most 100 characters'
  it.each([
    [{ id: 'buy', events: [{ expression: 'event.refund' }] }, 'buy is the id of an event; a virtual event id must differ from every event id', ['id']],
    [{ id: '$pageview', events: [{ expression: 'event.refund' }] }, `$pageview: ${idRule}`, ['id']],
    [{ id: '2x', events: [{ expression: 'event.refund' }] }, `2x: ${idRule}`, ['id']],
    [{ id: 'v'.repeat(101), events: [{ expression: 'event.refund' }] }, `${'v'.repeat(101)}: ${idRule}`, ['id']],
    [{ id: 'v_bad' }, 'events is required', ['events']],
    [{ id: 'v_bad', events: [] }, 'events must NOT have fewer than 1 items', ['events']],
    [{ id: 'v_bad', events: [{ expression: 'buy' }] }, 'events[0].expression must be event.<eventId>', ['events[0].expression']],
    [{ id: 'v_bad', events: [{ expression: 'event.buy.price' }] }, 'events[0].expression must be event.<eventId>', ['events[0].expression']],
    [{ id: 'v_bad', events: [{ expression: 'event.nope' }] }, 'events[0].expression: event nope does not exist', ['events[0].expression']],
    [{ id: 'v_bad', events: [{ expression: 'event.$Anything' }] }, 'events[0].expression: a virtual event combines named events, not $Anything', ['events[0].expression']],
    [{ id: 'v_bad', events: [{ expression: 'event.buy' }, { expression: 'event.money_moves' }] }, 'events[1].expression: money_moves is a virtual event; members must be real events', ['events[1].expression']],
    [{ id: 'v_bad', name: 'n'.repeat(51), events: [{ expression: 'event.buy' }] }, 'name: letters, digits, spaces and _ - . , : ; ! ? ( ) [ ] / & + # % @ * = ~ | only, at most 50 characters', ['name']],
    [{ id: 'v_bad', remark: 'r'.repeat(101), events: [{ expression: 'event.buy' }] }, 'remark: letters, digits, spaces and _ - . , : ; ! ? ( ) [ ] / & + # % @ * = ~ | only, at most 100 characters', ['remark']],
    [filterOf({ conditions: [cond('event.refund.target', 'EQ', ['x'])] }), 'events[1].filter.conditions[0].expression: event.refund.target is not a known property', ['events[1].filter.conditions[0].expression']],
    [filterOf({ conditions: [cond('user.vip', 'TRUE'), cond('event.buy.price', 'GT', [1])] }), 'events[1].filter.conditions[1].expression: event.buy.price is not a known property', ['events[1].filter.conditions[1].expression']],
    [filterOf({ conditions: [cond('event.refund.reason', 'GT', [1])] }), 'events[1].filter.conditions[0].function: GT does not apply to a string property (use EQ, NOT_EQ, CONTAIN, NOT_CONTAIN, NULL, NOT_NULL)', ['events[1].filter.conditions[0].function']],
    [filterOf({ conditions: [cond('event.refund.price', 'RANGE', [10])] }), 'events[1].filter.conditions[0].params: RANGE takes two numbers [low, high] with low <= high', ['events[1].filter.conditions[0].params']],
    [filterOf({ conditions: [cond('event.refund.price', 'EQ', ['ten'])] }), 'events[1].filter.conditions[0].params: EQ takes one or more numbers', ['events[1].filter.conditions[0].params']],
    [filterOf({ conditions: [], relation: 'XOR' }), 'events[1].filter.relation must be AND or OR (in any letter case)', ['events[1].filter.relation']],
    [filterOf([]), 'events[1].filter must be object,null', ['events[1].filter']],
  ])('refuses %j with 400, creating nothing', async (body, msg, data) => {
    const before = await planSnapshot(s)
    const res = await createVirtual(body)
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg, data })
    expect(await planSnapshot(s)).toEqual(before)
  })

  it('refuses the id of an existing virtual event with 501/50101', async () => {
    const before = await planSnapshot(s)
    const res = await createVirtual({ id: 'money_moves', events: [{ expression: 'event.buy' }] })
    expect(res.status).toBe(501)
    expect(res.body).toEqual({ code: 50101, msg: 'virtual event money_moves already exists', data: null })
    expect(await planSnapshot(s)).toEqual(before)
  })
})

describe('PUT /uba/api/meta/event/virtual', () => {
  it('changes only the fields sent; events replace the members', async () => {
    const res = await changeVirtual({ id: 'money_moves', remark: null, events: [{ expression: 'event.refund', filter: { conditions: [cond('event.refund.reason', 'NOT_EQ', ['test', 'qa'])], relation: 'OR' } }] })
    expect(res.body).toEqual({ success: 0 })
    const stored = row(s, 'plan_events', 'money_moves')
    expect(stored).toMatchObject({ name: 'Money moves', remark: null })
    expect(JSON.parse(stored.content)).toEqual({
      events: [{ expression: 'event.refund', filter: { conditions: [cond('event.refund.reason', 'NOT_EQ', ['test', 'qa'])], relation: 'OR' } }],
      relation: 'OR',
    })
    expect(lastOperation(s)).toMatchObject({ operator_id: null, action: 'meta.virtualEvent.update', target: 'money_moves' })
  })

  it('lets only the creator change it: the API without loginUser, an account with itself as loginUser', async () => {
    const notYours = await changeVirtual({ id: 'money_moves', name: 'Mine' }, '?loginUser=a@example.com')
    expect(notYours.status).toBe(400)
    expect(notYours.body).toEqual({ code: 400, msg: 'virtual event money_moves was not created by a@example.com; only its creator may change it', data: ['loginUser'] })
    const noLogin = await changeVirtual({ id: 'a_shares', name: 'Mine' })
    expect(noLogin.body).toEqual({ code: 400, msg: 'virtual event a_shares was created by an account; only that account (as loginUser) may change it', data: ['loginUser'] })
    const other = await changeVirtual({ id: 'a_shares', name: 'Mine' }, '?loginUser=b@example.com')
    expect(other.body.data).toEqual(['loginUser'])
    expect(row(s, 'plan_events', 'a_shares').name).toBeNull()
    expect(row(s, 'plan_events', 'money_moves').name).toBe('Money moves')
    const creator = await changeVirtual({ id: 'a_shares', name: 'Shares of A' }, '?loginUser=a@example.com')
    expect(creator.body).toEqual({ success: 0 })
    expect(row(s, 'plan_events', 'a_shares').name).toBe('Shares of A')
    expect(lastOperation(s)).toMatchObject({ operator_id: account['a@example.com'], target: 'a_shares' })
  })

  it.each([
    [{ id: 'nope', name: 'x' }, 'virtual event nope does not exist', ['id']],
    [{ id: 'buy', name: 'x' }, 'buy is a tracked event, not a virtual event', ['id']],
    [{ id: 'money_moves' }, 'nothing to change: send at least one of name, remark, events', ['body']],
    [{ id: 'money_moves', events: [] }, 'events must NOT have fewer than 1 items', ['events']],
    [{ id: 'money_moves', events: [{ expression: 'event.nope' }] }, 'events[0].expression: event nope does not exist', ['events[0].expression']],
    [{ id: 'money_moves', events: [{ expression: 'event.buy', filter: { conditions: [cond('event.buy.price', 'BETWEEN', [1, 2])] } }] }, 'events[0].filter.conditions[0].function: BETWEEN does not apply to a number property (use EQ, NOT_EQ, GT, GTE, LT, LTE, RANGE, NULL, NOT_NULL)', ['events[0].filter.conditions[0].function']],
    [{ name: 'x' }, 'id is required', ['id']],
  ])('refuses %j with 400, changing nothing', async (body, msg, data) => {
    const before = await planSnapshot(s)
    const res = await changeVirtual(body)
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg, data })
    expect(await planSnapshot(s)).toEqual(before)
  })
})

describe('GET /uba/api/meta/event', () => {
  it('lists tracked and virtual events with type and content; a virtual event joins its members platforms', async () => {
    const res = await get('/uba/api/meta/event')
    expect(res.status).toBe(200)
    expect(res.body).toHaveLength(21 + 3 + 2)
    expect(res.body.find((e: any) => e.id === 'refund')).toEqual({ id: 'refund', name: null, enable: 1, remark: null, preset: 0, platform: 'Android,JS', type: 'event', content: null })
    expect(res.body.find((e: any) => e.id === 'money_moves')).toEqual({
      id: 'money_moves', name: 'Money moves', enable: 1, remark: null, preset: 0, platform: 'Android,JS', type: 'virtual',
      content: { events: [{ expression: 'event.refund', filter: { conditions: [cond('event.refund.reason', 'NOT_EQ', ['test', 'qa'])], relation: 'OR' } }], relation: 'OR' },
    })
    expect(res.body.find((e: any) => e.id === 'a_shares')).toMatchObject({ platform: null, content: { events: [{ expression: 'event.share' }], relation: 'OR' } })
  })

  it('filters by type and by enable, disabled events included by default', async () => {
    s.app.ctx.meta.prepare("UPDATE plan_events SET enable = 0 WHERE app_key = ? AND id IN ('refund', 'a_shares')").run(s.project.appKey)
    expect(ids((await get('/uba/api/meta/event?type=virtual')).body)).toEqual(['a_shares', 'money_moves'])
    expect(ids((await get('/uba/api/meta/event?type=event&enable=0')).body)).toEqual(['refund'])
    expect(ids((await get('/uba/api/meta/event?type=all&enable=0')).body)).toEqual(['a_shares', 'refund'])
    expect((await get('/uba/api/meta/event?type=event&enable=1')).body).toHaveLength(23)
    expect((await get('/uba/api/meta/event?type=all')).body).toHaveLength(26)
  })

  it.each([
    ['type=real', 'type must be one of all, event, virtual', ['type']],
    ['enable=2', 'enable must be one of 0, 1', ['enable']],
  ])('refuses ?%s with 400', async (query, msg, data) => {
    const res = await get(`/uba/api/meta/event?${query}`)
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg, data })
  })
})

describe('GET /uba/api/meta/eventProperties', () => {
  const own = (list: any[]) => ids(list.filter((p) => p.global === 0))

  it("lists an event's common and own properties with the metadata fields", async () => {
    const res = await get('/uba/api/meta/eventProperties?eventId=refund')
    expect(res.status).toBe(200)
    expect(res.body).toHaveLength(37 + 2)
    expect(own(res.body)).toEqual(['price', 'reason'])
    expect(res.body.find((p: any) => p.id === 'reason')).toEqual({ id: 'reason', name: null, enable: 1, global: 0, preset: 0, dataType: 'string', dict: 0 })
    expect(res.body.find((p: any) => p.id === '$os')).toEqual({ id: '$os', name: 'Operating system', enable: 1, global: 1, preset: 1, dataType: 'string', dict: 0 })
  })

  it('lists for a virtual event the properties of its members together, and for $Anything every one', async () => {
    await changeVirtual({ id: 'money_moves', events: [{ expression: 'event.buy' }, { expression: 'event.share' }] })
    expect(own((await get('/uba/api/meta/eventProperties?eventId=money_moves')).body)).toEqual(['price', 'target'])
    expect(own((await get('/uba/api/meta/eventProperties?eventId=$Anything')).body)).toEqual(['price', 'reason', 'target'])
  })

  it.each([
    ['eventId=nope', 'event nope does not exist', ['eventId']],
    ['', 'eventId is required', ['eventId']],
  ])('refuses ?%s with 400', async (query, msg, data) => {
    const res = await get(`/uba/api/meta/eventProperties?${query}`)
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg, data })
  })
})

describe('/openapi.json', () => {
  it('documents every schema and metadata route with its rules and error answers', async () => {
    const doc = (await get('/openapi.json')).body
    const routes = [
      ['get', '/uba/api/schema/userProperties'], ['post', '/uba/api/schema/userProperties'], ['put', '/uba/api/schema/userProperties'],
      ['get', '/uba/api/schema/event'], ['post', '/uba/api/schema/event'], ['put', '/uba/api/schema/event'],
      ['get', '/uba/api/schema/eventProperties'], ['put', '/uba/api/schema/eventProperties'],
      ['get', '/uba/api/meta/userProperties'], ['get', '/uba/api/meta/event'], ['get', '/uba/api/meta/eventProperties'],
      ['post', '/uba/api/meta/event/virtual'], ['put', '/uba/api/meta/event/virtual'],
    ]
    for (const [method, path] of routes) {
      const op = doc.paths[path]?.[method]
      expect(op, `${method} ${path}`).toBeDefined()
      expect(op.description.length, `${method} ${path}`).toBeGreaterThan(40)
      expect(op.responses['401'], `${method} ${path}`).toBeDefined()
    }
    expect(doc.paths['/uba/api/meta/event/virtual'].put.description).toContain('Only its creator may change it')
    expect(doc.paths['/uba/api/schema/userProperties'].post.description).toContain('skipped')
  })
})
