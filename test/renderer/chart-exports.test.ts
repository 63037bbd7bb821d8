import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { RESULTS } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'
import { answerOf, daysBefore, openCharts, pick, raw, ready, today } from './chartsPage'

/** A chart's exports read on their own, away from the screen: full dates, non-ASCII names intact. */

const ui = useBrowserTest({ sample: { users: 60, days: 10 } })
let timeZone: string
const PAY = 'Paiement réussi · 支付'

beforeAll(async () => {
  timeZone = (await ui.server.call('GET', '/uba/api/project', { headers: ui.server.project })).body.timeZone
  const renamed = await ui.server.call('PUT', '/uba/api/schema/event?id=pay', { headers: ui.server.project, body: { name: PAY } })
  expect(renamed.status).toBe(200)
}, 90_000)

describe('Chart exports', () => {
  it('CSV: a byte-order mark, full dates as headers, the measure named in its own words', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await ready(page)
    await pick(page, 'measure-0-event', 'paiement', PAY)
    await page.getByTestId('range-last7').click()
    await ready(page)
    const { api } = await answerOf(ui.server, c, '/uba/api/events/analyze')

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

  it('PNG: twice the size of the chart, taller by a heading and the whole legend', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await ready(page)
    await pick(page, 'measure-0-event', 'paiement', PAY)
    await page.getByTestId('add-measure').click()
    await page.getByTestId('measure-1-aggregator').selectOption('SUM')
    await pick(page, 'measure-1-property', 'amount', 'Order amount')
    await pick(page, 'breakdown', 'city', 'City')
    // a filter the image names in its heading ("Filters: City is set")
    await page.getByTestId('global-filter').getByRole('button', { name: '+ Filter' }).click()
    await page.keyboard.type('city')
    await page.keyboard.press('Enter')
    await page.getByTestId('global-filter').locator('select.op').selectOption('NOT_NULL')
    await ready(page)
    await expect.poll(() => c.requests.at(-1)?.postData() ?? '').toContain('NOT_NULL')
    await ready(page)
    const { api } = await answerOf(ui.server, c, '/uba/api/events/analyze')
    // a line per city and measure, long names: more than one legend row holds, the screen's legend scrolls
    expect(api.rows.length * 2).toBeGreaterThan(10)
    const box = (await page.locator('.echart').boundingBox())!

    const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-png').click()])
    const bytes = readFileSync((await png.path()) as string)
    expect(bytes.subarray(1, 4).toString()).toBe('PNG')
    writeFileSync(join(RESULTS, 'chart-export.png'), bytes)
    // IHDR: width and height, big-endian, at bytes 16 and 20
    const width = bytes.readUInt32BE(16)
    const height = bytes.readUInt32BE(20)
    expect(width).toBe(2 * Math.max(640, Math.round(box.width)))
    expect(height % 2).toBe(0)
    // the heading (58 px) and at least a second legend row (20 px) on top of the screen's chart, less its one legend row (36 px)
    expect(height / 2).toBeGreaterThanOrEqual(Math.round(box.height) + 58 + 40 - 36)
    expect(c.problems).toEqual([])
    await page.context().close()
  })
})
