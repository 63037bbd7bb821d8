import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'
import { eventually, type TestServer } from '../helpers/server'

const at = (day: string, hour = 10) => Date.parse(`2024-03-${day}T${String(hour).padStart(2, '0')}:00:00Z`)
const record = (xwho: string, xwhat: string, xwhen: number) => JSON.stringify({ xwho, xwhat, xwhen, xcontext: {} })

describe.each(ENGINES)('saved reports in the project, on %s', (engine) => {
  const host = useEngine(engine)
  let s: TestServer
  let p: Project
  let other: Project

  beforeAll(async () => {
    s = host.server
    p = await host.project('rp', 'UTC')
    other = await host.project('rq', 'UTC')
    const x = { xtoken: s.creds.xtoken }
    for (const account of [{ email: 'ann@example.com', name: 'Ann Analyst' }, { email: 'bob@example.com', userName: 'bob' }]) {
      const res = await s.call('POST', '/uba/manage/enterprise/accounts', { headers: x, body: account })
      if (res.status !== 200) throw new Error(JSON.stringify(res.body))
    }
    // a: view then buy; b: view only; c: buy only
    const lines = [record('a', 'view', at('01')), record('a', 'buy', at('01', 11)), record('b', 'view', at('02')), record('c', 'buy', at('02'))]
    await importAndWait(s, p, { path: fixture('rp.jsonl', lines.join('\n')) })
  })

  const funnel = (crowd = '$ALL') => ({
    fromDate: '2024-03-01',
    toDate: '2024-03-03',
    crowds: [crowd],
    steps: [{ expression: 'event.view' }, { expression: 'event.buy' }],
    convertTime: 1,
    convertTimeUnit: 'DAY',
  })
  const post = (body: unknown, query = '', headers = p) => s.call('POST', `/uba/api/reports${query}`, { headers, body })
  const put = (id: number, body: unknown, query = '') => s.call('PUT', `/uba/api/reports/${id}${query}`, { headers: p, body })
  const get = (id: number | string, headers = p) => s.call('GET', `/uba/api/reports/${id}`, { headers })
  const remove = (id: number, query = '') => s.call('DELETE', `/uba/api/reports/${id}${query}`, { headers: p })

  it('saves, reads, lists, changes and deletes a report, keeping its request exactly', async () => {
    const options = { chart: 'bar', builder: { steps: [{ key: 'k1', eventId: 'view' }], nested: [1, null, 'x'] } }
    const created = await post({ name: '  Checkout funnel  ', kind: 'funnels', request: funnel(), options })
    expect(created.status).toBe(200)
    const report = created.body
    expect(report).toMatchObject({ name: 'Checkout funnel', kind: 'funnels', request: funnel(), options, createdUser: 'API', updatedUser: 'API' })
    expect(report.createdTime).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)

    expect((await get(report.id)).body).toEqual(report)
    const listed = (await s.call('GET', '/uba/api/reports', { headers: p })).body
    expect(listed.map((r: { id: number }) => r.id)).toContain(report.id)

    const changed = await put(report.id, { name: 'Checkout funnel v2', request: funnel('$ALL'), options: { chart: 'line' } })
    expect(changed.status).toBe(200)
    expect(changed.body).toMatchObject({ id: report.id, name: 'Checkout funnel v2', kind: 'funnels', options: { chart: 'line' } })
    // only the fields sent change
    const renamed = await put(report.id, { name: 'Checkout funnel v3' })
    expect(renamed.body.options).toEqual({ chart: 'line' })
    expect(renamed.body.request).toEqual(funnel())

    expect((await remove(report.id)).body).toEqual({ success: 0 })
    const gone = await get(report.id)
    expect(gone.status).toBe(400)
    expect(gone.body.data).toEqual(['id'])
  })

  it('runs the saved request as the analysis answers it', async () => {
    const report = (await post({ name: 'Run me', kind: 'funnels', request: funnel() })).body
    const ran = await s.call('POST', `/uba/api/${report.kind}/analyze`, { headers: p, body: (await get(report.id)).body.request })
    expect(ran.status).toBe(200)
    // view: a, b; then buy within a day: a
    expect(ran.body.rows[0].stepsDetail.map((d: { convertedUser: number[] }) => d.convertedUser[0])).toEqual([2, 1])
  })

  it('keeps names unique in the project: 501/50101 on create and rename, free in another project', async () => {
    const first = (await post({ name: 'Unique', kind: 'events', request: { measures: [] } })).body
    const again = await post({ name: 'Unique', kind: 'funnels', request: funnel() })
    expect(again.status).toBe(501)
    expect(again.body.code).toBe(50101)
    const second = (await post({ name: 'Unique 2', kind: 'events', request: {} })).body
    const clash = await put(second.id, { name: 'Unique' })
    expect(clash.status).toBe(501)
    expect(clash.body.code).toBe(50101)
    // renaming a report to its own name is no clash
    expect((await put(first.id, { name: 'Unique' })).status).toBe(200)
    expect((await post({ name: 'Unique', kind: 'events', request: {} }, '', other)).status).toBe(200)
  })

  it('never turns a report into another analysis: a PUT of another kind is a 400 naming kind, the report unchanged', async () => {
    const report = (await post({ name: 'Funnel kept', kind: 'funnels', request: funnel(), options: { a: 1 } })).body
    const refused = await put(report.id, { kind: 'userAttributes', request: { crowds: ['$ALL'], measure: { aggregator: 'USER_COUNT' }, byFields: [] }, options: { b: 2 } })
    expect(refused.status).toBe(400)
    expect(refused.body.data).toEqual(['kind'])
    expect((await get(report.id)).body).toEqual(report)
    expect((await put(report.id, { kind: 'funnels', options: { a: 2 } })).status).toBe(200)
  })

  it('searches by name with q (any case) and by kind', async () => {
    await post({ name: 'Weekly Retention of buyers', kind: 'retentions', request: {} })
    await post({ name: 'retention by city', kind: 'retentions', request: {} })
    const found = (await s.call('GET', '/uba/api/reports?q=RETENTION', { headers: p })).body.map((r: { name: string }) => r.name)
    expect(found.sort()).toEqual(['Weekly Retention of buyers', 'retention by city'].sort())
    const kinds = (await s.call('GET', '/uba/api/reports?kind=retentions&q=city', { headers: p })).body.map((r: { name: string }) => r.name)
    expect(kinds).toEqual(['retention by city'])
    expect((await s.call('GET', '/uba/api/reports?q=no such report', { headers: p })).body).toEqual([])
  })

  it('records who created and changed a report; only the creator changes or deletes it', async () => {
    const ann = (await post({ name: 'Ann report', kind: 'events', request: {} }, '?loginUser=ann@example.com')).body
    expect(ann).toMatchObject({ createdUser: 'Ann Analyst', updatedUser: 'Ann Analyst' })
    const byBob = await put(ann.id, { name: 'Bob took it' }, '?loginUser=bob@example.com')
    expect(byBob.status).toBe(400)
    expect(byBob.body.data).toEqual(['loginUser'])
    const byApi = await remove(ann.id)
    expect(byApi.status).toBe(400)
    expect(byApi.body.data).toEqual(['loginUser'])
    expect((await get(ann.id)).body.name).toBe('Ann report')
    expect((await put(ann.id, { options: { x: 1 } }, '?loginUser=ann@example.com')).body.updatedUser).toBe('Ann Analyst')

    const api = (await post({ name: 'API report', kind: 'events', request: {} })).body
    expect((await remove(api.id, '?loginUser=ann@example.com')).body.data).toEqual(['loginUser'])
    expect((await remove(api.id)).body).toEqual({ success: 0 })
    expect((await remove(ann.id, '?loginUser=ann@example.com')).body).toEqual({ success: 0 })

    const unknown = await post({ name: 'Nobody', kind: 'events', request: {} }, '?loginUser=nobody@example.com')
    expect(unknown.status).toBe(400)
    expect(unknown.body.data).toEqual(['loginUser'])
  })

  it('refuses bad input with a 400 naming the parameter, and saves nothing', async () => {
    const before = (await s.call('GET', '/uba/api/reports', { headers: p })).body.length
    const cases: [unknown, string][] = [
      [{ kind: 'events', request: {} }, 'name'],
      [{ name: '   ', kind: 'events', request: {} }, 'name'],
      [{ name: 'x'.repeat(101), kind: 'events', request: {} }, 'name'],
      [{ name: 'Bad kind', kind: 'paths', request: {} }, 'kind'],
      [{ name: 'No request', kind: 'events' }, 'request'],
      [{ name: 'List request', kind: 'events', request: [1] }, 'request'],
      [{ name: 'Text options', kind: 'events', request: {}, options: 'bar' }, 'options'],
      [{ name: 'Huge', kind: 'events', request: { pad: 'x'.repeat(300 * 1024) } }, 'request'],
    ]
    for (const [body, param] of cases) {
      const res = await post(body)
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(res.body.data).toEqual([param])
      expect(typeof res.body.msg).toBe('string')
    }
    expect((await get('abc')).body.data).toEqual(['id'])
    expect((await get(999999)).body.data).toEqual(['id'])
    expect((await put(999999, { name: 'x' })).body.data).toEqual(['id'])
    expect((await s.call('GET', '/uba/api/reports?kind=paths', { headers: p })).body.data).toEqual(['kind'])
    const notJson = await s.call('POST', '/uba/api/reports', { headers: { ...p, 'content-type': 'application/json' }, rawBody: '{name' })
    expect(notJson.status).toBe(415)
    expect((await s.call('GET', '/uba/api/reports', { headers: p })).body.length).toBe(before)
  })

  it('ignores a field it does not know, as every request of the API does (the platform server tolerates them)', async () => {
    const res = await post({ name: 'Extra field', kind: 'events', request: {}, owner: 'me' })
    expect(res.status).toBe(200)
    expect(res.body.owner).toBeUndefined()
    expect((await get(res.body.id)).body.name).toBe('Extra field')
  })

  it('reaches only its own project', async () => {
    const mine = (await post({ name: 'Private', kind: 'events', request: {} })).body
    const seen = await get(mine.id, other)
    expect(seen.status).toBe(400)
    expect(seen.body.data).toEqual(['id'])
    expect((await s.call('GET', '/uba/api/reports', { headers: { appKey: p.appKey, token: 'wrong' } })).status).toBe(401)
  })

  it('still opens a report whose cohort was deleted or whose event is gone; running it gives the analysis 400', async () => {
    const cohort = await s.call('POST', '/uba/api/cohort', {
      headers: p,
      body: { name: 'Viewers', dynamic: 0, content: { ruleGroup: [{ relation: 'AND', rules: [{ type: 'user', expression: 'user.xwho', function: 'EQ', params: ['a'] }] }], relations: [] } },
    })
    expect(cohort.status).toBe(200)
    await eventually(async () => (await s.call('GET', `/uba/api/cohort/${cohort.body.id}`, { headers: p })).body.status !== 'calculating')
    const withCohort = (await post({ name: 'Funnel of viewers', kind: 'funnels', request: funnel(cohort.body.code) })).body
    expect((await s.call('DELETE', `/uba/api/cohort/${cohort.body.id}`, { headers: p })).status).toBe(200)

    const opened = await get(withCohort.id)
    expect(opened.status).toBe(200)
    expect(opened.body.request.crowds).toEqual([cohort.body.code])
    const ran = await s.call('POST', '/uba/api/funnels/analyze', { headers: p, body: opened.body.request })
    expect(ran.status).toBe(400)
    expect(ran.body.data).toEqual(['crowds[0]'])

    // the event exists in another project only: as after it was removed from this one
    const request = { ...funnel(), steps: [{ expression: 'event.view' }, { expression: 'event.refund' }] }
    const withEvent = (await post({ name: 'Funnel to refund', kind: 'funnels', request })).body
    expect((await get(withEvent.id)).body.request).toEqual(request)
    const refused = await s.call('POST', '/uba/api/funnels/analyze', { headers: p, body: request })
    expect(refused.status).toBe(400)
    expect(refused.body.data).toEqual(['steps[1].expression'])
  })

  it('documents the report routes in /openapi.json', async () => {
    const doc = (await s.call('GET', '/openapi.json')).body
    expect(Object.keys(doc.paths['/uba/api/reports']).sort()).toEqual(['get', 'post'])
    expect(Object.keys(doc.paths['/uba/api/reports/{id}']).sort()).toEqual(['delete', 'get', 'put'])
    expect(doc.paths['/uba/api/reports'].post.responses['501']).toBeDefined()
  })
})
