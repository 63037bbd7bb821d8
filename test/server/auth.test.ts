import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually, startTestServer, type TestServer } from '../helpers/server'

let s: TestServer
let other: { appKey: string; token: string }

beforeAll(async () => {
  s = await startTestServer()
  const x = { xtoken: s.creds.xtoken }
  await s.call('POST', '/uba/manage/enterprise/projects', { headers: x, body: { appKey: 'second', name: 'Second' } })
  await eventually(async () => (await s.call('GET', '/uba/manage/enterprise/projects/second', { headers: x })).body.finish)
  const list = await s.call('GET', '/uba/manage/enterprise/projects', { headers: x })
  other = { appKey: 'second', token: list.body.find((p: any) => p.appKey === 'second').normalToken }
})
afterAll(() => s.stop())

const unauthorized = (res: { status: number; body: any }) => {
  expect(res.status).toBe(401)
  expect(res.body.code).toBe(401)
  expect(typeof res.body.msg).toBe('string')
  expect(res.body.data).toBeNull()
}

describe('project authentication (part 5)', () => {
  it('opens the project with its own appKey and token', async () => {
    const res = await s.call('GET', '/uba/api/project', { headers: s.project })
    expect(res.status).toBe(200)
    expect(res.body.appKey).toBe(s.project.appKey)
  })

  it.each([
    ['no headers', {}],
    ['appKey only', { appKey: 'APPKEY' }],
    ['token only', { token: 'TOKEN' }],
    ['a wrong token', { appKey: 'APPKEY', token: 'f'.repeat(40) }],
    ['an unknown appKey', { appKey: 'nosuchproject', token: 'TOKEN' }],
    ['the xtoken instead', { xtoken: 'XTOKEN' }],
  ])('answers 401 to %s', async (_what, template: Record<string, string>) => {
    const headers = Object.fromEntries(
      Object.entries(template).map(([k, v]) => [k, v.replace('APPKEY', s.project.appKey).replace('XTOKEN', s.creds.xtoken).replace(/^TOKEN$/, s.project.token)]),
    )
    unauthorized(await s.call('GET', '/uba/api/project', { headers }))
    unauthorized(await s.call('GET', '/uba/manage/project/roles', { headers }))
  })

  it('does not let one project key reach another project (cross-project key)', async () => {
    unauthorized(await s.call('GET', '/uba/api/project', { headers: { appKey: other.appKey, token: s.project.token } }))
    unauthorized(await s.call('GET', '/uba/api/project', { headers: { appKey: s.project.appKey, token: other.token } }))
    const own = await s.call('GET', '/uba/api/project', { headers: other })
    expect(own.body.appKey).toBe('second')
  })

  it('refuses the key of a project that is no longer normal', async () => {
    s.app.ctx.meta.prepare("UPDATE projects SET status = 3 WHERE app_key = 'second'").run()
    try {
      unauthorized(await s.call('GET', '/uba/api/project', { headers: other }))
    } finally {
      s.app.ctx.meta.prepare("UPDATE projects SET status = 1 WHERE app_key = 'second'").run()
    }
  })
})

describe('platform authentication (part 5)', () => {
  it.each([
    ['no xtoken', {}],
    ['a wrong xtoken', { xtoken: 'nope' }],
    ['project credentials', { appKey: 'APPKEY', token: 'TOKEN' }],
  ])('answers 401 to %s on every platform endpoint', async (_what, template: Record<string, string>) => {
    const headers = Object.fromEntries(Object.entries(template).map(([k, v]) => [k, v === 'APPKEY' ? s.project.appKey : v === 'TOKEN' ? s.project.token : v]))
    unauthorized(await s.call('GET', '/uba/manage/enterprise/projects', { headers }))
    unauthorized(await s.call('GET', `/uba/manage/enterprise/projects/${s.project.appKey}`, { headers }))
    unauthorized(await s.call('POST', '/uba/manage/enterprise/projects', { headers, body: { name: 'Sneaky' } }))
    unauthorized(await s.call('POST', `/uba/manage/enterprise/projects/${s.project.appKey}/stream`, { headers, body: { streamSwitch: true } }))
    unauthorized(await s.call('POST', '/uba/manage/enterprise/accounts', { headers, body: { email: 'sneaky@example.com' } }))
    unauthorized(await s.call('POST', '/uba/manage/enterprise/accounts/activation?email=x@example.com', { headers, body: { activation: false } }))
    expect(s.app.ctx.meta.prepare("SELECT count(*) FROM projects WHERE cname = 'Sneaky'").pluck().get()).toBe(0)
  })

  it('does not accept the xtoken on project endpoints', async () => {
    unauthorized(await s.call('GET', '/uba/manage/project/roles', { headers: { xtoken: s.creds.xtoken } }))
  })
})

describe('open endpoints', () => {
  it.each(['/health', '/openapi.json', '/docs', '/docs/static/swagger-ui.css'])('serves %s without credentials', async (path) => {
    const res = await fetch(s.url + path)
    expect(res.status).toBe(200)
    await res.arrayBuffer()
  })
})
