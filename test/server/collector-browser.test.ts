import { existsSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM } from '../helpers/browser'
import { sdkRecord, switchStreamAndWait } from '../helpers/collector'
import { newProject, warehouseRows } from '../helpers/ingest'
import { eventually, startTestServer, type TestServer } from '../helpers/server'

/**
 * A web app on another origin (a page served from 127.0.0.2, which the API's door does not count
 * as its own or as loopback) uploads the way the browser SDK does, in a real Chromium.
 */

let s: TestServer
let site: http.Server
let siteUrl: string
let browser: Browser

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`)
  s = await startTestServer()
  await newProject(s, 'web', 'UTC')
  await switchStreamAndWait(s, 'web', true)
  site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>shop</title><p>shop</p>'))
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.2', resolve))
  siteUrl = `http://127.0.0.2:${(site.address() as AddressInfo).port}`
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] })
})
afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => site?.close(resolve))
  await s?.stop()
})

const whoDid = async (xwhat: string) => (await warehouseRows(s, 'web', `SELECT xwho FROM event_vd WHERE xwhat = '${xwhat}' ORDER BY xwho`)).map((r) => r.xwho)

describe('a page on another origin uploads to the collector', () => {
  it('through navigator.sendBeacon, an image request and an XHR post, with no error in the page', async () => {
    const page = await browser.newPage()
    const problems: string[] = []
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()))
    page.on('pageerror', (err) => problems.push(err.message))
    await page.goto(siteUrl)
    const up = `${s.url}/up?appid=web`
    const beacon = [sdkRecord('web', 'b1', 'beacon_sent')]
    const image = [sdkRecord('web', 'i1', 'image_sent', { title: 'Café' })]
    const xhr = [sdkRecord('web', 'x1', 'xhr_sent')]
    // the browser SDK's three transports, in the page (a string: the test is typed without the DOM)
    const outcome = await page.evaluate<{ queued: boolean; loaded: string; answer: { status: number; text: string } }>(`(async () => {
      const up = ${JSON.stringify(up)}
      const queued = navigator.sendBeacon(up, ${JSON.stringify(JSON.stringify(beacon))})
      const loaded = await new Promise((resolve) => {
        const img = new Image(1, 1)
        img.onload = () => resolve('load')
        img.onerror = () => resolve('error')
        const data = btoa(String.fromCharCode(...new TextEncoder().encode(${JSON.stringify(JSON.stringify(image))})))
        img.src = up + '&data=' + encodeURIComponent(data) + '&send_type=abc'
      })
      const answer = await new Promise((resolve) => {
        const request = new XMLHttpRequest()
        request.open('POST', up, true)
        request.setRequestHeader('Content-Type', 'application/x-www-form-urlencoded')
        request.onloadend = () => resolve({ status: request.status, text: request.responseText })
        request.send(${JSON.stringify(JSON.stringify(xhr))})
      })
      return { queued, loaded, answer }
    })()`)
    expect(outcome.queued).toBe(true)
    // the GIF loads: the SDK's success callback, and no CORP block in the console
    expect(outcome.loaded).toBe('load')
    expect(outcome.answer.status).toBe(200)
    expect(JSON.parse(outcome.answer.text)).toMatchObject({ code: 200, stored: 1 })
    await eventually(async () => (await whoDid('beacon_sent')).length === 1)
    expect(await whoDid('beacon_sent')).toEqual(['b1'])
    expect(await warehouseRows(s, 'web', "SELECT xwho, title FROM event_vd WHERE xwhat = 'image_sent'")).toEqual([{ xwho: 'i1', title: 'Café' }])
    expect(await whoDid('xhr_sent')).toEqual(['x1'])
    expect(problems).toEqual([])
    await page.close()
  })

  it('is refused once the project lists other origins, while the rest of the API stays closed to the page', async () => {
    await s.call('POST', '/uba/manage/enterprise/projects/web/collector', { headers: { xtoken: s.creds.xtoken }, body: { allowedOrigins: ['https://shop.example'] } })
    const page = await browser.newPage()
    await page.goto(siteUrl)
    const statuses = await page.evaluate<{ post: number | string; api: number | string }>(`(async () => {
      const base = ${JSON.stringify(s.url)}
      const post = await fetch(base + '/up?appid=web', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: ${JSON.stringify(JSON.stringify([sdkRecord('web', 'r1', 'refused_sent')]))} }).then((r) => r.status, () => 'blocked')
      const api = await fetch(base + '/uba/manage/enterprise/projects').then((r) => r.status, () => 'blocked')
      return { post, api }
    })()`)
    // the refusal (400) carries the CORS grant so the SDK sees it; the API grants nothing
    expect(statuses).toEqual({ post: 400, api: 'blocked' })
    expect(await whoDid('refused_sent')).toEqual([])
    await page.close()
    await s.call('POST', '/uba/manage/enterprise/projects/web/collector', { headers: { xtoken: s.creds.xtoken }, body: { allowedOrigins: [] } })
  })
})
