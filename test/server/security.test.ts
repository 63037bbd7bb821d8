import { Writable } from 'node:stream'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rawRequest } from '../helpers/raw'
import { startTestServer, type TestServer } from '../helpers/server'

let s: TestServer
const logLines: string[] = []

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      logLines.push(chunk.toString())
      done()
    },
  })
  s = await startTestServer({ logger: pino({ level: 'info' }, sink), extraOrigins: ['http://localhost:5173'] })
})
afterAll(() => s.stop())

const get = (headers: Record<string, string>, path = '/uba/manage/enterprise/projects') =>
  rawRequest(s.app.port, 'GET', path, { xtoken: s.creds.xtoken, ...headers })

describe('the localhost door', () => {
  it('listens on loopback only and refuses to be started elsewhere', async () => {
    const address = s.app.server.server.address()
    expect(typeof address === 'object' && address?.address).toBe('127.0.0.1')
    const { startApp } = await import('../../src-main/app')
    await expect(startApp({ dataDir: s.dataDir, host: '0.0.0.0', port: 0 })).rejects.toThrow(/only loopback/)
  })

  it.each(['127.0.0.1', 'localhost', '[::1]'])('accepts Host %s with the server port', async (name) => {
    const res = await get({ host: `${name}:${s.app.port}` })
    expect(res.status).toBe(200)
  })

  it.each([
    ['a foreign name (DNS rebinding)', 'attacker.example:PORT'],
    ['a loopback name on another port', '127.0.0.1:1'],
    ['no port', 'localhost'],
    ['a private address', '192.168.1.20:PORT'],
    ['nothing', ''],
  ])('refuses Host with %s', async (_what, value) => {
    const res = await get({ host: value.replace('PORT', String(s.app.port)) }, '/health')
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg: 'the Host header must name this loopback server', data: ['Host'] })
  })

  it('accepts browser requests from its own origin and a configured dev origin, no others', async () => {
    const host = `127.0.0.1:${s.app.port}`
    expect((await get({ host, origin: `http://${host}` })).status).toBe(200)
    expect((await get({ host, origin: 'http://localhost:5173' })).status).toBe(200)
    for (const origin of ['http://evil.example', 'null', `http://127.0.0.1:${s.app.port + 1}`, `https://${host}`]) {
      const res = await get({ host, origin })
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ code: 400, msg: 'requests from other web origins are not accepted', data: ['Origin'] })
    }
  })

  it('refuses requests a browser marks as cross-site', async () => {
    const res = await get({ host: `127.0.0.1:${s.app.port}`, 'sec-fetch-site': 'cross-site' })
    expect(res.status).toBe(400)
    expect(res.body.data).toEqual(['Origin'])
  })

  it('grants no CORS: no Access-Control-Allow-Origin, and preflights find no route', async () => {
    const host = `127.0.0.1:${s.app.port}`
    const res = await get({ host, origin: `http://${host}` })
    expect(res.headers['access-control-allow-origin']).toBeUndefined()
    const preflight = await rawRequest(s.app.port, 'OPTIONS', '/uba/manage/enterprise/projects', {
      host,
      'access-control-request-method': 'POST',
    })
    expect(preflight.status).toBe(400)
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('grants CORS to a configured dev origin only, preflight included', async () => {
    const host = `127.0.0.1:${s.app.port}`
    const preflight = await rawRequest(s.app.port, 'OPTIONS', '/uba/manage/enterprise/projects', {
      host,
      origin: 'http://localhost:5173',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, xtoken',
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers['access-control-allow-origin']).toBe('http://localhost:5173')
    expect(preflight.headers['access-control-allow-headers']).toContain('xtoken')
    const res = await get({ host, origin: 'http://localhost:5173' })
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:5173')
  })

  it('never writes tokens to the log, and logs requests with their id', async () => {
    await s.call('GET', '/uba/api/project', { headers: s.project })
    await s.call('GET', '/uba/manage/enterprise/projects', { headers: { xtoken: s.creds.xtoken } })
    await s.call('GET', '/uba/manage/enterprise/projects', { headers: { xtoken: 'wrong-' + s.creds.xtoken } })
    await s.call('POST', '/uba/manage/enterprise/projects', { headers: { xtoken: s.creds.xtoken }, body: { name: 'bad name' } })
    const log = logLines.join('')
    expect(log).toContain('"reqId"')
    expect(log).toContain('/uba/api/project')
    expect(log).not.toContain(s.project.token)
    expect(log).not.toContain(s.creds.xtoken)
  })

  it('sends hardening headers', async () => {
    const res = await fetch(`${s.url}/health`)
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('referrer-policy')).toBe('no-referrer')
  })
})
