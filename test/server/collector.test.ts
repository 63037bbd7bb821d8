import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { footprint, newProject, warehouseRows } from '../helpers/ingest'
import { rawRequest } from '../helpers/raw'
import { eventually, startTestServer, type TestServer } from '../helpers/server'

let s: TestServer
let host: string

beforeAll(async () => {
  s = await startTestServer()
  await newProject(s, 'app1', 'UTC')
  await newProject(s, 'app2', 'UTC')
  host = `127.0.0.1:${s.app.port}`
})
afterAll(() => s.stop())

const record = (appid: string, xwho: string, xwhat: string, xcontext: Record<string, unknown> = {}) => ({
  appid,
  xwho,
  xwhat,
  xwhen: 1717200000000,
  xcontext: { $lib: 'JS', $lib_version: '4.1.0', $platform: 'JS', $debug: 0, $is_login: false, ...xcontext },
})
const upload = (body: string, headers: Record<string, string> = {}) =>
  rawRequest(s.app.port, 'POST', '/up', { host, 'content-type': 'application/json', ...headers }, body)
const stream = async (appKey: string, on: boolean) => {
  await s.call('POST', `/uba/manage/enterprise/projects/${appKey}/stream`, { headers: { xtoken: s.creds.xtoken }, body: { streamSwitch: on } })
  await eventually(async () => (await s.call('GET', `/uba/manage/enterprise/projects/${appKey}`, { headers: { xtoken: s.creds.xtoken } })).body.stream === (on ? 2 : 0))
}

describe('the local collector (/up)', () => {
  it('refuses uploads with 503 while the data stream is not started, and stores nothing', async () => {
    const before = await footprint(s, 'app1')
    const res = await upload(JSON.stringify([record('app1', 'a', 'open')]))
    expect(res.status).toBe(503)
    expect(res.body).toEqual({
      code: 503,
      msg: 'the data stream of project app1 is not started; start it (POST /uba/manage/enterprise/projects/app1/stream {"streamSwitch": true}) and send again',
      data: null,
    })
    expect(await footprint(s, 'app1')).toEqual(before)
  })

  it('stores a JSON array routed by appid once the stream is started, leaving $debug 1 records out', async () => {
    await stream('app1', true)
    await stream('app2', true)
    const res = await upload(JSON.stringify([
      record('app1', 'a', 'open', { screen: 'home' }),
      record('app2', 'b', 'open'),
      record('app1', 'a', 'open', { $debug: 1 }),
      record('app1', 'a', '$profile_set', { plan: 'pro' }),
    ]))
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ code: 200, received: 4, stored: 3, rejected: 0, debug: 1, problems: [] })
    expect(await warehouseRows(s, 'app1', 'SELECT xwho, xwhat, screen, "$lib" AS lib FROM event_vd')).toEqual([{ xwho: 'a', xwhat: 'open', screen: 'home', lib: 'JS' }])
    expect(await warehouseRows(s, 'app1', 'SELECT xwho, plan FROM profile_vd')).toEqual([{ xwho: 'a', plan: 'pro' }])
    expect(await warehouseRows(s, 'app2', 'SELECT xwho FROM event_vd')).toEqual([{ xwho: 'b' }])
  })

  it('takes gzip-then-base64 bodies, as text or as a form field', async () => {
    const packed = gzipSync(JSON.stringify([record('app1', 'z1', 'tap')])).toString('base64')
    const plain = await upload(packed, { 'content-type': 'text/plain' })
    expect(plain.body).toMatchObject({ code: 200, stored: 1 })
    const form = await upload(`data=${encodeURIComponent(gzipSync(JSON.stringify(record('app1', 'z2', 'tap'))).toString('base64'))}`, { 'content-type': 'application/x-www-form-urlencoded' })
    expect(form.body).toMatchObject({ code: 200, received: 1, stored: 1 })
    expect(await warehouseRows(s, 'app1', "SELECT xwho FROM event_vd WHERE xwhat = 'tap' ORDER BY xwho")).toEqual([{ xwho: 'z1' }, { xwho: 'z2' }])
  })

  it('leaves out records without a project and values that do not fit, with reasons, and stores the others', async () => {
    const res = await upload(JSON.stringify([
      record('app1', 'r1', 'open', { screen: 5 }),
      { xwho: 'r2', xwhat: 'open', xwhen: 1 },
      record('nosuch', 'r3', 'open'),
      record('app1', 'r4', 'open', { screen: 'ok' }),
    ]))
    expect(res.status).toBe(200)
    // issue 16: a value that does not fit is left out of its record, which is stored
    expect(res.body).toMatchObject({ code: 200, received: 4, stored: 2, rejected: 2, valuesDropped: 1 })
    expect(res.body.problems).toEqual([
      { row: 2, property: 'appid', value: null, reason: 'is missing: it names the project' },
      { row: 3, property: 'appid', value: 'nosuch', reason: 'names no project' },
    ])
    expect(res.body.dropped).toEqual([{ row: 1, property: 'screen', value: '5', reason: 'is not a string' }])
  })

  it.each([
    ['', 'the upload is neither a JSON array of records nor gzip-then-base64 JSON'],
    ['[]', 'the upload holds no records'],
    ['H4sIAAAAAAAAA', 'the upload is gzip-then-base64 but does not unzip'],
  ])('answers 400 naming body to %j', async (body, msg) => {
    const res = await upload(body, { 'content-type': 'text/plain' })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg, data: ['body'] })
  })

  it('lets a web app on any origin send, and only the listed ones once the project lists its origins', async () => {
    const ok = await upload(JSON.stringify([record('app1', 'w1', 'open')]), { origin: 'http://localhost:3000' })
    expect(ok.status).toBe(200)
    expect(ok.headers['access-control-allow-origin']).toBe('http://localhost:3000')
    const preflight = await rawRequest(s.app.port, 'OPTIONS', '/up', { host, origin: 'http://localhost:3000', 'access-control-request-method': 'POST' })
    expect(preflight.status).toBe(204)
    const elsewhere = await upload(JSON.stringify([record('app1', 'w3', 'open')]), { origin: 'http://shop.test:8080' })
    expect(elsewhere.status).toBe(200)
    const listed = await s.call('POST', '/uba/manage/enterprise/projects/app1/collector', { headers: { xtoken: s.creds.xtoken }, body: { allowedOrigins: ['http://localhost:3000'] } })
    expect(listed.body).toEqual({ allowedOrigins: ['http://localhost:3000'] })
    expect((await s.call('GET', '/uba/manage/enterprise/projects/app1', { headers: { xtoken: s.creds.xtoken } })).body.collectorOrigins).toEqual(['http://localhost:3000'])
    const wrong = await s.call('POST', '/uba/manage/enterprise/projects/app1/collector', { headers: { xtoken: s.creds.xtoken }, body: { allowedOrigins: ['shop.test'] } })
    expect(wrong.body).toEqual({ code: 400, msg: '"shop.test" is not a web origin (scheme://host[:port], or null for pages opened from a file)', data: ['allowedOrigins'] })
    const evil = await upload(JSON.stringify([record('app1', 'w2', 'open')]), { origin: 'https://evil.example' })
    expect(evil.status).toBe(400)
    expect(evil.body.data).toEqual(['Origin'])
    expect((await upload(JSON.stringify([record('app1', 'w4', 'open')]), { origin: 'http://localhost:3000' })).status).toBe(200)
    await s.call('POST', '/uba/manage/enterprise/projects/app1/collector', { headers: { xtoken: s.creds.xtoken }, body: { allowedOrigins: [] } })
  })

  it('refuses again once the stream is stopped', async () => {
    await stream('app1', false)
    const res = await upload(JSON.stringify([record('app1', 'late', 'open')]))
    expect(res.status).toBe(503)
  })
})
