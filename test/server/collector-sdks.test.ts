import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sdkRecord, switchStreamAndWait } from '../helpers/collector'
import { newProject, warehouseRows } from '../helpers/ingest'
import { rawRequest } from '../helpers/raw'
import { startTestServer, type TestServer } from '../helpers/server'

/**
 * Each SDK's exact wire format, as read from its public sources: the browser SDK's image request,
 * XHR post and beacon; Node; Python; Java (encoded and not).
 */

let s: TestServer
let host: string

beforeAll(async () => {
  s = await startTestServer()
  await newProject(s, 'shop', 'UTC')
  await newProject(s, 'other', 'UTC')
  await switchStreamAndWait(s, 'shop', true)
  await switchStreamAndWait(s, 'other', true)
  host = `127.0.0.1:${s.app.port}`
})
afterAll(() => s.stop())

const send = (method: string, path: string, headers: Record<string, string>, body?: string | Buffer) => rawRequest(s.app.port, method, path, { host, ...headers }, body)
const whoDid = async (appKey: string, xwhat: string) =>
  (await warehouseRows(s, appKey, `SELECT xwho FROM event_vd WHERE xwhat = '${xwhat}' ORDER BY xwho`)).map((r) => r.xwho)

/** Headers Chromium sends with an <img> request from a page on another site. */
const IMAGE_REQUEST = {
  accept: 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8',
  'sec-fetch-dest': 'image',
  'sec-fetch-mode': 'no-cors',
  'sec-fetch-site': 'cross-site',
  referer: 'http://shop.test:8080/',
}
/** Base64 of the gzip of some JSON, salted until it holds '+' and '/' (a form would mangle '+'). */
function gzipBase64(records: ReturnType<typeof sdkRecord>[]): string {
  for (let salt = 0; ; salt++) {
    const salted = salt === 0 ? records : records.map((r) => ({ ...r, xcontext: { ...r.xcontext, salt: `s${salt}` } }))
    const text = gzipSync(JSON.stringify(salted)).toString('base64')
    if (text.includes('+') && text.includes('/')) return text
  }
}

describe('the collector speaks every SDK transport', () => {
  it('browser SDK, default image mode: GET with base64 JSON in data answers a 1x1 GIF, and the record lands', async () => {
    const data = Buffer.from(JSON.stringify([sdkRecord('shop', 'img1', 'img_view', { page: '购物车 & more+' })]), 'utf8').toString('base64')
    const res = await send('GET', `/up?appid=shop&data=${encodeURIComponent(data)}&send_type=a3f`, IMAGE_REQUEST)
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('image/gif')
    expect(String(res.body).startsWith('GIF89a')).toBe(true)
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin')
    expect(await warehouseRows(s, 'shop', "SELECT xwho, page FROM event_vd WHERE xwhat = 'img_view'")).toEqual([{ xwho: 'img1', page: '购物车 & more+' }])
  })

  it('image mode also takes gzip-then-base64 and URL-safe base64, and answers JSON when asked', async () => {
    const zipped = gzipBase64([sdkRecord('shop', 'img2', 'img_zip')])
    const urlSafe = zipped.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
    const res = await send('GET', `/up?appid=shop&data=${urlSafe}&send_type=xyz`, { accept: 'application/json' })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ code: 200, received: 1, stored: 1, rejected: 0 })
    expect(await whoDid('shop', 'img_zip')).toEqual(['img2'])
  })

  it("browser SDK, sendType 'post': an XHR with a raw JSON body labelled form-urlencoded, from another origin", async () => {
    const body = JSON.stringify([sdkRecord('shop', 'xhr1', 'xhr_buy', { coupon: 'a+b&c=%41' })])
    const res = await send('POST', '/up?appid=shop', { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://shop.test:8080', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' }, body)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ code: 200, received: 1, stored: 1 })
    expect(res.headers['access-control-allow-origin']).toBe('http://shop.test:8080')
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin')
    expect(await warehouseRows(s, 'shop', "SELECT xwho, coupon FROM event_vd WHERE xwhat = 'xhr_buy'")).toEqual([{ xwho: 'xhr1', coupon: 'a+b&c=%41' }])
  })

  it("browser SDK, sendType 'send': a beacon with text/plain;charset=UTF-8 from a page opened from a file (Origin null)", async () => {
    const body = JSON.stringify([sdkRecord('shop', 'bcn1', 'beacon_leave'), sdkRecord('shop', 'bcn2', 'beacon_leave')])
    const res = await send('POST', '/up?appid=shop', { 'content-type': 'text/plain;charset=UTF-8', origin: 'null', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' }, body)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ code: 200, received: 2, stored: 2 })
    expect(await whoDid('shop', 'beacon_leave')).toEqual(['bcn1', 'bcn2'])
  })

  it('Node SDK: a JSON array with ?appid=; a record without its own appid takes the address\'s', async () => {
    const body = JSON.stringify([sdkRecord(undefined, 'node1', 'node_pay', { $lib: 'Node' }), sdkRecord('shop', 'node2', 'node_pay', { $lib: 'Node' })])
    const res = await send('POST', '/up?appid=shop', { 'content-type': 'application/json' }, body)
    expect(res.body).toMatchObject({ code: 200, received: 2, stored: 2, rejected: 0, problems: [] })
    expect(await whoDid('shop', 'node_pay')).toEqual(['node1', 'node2'])
  })

  it("follows a record's own appid when the address names another, and says so", async () => {
    const body = JSON.stringify([sdkRecord('shop', 'mix1', 'mixed'), sdkRecord('other', 'mix2', 'mixed'), sdkRecord('other', 'mix3', 'mixed')])
    const res = await send('POST', '/up?appid=shop', { 'content-type': 'application/json' }, body)
    expect(res.body).toMatchObject({ code: 200, received: 3, stored: 3, rejected: 0 })
    expect(res.body.problems).toEqual([
      { row: 2, property: 'appid', value: 'other', reason: "differs from the address's appid shop: the record's own is followed (stored, not rejected)" },
    ])
    expect(await whoDid('shop', 'mixed')).toEqual(['mix1'])
    expect(await whoDid('other', 'mixed')).toEqual(['mix2', 'mix3'])
  })

  it('Python SDK: base64 of gzip, form-urlencoded without a field name, no appid in the address', async () => {
    const body = gzipBase64([sdkRecord('shop', 'py1', 'py_login', { $lib: 'python' }), sdkRecord('shop', 'py2', 'py_login', { $lib: 'python' })])
    const res = await send('POST', '/up', { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Python-urllib/3.11' }, body)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ code: 200, received: 2, stored: 2 })
    expect(await whoDid('shop', 'py_login')).toEqual(['py1', 'py2'])
  })

  it('Java SDK: base64 of gzip as text/plain; charset=ISO-8859-1 with Content-Encoding UTF-8, and unencoded JSON', async () => {
    const java = { 'content-type': 'text/plain; charset=ISO-8859-1', 'content-encoding': 'UTF-8', 'user-agent': 'Analysys Java SDK' }
    const res = await send('POST', '/up', java, gzipBase64([sdkRecord('shop', 'java1', 'java_order', { $lib: 'Java' })]))
    expect(res.body).toMatchObject({ code: 200, received: 1, stored: 1 })
    // isEncode false: the JSON itself, as application/json, still labelled UTF-8
    const plain = await send('POST', '/up', { ...java, 'content-type': 'application/json' }, JSON.stringify([sdkRecord('shop', 'java2', 'java_order')]))
    expect(plain.body).toMatchObject({ code: 200, received: 1, stored: 1 })
    expect(await whoDid('shop', 'java_order')).toEqual(['java1', 'java2'])
  })

  it('takes a form with data and appid fields, a real Content-Encoding gzip, and raw gzip bytes', async () => {
    const form = `appid=shop&data=${encodeURIComponent(gzipBase64([sdkRecord(undefined, 'f1', 'forms')]))}`
    expect((await send('POST', '/up', { 'content-type': 'application/x-www-form-urlencoded' }, form)).body).toMatchObject({ code: 200, stored: 1 })
    const zipped = (xwho: string) => gzipSync(JSON.stringify([sdkRecord('shop', xwho, 'forms')]))
    expect((await send('POST', '/up', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, zipped('f2'))).body).toMatchObject({ code: 200, stored: 1 })
    expect((await send('POST', '/up', { 'content-type': 'text/plain' }, zipped('f3'))).body).toMatchObject({ code: 200, stored: 1 })
    // a Content-Encoding that names no compression is a label, whatever it says
    const labelled = await send('POST', '/up', { 'content-type': 'application/json', 'content-encoding': 'constructor' }, JSON.stringify([sdkRecord('shop', 'f5', 'forms')]))
    expect(labelled.body).toMatchObject({ code: 200, stored: 1 })
    const percent = encodeURIComponent(JSON.stringify([sdkRecord('shop', 'f4', 'forms')]))
    expect((await send('POST', '/up', { 'content-type': 'application/x-www-form-urlencoded' }, percent)).body).toMatchObject({ code: 200, stored: 1 })
    expect(await whoDid('shop', 'forms')).toEqual(['f1', 'f2', 'f3', 'f4', 'f5'])
  })

  it('splits records where they end, whatever their strings hold (brackets, escaped quotes, backslashes)', async () => {
    const tricky = ['q"]},{[', 'back\\', '\\"}', '{"appid":"x"}']
    const body = JSON.stringify(tricky.map((t, i) => sdkRecord('shop', `t${i}`, 'tricky', { note: t })))
    const res = await send('POST', '/up', { 'content-type': 'text/plain' }, `  \n${body}\n `)
    expect(res.body).toMatchObject({ code: 200, received: 4, stored: 4 })
    expect(await warehouseRows(s, 'shop', "SELECT note FROM event_vd WHERE xwhat = 'tricky' ORDER BY xwho")).toEqual(tricky.map((note) => ({ note })))
  })

  it.each([
    ['POST', '/up', 'data=%', 'data', 'data is not valid percent-encoding'],
    ['POST', '/up', '%E0%A4%A', 'body', 'body is not valid percent-encoding'],
    ['GET', '/up?appid=shop&data=%', undefined, 'data', 'data is not valid percent-encoding'],
    ['GET', '/up?appid=shop', undefined, 'data', 'data is required: the records, as base64 of their JSON'],
    ['GET', '/up?data=!!!', undefined, 'data', 'the upload is neither a JSON array of records nor gzip-then-base64 JSON'],
  ])('%s %s with %j answers 400 naming the field', async (method, path, body, field, msg) => {
    const res = await send(method, path, body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }, body)
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg, data: [field] })
  })

  it('stores nothing for HEAD (only GET and POST carry uploads)', async () => {
    const data = Buffer.from(JSON.stringify([sdkRecord('shop', 'head1', 'head_probe')])).toString('base64')
    const res = await send('HEAD', `/up?appid=shop&data=${encodeURIComponent(data)}`, {})
    expect(res.status).toBe(400)
    expect(await whoDid('shop', 'head_probe')).toEqual([])
  })
})
