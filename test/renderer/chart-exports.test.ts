import { readFileSync } from 'node:fs'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startBrowserTest } from '../helpers/browser'
import { eventually, type TestServer } from '../helpers/server'
import { answerOf, daysBefore, openCharts, pick, raw, ready, today } from './chartsPage'

/** A chart's exports read on their own, away from the screen: full dates, non-ASCII names intact. */

let server: TestServer
let browser: Browser
let stop: () => Promise<void>
let timeZone: string
const PAY = 'Paiement réussi · 支付'

beforeAll(async () => {
  ;({ server, browser, stop } = await startBrowserTest())
  const started = await server.call('POST', '/uba/api/import/sample', { headers: server.project, body: { users: 60, days: 10 } })
  expect(started.status).toBe(200)
  await eventually(async () => (await server.call('GET', `/uba/api/import/jobs/${started.body.id}`, { headers: server.project })).body.state === 'succeeded', 60_000)
  timeZone = (await server.call('GET', '/uba/api/project', { headers: server.project })).body.timeZone
  const renamed = await server.call('PUT', '/uba/api/schema/event?id=pay', { headers: server.project, body: { name: PAY } })
  expect(renamed.status).toBe(200)
}, 90_000)

afterAll(() => stop?.())

describe('Chart exports', () => {
  it('CSV: a byte-order mark, full dates as headers, the measure named in its own words', async () => {
    const c = await openCharts(browser, server, 'light')
    const { page } = c
    await ready(page)
    await pick(page, 'measure-0-event', 'paiement', PAY)
    await page.getByTestId('range-last7').click()
    await ready(page)
    const { api } = await answerOf(server, c, '/uba/api/events/analyze')

    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-csv').click()])
    const bytes = readFileSync((await csv.path()) as string)
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const lines = bytes.subarray(3).toString('utf8').split('\r\n')
    expect(lines.at(-1)).toBe('')
    const days = Array.from({ length: 7 }, (_, k) => daysBefore(today(timeZone), 6 - k))
    expect(lines[0]).toBe(['Measure', 'Whole range', ...days].join(','))
    expect(lines.slice(1, -1)).toEqual([[`${PAY} · Unique users`, raw(api.rows[0].sum[0]), ...api.rows[0].values[0].map(raw)].join(',')])
    // the screen keeps its short dates; the full one is the header's tooltip
    const last = page.locator('[data-testid=result-table] thead th').last()
    expect(await last.getAttribute('title')).toBe(days[6])
    expect(await last.textContent()).not.toContain(days[6].slice(0, 4))
    expect(c.problems).toEqual([])
    await page.context().close()
  })
})
