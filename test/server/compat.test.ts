import { Writable } from 'node:stream'
import pino from 'pino'
import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'
import { rawRequest } from '../helpers/raw'
import { eventually, type TestServer } from '../helpers/server'
import { content, eventRule, group, membersFor, userRule } from './cohorts-helpers'

/*
 * Tools written for the platform's server send what it accepts (issue 18): the exact requests of
 * the audit, each answered as the platform would.
 */
const utc = (local: string) => Date.parse(`${local.replace(' ', 'T')}Z`)
const rec = (xwho: string, xwhat: string, local: string, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen: utc(local), xcontext })

/*
 * u1: view (price 120, JS) then cart; u2: view (price 80, Android); u3: view (price 150, JS) on
 * 01-02. Profiles: u1 age 20 city X, u2 age 30 city X, u3 age 40 city Y, u4 city Y without age
 * (its record sent by the Python SDK).
 */
const lines = [
  rec('u1', 'view', '2024-01-01 10:00:00', { price: 120, $lib: 'JS' }),
  rec('u1', 'cart', '2024-01-01 10:05:00', { $lib: 'JS' }),
  rec('u2', 'view', '2024-01-01 11:00:00', { price: 80, $lib: 'Android' }),
  rec('u3', 'view', '2024-01-02 09:00:00', { price: 150, $lib: 'JS' }),
  rec('u1', '$profile_set', '2024-01-01 00:00:00', { age: 20, city: 'X' }),
  rec('u2', '$profile_set', '2024-01-01 00:00:00', { age: 30, city: 'X' }),
  rec('u3', '$profile_set', '2024-01-01 00:00:00', { age: 40, city: 'Y' }),
  rec('u4', '$profile_set', '2024-01-01 00:00:00', { city: 'Y', $lib: 'Python' }),
]

describe.each(ENGINES)('the platform\'s requests (issue 18), on %s', (engine) => {
  const logLines: string[] = []
  const sink = new Writable({
    write(chunk, _enc, done) {
      logLines.push(chunk.toString())
      done()
    },
  })
  const host = useEngine(engine, { logger: pino({ level: 'debug' }, sink) })
  let s: TestServer
  let p: Project

  beforeAll(async () => {
    s = host.server
    p = await host.project('compat', 'UTC')
    const job = await importAndWait(s, p, { path: fixture('compat.jsonl', lines.join('\n')) })
    if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
  })

  const x = () => ({ xtoken: s.creds.xtoken })
  const post = (path: string, body: unknown) => s.call('POST', path, { headers: p, body })
  const events = (body: Record<string, unknown>) => post('/uba/api/events/analyze', body)
  const funnel = (body: Record<string, unknown>) => post('/uba/api/funnels/analyze', body)
  const attributes = (body: Record<string, unknown>) => post('/uba/api/userAttributes/analyze', body)
  const dates = { crowds: ['$ALL'], fromDate: '2024-01-01', toDate: '2024-01-02' }
  const eventBase = { ...dates, measures: [{ expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' }], unit: 'DAY' }
  const funnelBase = { ...dates, steps: [{ expression: 'event.view' }, { expression: 'event.cart' }], convertTime: 1, convertTimeUnit: 'DAY' }
  const priceAtLeast = (params: unknown[]) => ({ conditions: [{ expression: 'event.view.price', function: 'GTE', params }] })

  describe('the user detail by a bare POST (spec 4.6: both body fields optional)', () => {
    it('answers the default detail without a body, with an empty body and with {}', async () => {
      const withObject = await post('/uba/api/cohort/users/u1', {})
      expect(withObject.status).toBe(200)
      expect(withObject.body).toMatchObject({ xwho: 'u1', age: 20, city: 'X' })
      const bare = await rawRequest(s.app.port, 'POST', '/uba/api/cohort/users/u1', { host: `127.0.0.1:${s.app.port}`, ...p })
      expect(bare.status).toBe(200)
      expect(bare.body).toEqual(withObject.body)
      const empty = await s.call('POST', '/uba/api/cohort/users/u1', { headers: { ...p, 'content-type': 'application/json' }, rawBody: '' })
      expect(empty.status).toBe(200)
      expect(empty.body).toEqual(withObject.body)
      // curl -X POST -d '' sends a form type with no bytes
      const form = await rawRequest(s.app.port, 'POST', '/uba/api/cohort/users/u1', { host: `127.0.0.1:${s.app.port}`, ...p, 'content-type': 'application/x-www-form-urlencoded', 'content-length': '0' }, '')
      expect(form.status).toBe(200)
      expect(form.body).toEqual(withObject.body)
    })

    it('still needs a body where a field is required', async () => {
      const res = await s.call('POST', '/uba/api/cohort/users/u1/sequence', { headers: { ...p, 'content-type': 'application/json' }, rawBody: '' })
      expect(res.status).toBe(400)
      expect(res.body.data).toEqual(['body'])
    })
  })

  describe('sdkBack (spec 2.1): the SDK platforms whose data arrived', () => {
    const sdkBack = async (appKey: string) => {
      const list = await s.call('GET', '/uba/manage/enterprise/projects', { headers: x() })
      const detail = await s.call('GET', `/uba/manage/enterprise/projects/${appKey}`, { headers: x() })
      const listed = list.body.find((q: any) => q.appKey === appKey)
      expect(listed.sdkBack).toBe(detail.body.sdkBack)
      return detail.body.sdkBack
    }

    it('lists the $lib of imported events and profile records, and adds those of collected ones', async () => {
      expect(await sdkBack('compat')).toBe('Android,JS,Python')
      await s.call('POST', '/uba/manage/enterprise/projects/compat/stream', { headers: x(), body: { streamSwitch: true } })
      await eventually(async () => (await s.call('GET', '/uba/manage/enterprise/projects/compat', { headers: x() })).body.stream === 2)
      const upload = [{ appid: 'compat', xwho: 'n1', xwhat: 'view', xwhen: utc('2024-01-03 10:00:00'), xcontext: { $lib: 'Node', $lib_version: '1.0', $platform: 'Node', $debug: 0, $is_login: false } }]
      const res = await rawRequest(s.app.port, 'POST', '/up?appid=compat', { host: `127.0.0.1:${s.app.port}`, 'content-type': 'application/json' }, JSON.stringify(upload))
      expect(res.status).toBe(200)
      expect(await sdkBack('compat')).toBe('Android,JS,Node,Python')
    })

    it('is omitted while no data has been reported', async () => {
      await host.project('empty', 'UTC')
      const detail = await s.call('GET', '/uba/manage/enterprise/projects/empty', { headers: x() })
      expect(detail.body).not.toHaveProperty('sdkBack')
    })
  })

  describe('user attribute analysis with AVG_PER (spec 4.10 property aggregators)', () => {
    it('gives the sum per user with a value: one value per user, so the average', async () => {
      const res = await attributes({ crowds: ['$ALL'], measure: { expression: 'user.age', aggregator: 'AVG_PER' }, byFields: [{ expression: 'user.city' }] })
      expect(res.status).toBe(200)
      expect(res.body.measure).toBe('age · sum per user')
      // Y: u3 40 (u4 has no age); X: (20 + 30) / 2
      expect(res.body.rows).toEqual([
        { value: 40, byValue: ['Y'] },
        { value: 25, byValue: ['X'] },
      ])
      const all = await attributes({ crowds: ['$ALL'], measure: { expression: 'user.age', aggregator: 'AVG_PER' } })
      expect(all.body.rows).toEqual([{ value: 30, byValue: [] }])
    })
  })

  describe('registering the e-mail of a disabled account (spec 7)', () => {
    it('answers 501/50102, and 501/50101 for an enabled one', async () => {
      const account = { email: 'gone@example.com' }
      expect((await s.call('POST', '/uba/manage/enterprise/accounts', { headers: x(), body: account })).status).toBe(200)
      const taken = await s.call('POST', '/uba/manage/enterprise/accounts', { headers: x(), body: account })
      expect(taken.body.code).toBe(50101)
      await s.call('POST', '/uba/manage/enterprise/accounts/activation?email=gone@example.com', { headers: x(), body: { activation: false } })
      const disabled = await s.call('POST', '/uba/manage/enterprise/accounts', { headers: x(), body: account })
      expect(disabled.status).toBe(501)
      expect(disabled.body).toEqual({ code: 50102, msg: 'an account with this email exists but is disabled', data: null })
    })
  })

  describe('the tolerance of the platform\'s server', () => {
    it('ignores the common parameters an analysis does not read, logging them at debug level', async () => {
      const plainFunnel = await funnel(funnelBase)
      const withUnit = await funnel({ ...funnelBase, unit: 'DAY' })
      expect(withUnit.status).toBe(200)
      expect(withUnit.body.rows).toEqual(plainFunnel.body.rows)
      expect(logLines.some((l) => l.includes('unknown request fields ignored') && l.includes('"unit"'))).toBe(true)
      const plainEvents = await events(eventBase)
      const withByField = await events({ ...eventBase, byField: { expression: 'event.view.price' } })
      expect(withByField.status).toBe(200)
      expect(withByField.body.rows).toEqual(plainEvents.body.rows)
      const measure = { expression: 'user.age', aggregator: 'SUM' }
      const plainAttributes = await attributes({ crowds: ['$ALL'], measure })
      const withDates = await attributes({ crowds: ['$ALL'], measure, samplingFactor: 0.5, fromDate: '2024-01-01' })
      expect(withDates.status).toBe(200)
      expect(withDates.body.rows).toEqual([{ value: 90, byValue: [] }])
      expect(withDates.body.rows).toEqual(plainAttributes.body.rows)
      // and unknown fields inside the request's objects
      const nested = await funnel({ ...funnelBase, steps: [{ expression: 'event.view', when: 1 }, { expression: 'event.cart' }] })
      expect(nested.body.rows).toEqual(plainFunnel.body.rows)
    })

    it('reads numbers sent as decimal strings', async () => {
      const asNumber = await funnel(funnelBase)
      const asText = await funnel({ ...funnelBase, convertTime: '1' })
      expect(asText.status).toBe(200)
      expect(asText.body.rows).toEqual(asNumber.body.rows)
      const filtered = await events({ ...eventBase, filter: priceAtLeast([100]) })
      const filteredText = await events({ ...eventBase, filter: priceAtLeast(['100']) })
      expect(filteredText.status).toBe(200)
      // u1 (120) on 01-01, u3 (150) on 01-02
      expect(filteredText.body.rows[0].values).toEqual([[1, 1]])
      expect(filteredText.body.rows).toEqual(filtered.body.rows)
    })

    it('ignores unknown fields named like built-in object keys (toString, valueOf) as any other', async () => {
      const res = await s.call('POST', '/uba/manage/enterprise/accounts', { headers: x(), body: { email: 'builtin@example.com', toString: 1, valueOf: 'x' } })
      expect(res.status).toBe(200)
    })

    it('adds a member with "role": "6"', async () => {
      await s.call('POST', '/uba/manage/enterprise/accounts', { headers: x(), body: { email: 'member@example.com' } })
      const res = await s.call('POST', '/uba/manage/project/users', { headers: p, body: { users: [{ email: 'member@example.com', role: '6' }] } })
      expect(res.status).toBe(200)
      const members = await s.call('GET', '/uba/manage/project/users', { headers: p })
      expect(members.body.find((m: any) => m.email === 'member@example.com').role).toBe(6)
    })

    it('finds a user by "distinctId": "123" (a decimal string)', async () => {
      const [{ distinct_id: id }] = await host.rows(p, "SELECT distinct_id FROM user_ids WHERE xwho = 'u2'")
      const res = await post('/uba/api/users/personal', { distinctId: String(id) })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ xwho: 'u2', age: 30 })
    })

    it('creates a campaign with "utmType": 1, kept as the text "1"', async () => {
      const res = await post('/svc/uba/api/operations/utm', { pageUrl: 'https://shop.example/landing', utmCampaign: 'spring', utmMedium: 'cpc', utmSource: 'search', utmType: 1, channel: 'ads' })
      expect(res.status).toBe(200)
      // the route schema's unknown field, dropped before validation and logged
      expect(logLines.some((l) => l.includes('unknown request fields ignored') && l.includes('"channel"'))).toBe(true)
      const campaign = await s.call('GET', `/svc/uba/api/operations/utm/${res.body.campaignId}`, { headers: p })
      expect(campaign.body.utmType).toBe('1')
    })

    it('reads "filter": {} as no filter', async () => {
      const plain = await events(eventBase)
      const empty = await events({ ...eventBase, filter: {} })
      expect(empty.status).toBe(200)
      expect(empty.body.rows).toEqual(plain.body.rows)
      expect((await funnel({ ...funnelBase, filter: {} })).body.rows).toEqual((await funnel(funnelBase)).body.rows)
    })

    it('takes upper-case enum words in any letter case', async () => {
      const upper = await events({ ...eventBase, filter: { ...priceAtLeast([100]), relation: 'AND' } })
      const lower = await events({
        ...eventBase,
        unit: 'day',
        measures: [{ expression: 'event.view', aggregator: 'trigger_user_count' }],
        filter: { conditions: [{ expression: 'event.view.price', function: 'gte', params: [100] }], relation: 'and' },
      })
      expect(lower.status).toBe(200)
      expect(lower.body.rows).toEqual(upper.body.rows)
      expect((await funnel({ ...funnelBase, convertTimeUnit: 'Day' })).body.rows).toEqual((await funnel(funnelBase)).body.rows)
    })

    it('reads cohort rules the same way: case, decimal strings, unknown keys', async () => {
      // viewed at least once on 01-01..02 and older than 25: u2 (30) and u3 (40)
      const lenient = content([
        group([{ ...eventRule('event.view', 'total_count', 'gte', ['1'], { abs: ['2024-01-01', '2024-01-02'] }), weight: 2 }], 'and'),
        group([userRule('user.age', 'gt', ['25'])]),
      ], ['and'])
      expect(await membersFor(s, p, lenient)).toEqual(['u2', 'u3'])
    })

    it.each([
      ['a date that is not a date', () => events({ ...eventBase, fromDate: 'soon' }), ['fromDate']],
      ['an unknown aggregator', () => events({ ...eventBase, measures: [{ expression: 'event.view', aggregator: 'MEDIAN' }] }), ['measures[0].aggregator']],
      ['a word for a number', () => funnel({ ...funnelBase, convertTime: 'one' }), ['convertTime']],
      ['a word for a number param', () => events({ ...eventBase, filter: priceAtLeast(['lots']) }), ['filter.conditions[0].params']],
      ['a word for a role', () => s.call('POST', '/uba/manage/project/users', { headers: p, body: { users: [{ email: 'member@example.com', role: 'admin' }] } }), ['users[0].role']],
      ['a word for a distinctId', () => post('/uba/api/users/personal', { distinctId: 'abc' }), ['distinctId']],
    ])('still answers 400 naming the parameter for %s', async (_what, send, data) => {
      const res = await send()
      expect(res.status).toBe(400)
      expect(res.body.data).toEqual(data)
    })
  })
})
