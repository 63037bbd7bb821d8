import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rawRequest, rawSocket } from '../helpers/raw'
import { startTestServer, type TestServer } from '../helpers/server'

let s: TestServer
let x: Record<string, string>
let host: string

beforeAll(async () => {
  s = await startTestServer()
  x = { xtoken: s.creds.xtoken }
  host = `127.0.0.1:${s.app.port}`
})
afterAll(() => s.stop())

const projectCount = () => s.app.ctx.meta.prepare('SELECT count(*) FROM projects').pluck().get()

describe('error answers (part 7)', () => {
  it('answers 404 {code, msg, data} for an unknown endpoint, with or without credentials', async () => {
    for (const headers of [{}, x, s.project]) {
      const res = await s.call('GET', '/uba/api/nothing-here', { headers })
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ code: 404, msg: 'no endpoint /uba/api/nothing-here', data: null })
    }
  })

  it.each([
    ['PATCH', '/uba/manage/enterprise/projects'],
    ['DELETE', '/uba/manage/enterprise/projects'],
    ['PUT', '/uba/manage/project/roles'],
    ['GET', '/uba/manage/enterprise/accounts'],
  ])('answers 400 to unsupported method %s on %s', async (method, path) => {
    const res = await s.call(method, path, { headers: x })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg: `method ${method} is not supported on ${path}`, data: ['method'] })
  })

  it.each([
    ['text/plain', '{"name":"Plain"}'],
    ['application/x-www-form-urlencoded', 'name=Form'],
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nMulti\r\n--x--'],
    [undefined, '{"name":"NoType"}'],
  ])('answers 415 to a write with Content-Type %s, and writes nothing', async (type, body) => {
    const before = projectCount()
    const headers: Record<string, string> = { host, ...x }
    if (type) headers['content-type'] = type
    const res = await rawRequest(s.app.port, 'POST', '/uba/manage/enterprise/projects', headers, body)
    expect(res.status).toBe(415)
    expect(res.body).toEqual({ code: 415, msg: 'this endpoint accepts application/json bodies only', data: ['Content-Type'] })
    expect(projectCount()).toBe(before)
  })

  it.each(['{name: "Loose"}', '{"name":"Cut', 'null x', '\u0000'])('answers 415 to a body that is not JSON: %j', async (body) => {
    const res = await s.call('POST', '/uba/manage/enterprise/projects', { headers: { ...x, 'content-type': 'application/json' }, rawBody: body })
    expect(res.status).toBe(415)
    expect(res.body).toEqual({ code: 415, msg: 'the request body is not valid JSON', data: ['body'] })
  })

  it.each([
    ['no body', undefined],
    ['an array', '[]'],
    ['a string', '"Default"'],
  ])('answers 400 naming body to %s where an object is required', async (_what, body) => {
    const res = await s.call('POST', '/uba/manage/enterprise/projects', { headers: { ...x, 'content-type': 'application/json' }, rawBody: body })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg: 'the request body must be a JSON object', data: ['body'] })
  })

  it('answers 400 to a body over the size limit', async () => {
    const res = await s.call('POST', '/uba/manage/enterprise/projects', { headers: x, body: { name: 'Big', pad: 'x'.repeat(11 * 1024 * 1024) } })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg: 'the request body is too large', data: ['body'] })
  })

  it('lists every offending parameter of one request', async () => {
    const res = await s.call('POST', '/uba/manage/enterprise/accounts', { headers: x, body: { email: 'bad', phone: 'bad', password: 1 } })
    expect(res.status).toBe(400)
    expect(res.body.data.sort()).toEqual(['email', 'password', 'phone'])
  })

  it('drops __proto__ keys instead of letting them reach the domain', async () => {
    const res = await s.call('POST', '/uba/manage/enterprise/projects', {
      headers: { ...x, 'content-type': 'application/json' },
      rawBody: '{"name":"Proto","appKey":"proto1","__proto__":{"admin":true}}',
    })
    expect(res.status).toBe(200)
    expect(({} as any).admin).toBeUndefined()
    await s.app.ctx.background.idle()
  })

  it('answers a request the HTTP parser cannot read with a 400 JSON body', async () => {
    const text = await rawSocket(s.app.port, 'GARBAGE / HTTP/1.1\r\nHost: x\r\n\r\n')
    expect(text).toMatch(/^HTTP\/1.1 400/)
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({ code: 400, msg: 'malformed HTTP request', data: null })
  })

  it('carries a request id on every answer', async () => {
    const res = await fetch(`${s.url}/health`)
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })
})

describe('503 when the query engine is unavailable', () => {
  it('answers 503 without internals when a project database cannot be opened', async () => {
    const broken = await startTestServer()
    const creds = broken.creds.projects[0]
    const dataDir = broken.dataDir
    await broken.app.close()
    writeFileSync(join(dataDir, 'projects', creds.appKey, 'warehouse.duckdb'), 'this is not a database file'.repeat(1000))
    const again = await startTestServer({ dataDir })
    try {
      const res = await again.call('GET', '/uba/api/project', { headers: { appKey: creds.appKey, token: creds.token } })
      expect(res.status).toBe(503)
      expect(res.body).toEqual({ code: 503, msg: 'the query engine is unavailable', data: null })
    } finally {
      await again.stop()
    }
  })
})
