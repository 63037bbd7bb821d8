import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { connect } from 'node:net'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sdkRecord, switchStreamAndWait } from '../helpers/collector'
import { newProject, warehouseRows } from '../helpers/ingest'
import { rawRequest } from '../helpers/raw'
import { startTestServer, type TestServer } from '../helpers/server'

/** The second listener (serve --collector-listen): /up alone. Tests bind it to loopback only. */

let s: TestServer
let port: number

beforeAll(async () => {
  s = await startTestServer({ collectorListen: { host: '127.0.0.1', port: 0 } })
  await newProject(s, 'phone', 'UTC')
  await switchStreamAndWait(s, 'phone', true)
  port = Number(new URL(s.app.collectorUrl!).port)
})
afterAll(() => s.stop())

// a phone on the LAN names the machine by its LAN address: the Host is not a loopback one
const lanHost = () => `192.168.1.23:${port}`

describe('the collector listener', () => {
  it('is announced as its own /up address, apart from the API', () => {
    expect(s.app.collectorUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/up$/)
    expect(port).not.toBe(s.app.port)
  })

  it('takes uploads addressed to any host, by POST and by image GET, with CORS', async () => {
    const post = await rawRequest(port, 'POST', '/up?appid=phone', { host: lanHost(), 'content-type': 'application/json', origin: 'http://192.168.1.40:3000' }, JSON.stringify([sdkRecord(undefined, 'p1', 'phone_open')]))
    expect(post.status).toBe(200)
    expect(post.body).toMatchObject({ code: 200, received: 1, stored: 1 })
    expect(post.headers['access-control-allow-origin']).toBe('http://192.168.1.40:3000')
    expect(post.headers['cross-origin-resource-policy']).toBe('cross-origin')
    const data = Buffer.from(JSON.stringify([sdkRecord('phone', 'p2', 'phone_open')])).toString('base64')
    const image = await rawRequest(port, 'GET', `/up?appid=phone&data=${encodeURIComponent(data)}&send_type=q1w`, { host: lanHost(), accept: 'image/*' })
    expect(image.status).toBe(200)
    expect(image.headers['content-type']).toBe('image/gif')
    const preflight = await rawRequest(port, 'OPTIONS', '/up?appid=phone', { host: lanHost(), origin: 'http://192.168.1.40:3000', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' })
    expect(preflight.status).toBe(204)
    expect(preflight.headers['access-control-allow-methods']).toBe('GET, POST')
    expect(preflight.headers['access-control-allow-headers']).toBe('Content-Type, Content-Encoding')
    expect((await warehouseRows(s, 'phone', "SELECT xwho FROM event_vd WHERE xwhat = 'phone_open' ORDER BY xwho")).map((r) => r.xwho)).toEqual(['p1', 'p2'])
  })

  it.each([
    ['GET', '/health'],
    ['GET', '/uba/manage/enterprise/projects'],
    ['GET', '/openapi.json'],
    ['GET', '/docs'],
    ['GET', '/'],
    ['POST', '/uba/api/import/jobs'],
  ])('serves nothing else: %s %s is a 404 with {code, msg, data}', async (method, path) => {
    const res = await rawRequest(port, method, path, { host: lanHost(), xtoken: s.creds.xtoken, 'content-type': 'application/json' }, method === 'POST' ? '{}' : undefined)
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ code: 404, msg: `no endpoint ${path}`, data: null })
  })

  it('refuses a body type no SDK sends with 415', async () => {
    const res = await rawRequest(port, 'POST', '/up', { host: lanHost(), 'content-type': 'image/png' }, 'xx')
    expect(res.status).toBe(415)
    expect(res.body.data).toEqual(['Content-Type'])
  })

  it('leaves the API on loopback refusing that same LAN host', async () => {
    const res = await rawRequest(s.app.port, 'POST', '/up', { host: `192.168.1.23:${s.app.port}`, 'content-type': 'application/json' }, '[]')
    expect(res.status).toBe(400)
    expect(res.body.data).toEqual(['Host'])
  })
})

describe('the collector listener switch (platform API, for Settings)', () => {
  const x = () => ({ xtoken: s.creds.xtoken })
  /** Nothing listens on the port any more: a new connection is refused. */
  const refused = (p: number) =>
    new Promise<boolean>((resolvePromise) => {
      const socket = connect(p, '127.0.0.1')
      socket.on('connect', () => {
        socket.destroy()
        resolvePromise(false)
      })
      socket.on('error', (err: NodeJS.ErrnoException) => resolvePromise(err.code === 'ECONNREFUSED'))
    })

  it('shows the listener, moves it to another address, and switches it off', async () => {
    const shown = await s.call('GET', '/uba/manage/enterprise/collector', { headers: x() })
    expect(shown.body).toEqual({ listening: true, host: '127.0.0.1', port, urls: [s.app.collectorUrl] })
    const moved = await s.call('POST', '/uba/manage/enterprise/collector', { headers: x(), body: { listen: true, host: '127.0.0.1', port: 0 } })
    expect(moved.status).toBe(200)
    const next = moved.body.port as number
    expect(moved.body).toEqual({ listening: true, host: '127.0.0.1', port: next, urls: [`http://127.0.0.1:${next}/up`] })
    expect(await refused(port)).toBe(true)
    const data = Buffer.from(JSON.stringify([sdkRecord('phone', 'm1', 'moved_open')])).toString('base64')
    expect((await rawRequest(next, 'GET', `/up?data=${encodeURIComponent(data)}`, { host: 'anything', accept: 'application/json' })).body).toMatchObject({ code: 200, stored: 1 })
    const off = await s.call('POST', '/uba/manage/enterprise/collector', { headers: x(), body: { listen: false } })
    expect(off.body).toEqual({ listening: false, host: null, port: null, urls: [] })
    expect(await refused(next)).toBe(true)
    expect(s.app.collectorUrl).toBeUndefined()
  })

  it('answers 400 naming port when the port is taken, and stays off', async () => {
    const taken = await s.call('POST', '/uba/manage/enterprise/collector', { headers: x(), body: { listen: true, host: '127.0.0.1', port: s.app.port } })
    expect(taken.status).toBe(400)
    expect(taken.body).toEqual({ code: 400, msg: `port ${s.app.port} is already in use on 127.0.0.1`, data: ['port'] })
    expect((await s.call('GET', '/uba/manage/enterprise/collector', { headers: x() })).body.listening).toBe(false)
  })

  it('comes back on the same address at the next start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'uba-collector-restart-'))
    const first = await startTestServer({ dataDir })
    const on = await first.call('POST', '/uba/manage/enterprise/collector', { headers: { xtoken: first.creds.xtoken }, body: { listen: true, host: '127.0.0.1', port: 0 } })
    await first.app.close()
    const again = await startTestServer({ dataDir })
    try {
      expect(again.app.collectorListener.state()).toMatchObject({ listening: true, host: '127.0.0.1', port: on.body.port })
    } finally {
      await again.stop()
    }
  })
})

describe('uba-desk serve --collector-listen', () => {
  const BIN = resolve(import.meta.dirname, '..', '..', 'bin', 'uba-desk.mjs')

  it('starts the listener, prints its address and names it in server.json', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'uba-cli-collector-'))
    const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', dataDir, '--port', '0', '--collector-listen', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] })
    try {
      let out = ''
      const collectorUrl = await new Promise<string>((resolvePromise, reject) => {
        child.stdout!.on('data', (d: Buffer) => {
          out += d.toString()
          const m = out.match(/SDK upload address: (http:\/\/\S+)/)
          if (m) resolvePromise(m[1])
        })
        child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
        child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)))
      })
      expect(out).toContain(`collector (/up only) listening on ${collectorUrl}`)
      expect(JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8')).collectorUrl).toBe(collectorUrl)
      const res = await fetch(collectorUrl.replace('/up', '/health'))
      expect(res.status).toBe(404)
    } finally {
      child.kill('SIGTERM')
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.on('exit', r)))
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('refuses an address that is not HOST:PORT', () => {
    const run = spawnSync(process.execPath, [BIN, 'serve', '--data-dir', tmpdir(), '--collector-listen', '8106'], { encoding: 'utf8', timeout: 60_000 })
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('--collector-listen must be HOST:PORT (e.g. 0.0.0.0:8106 or [::]:8106), not 8106')
  })
})
