import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import type { EventsAggregator, EventsRequest, EventsResponse } from '../../src-renderer/src/api/analysis'
import { eventCell, eventPointOfCell, eventPointOfClick, figureOf, type EventLabels, type EventPoint } from '../../src-renderer/src/views/Charts/drilldown/eventCells'
import { RESULTS } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'
import { eventually } from '../helpers/server'
import { answerOf, daysBefore, openCharts, pick, ready, shot, tableValues, today } from './chartsPage'

/** The event chart's cells and points open their users in the one users panel (POST /uba/api/events/users). */

const ui = useBrowserTest({ sample: { users: 200, days: 14 } })
let headers: { appKey: string; token: string }
let range: { fromDate: string; toDate: string }

beforeAll(async () => {
  headers = ui.server.project
  const timeZone = (await ui.server.call('GET', '/uba/api/project', { headers })).body.timeZone
  // starts inside the sample and not on a Monday: the first week is cut by the range, with events before it
  const from = [9, 10].map((n) => daysBefore(today(timeZone), n)).find((day) => new Date(`${day}T00:00:00Z`).getUTCDay() !== 1) as string
  range = { fromDate: from, toDate: today(timeZone) }
}, 90_000)

const pay = (aggregator: EventsAggregator = 'TRIGGER_USER_COUNT', filter?: EventsRequest['filter']) => ({ expression: 'event.pay', aggregator, ...(filter ? { filter } : {}) })
const labelsOf = (request: EventsRequest): EventLabels & { steps: string[] } => ({ measures: request.measures.map((m) => `Pay · ${m.aggregator}`), steps: [], breakdowns: (request.byFields ?? []).map((b) => b.expression), unit: request.unit ?? '', range })
const palette = { dark: false, text: '#000', muted: '#555', faint: '#999', border: '#ddd', surface: '#fff', accent: '#55f', series: ['#55f', '#1a9', '#e83'], scale: ['#fff', '#00f'] }

type Shaped = { table: { columns: unknown[]; rows: { value: number | string | null }[][] }; option: { series: { id: string; data: (number | null)[] }[] } }
/**
 * The event chart's table and series as the Charts view draws them. Imported by a path built at run
 * time: its types reach the renderer's stores, which the node-side typecheck cannot read.
 */
async function shapeEvents(api: EventsResponse, labels: EventLabels, style: 'line' | 'bar'): Promise<Shaped> {
  const module = '../../src-renderer/src/views/Charts/results/' + 'events'
  const { shapeEvents: shape } = (await import(module)) as { shapeEvents: (r: EventsResponse, l: EventLabels, p: typeof palette, s: string) => Shaped }
  return shape(api, labels, palette, style)
}

async function analyze(request: EventsRequest): Promise<EventsResponse> {
  const answer = await ui.server.call('POST', '/uba/api/events/analyze', { headers, body: request })
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return answer.body
}

/** The whole range and up to `per` non-empty periods of every row, for measure `measure`. */
function points(api: EventsResponse, measure: number, per = 3): EventPoint[] {
  return api.rows.flatMap((row, r) => {
    const periods = row.values[measure].flatMap((v, i) => (v ? [i] : [])).slice(0, per)
    return [{ measure, row: r, period: null }, ...periods.map((period) => ({ measure, row: r, period }))]
  })
}

/**
 * Asks the server for the users of each point as the panel would and checks their number against
 * the chart's unique users of measure `users` at the same point.
 */
async function expectSameUsers(request: EventsRequest, listed: number, users = listed): Promise<void> {
  const api = await analyze(request)
  expect(api.rows.length).toBeGreaterThan(1)
  const found: { point: EventPoint; label: string[]; count: number | null }[] = []
  for (const point of points(api, listed)) {
    const target = eventCell(request, api, labelsOf(request), point)!
    const answer = await ui.server.call('POST', '/uba/api/events/users', { headers, body: { ...request, cell: target.choices[0].cell, pageSize: 1 } })
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    found.push({ point, label: api.rows[point.row].byValue, count: answer.body.count })
  }
  expect(found).toEqual(found.map((f) => ({ ...f, count: figureOf(api, { ...f.point, measure: users }) })))
}

describe('the cells of an event answer', () => {
  it('a point of unique users, broken down by an event or a user property, lists exactly the chart’s users per day, week and the whole range', async () => {
    await expectSameUsers({ ...range, crowds: ['$ALL'], measures: [pay()], unit: 'DAY', byFields: [{ expression: 'event.$Anything.$platform' }] }, 0)
    await expectSameUsers({ ...range, crowds: ['$ALL'], measures: [pay()], unit: 'WEEK', byFields: [{ expression: 'event.$Anything.$platform' }] }, 0)
    // what cohort rules could not say: an OR filter with a missing value, a number bucket, a user property's unknown row
    const orFilter: EventsRequest['filter'] = { relation: 'OR', conditions: [{ expression: 'event.$Anything.$utm_source', function: 'EQ', params: ['wechat', 'douyin'] }, { expression: 'event.$Anything.$utm_source', function: 'NULL', params: [] }] }
    await expectSameUsers({ ...range, crowds: ['$ALL'], measures: [pay()], unit: 'WEEK', filter: orFilter, byFields: [{ expression: 'event.pay.amount', buckets: [100, 300] }] }, 0)
    await expectSameUsers({ ...range, crowds: ['$ALL'], measures: [pay()], unit: 'WEEK', filter: orFilter, byFields: [{ expression: 'user.gender' }] }, 0)
  }, 180_000)

  it('a measure of events, not users, lists the users who did the event in the point', async () => {
    await expectSameUsers({ ...range, crowds: ['$ALL'], measures: [pay(), pay('TOTAL_COUNT')], unit: 'WEEK', byFields: [{ expression: 'event.$Anything.$platform' }] }, 1, 0)
  }, 120_000)

  it('each table cell and chart point opens the cell it shows; the formula’s and the compared range’s open nothing', async () => {
    const request: EventsRequest = { ...range, crowds: ['$ALL'], measures: [pay(), pay('TOTAL_COUNT')], unit: 'DAY', formula: 'b / a', compare: 'week', byFields: [{ expression: 'event.$Anything.$platform' }] }
    const api = await analyze(request)
    const rows = api.rows.length
    const shaped = await shapeEvents(api, labelsOf(request), 'line')
    const table = shaped.table
    // Measure, Platform, Whole range, the days, Before, Change; the formula's rows last
    expect(table.columns).toHaveLength(3 + api.series.length + 2)
    expect(table.rows).toHaveLength(3 * rows)
    let opened = 0
    table.rows.forEach((cells, r) =>
      cells.forEach((cell, col) => {
        const point = eventPointOfCell(api, r, col)
        const measureCell = r < 2 * rows && col >= 2 && col < 3 + api.series.length
        expect(point !== null, `row ${r} column ${col}`).toBe(measureCell)
        if (!point) return
        opened++
        expect(point).toEqual({ measure: Math.floor(r / rows), row: r % rows, period: col === 2 ? null : col - 3 })
        expect(figureOf(api, point)).toBe(cell.value)
      }),
    )
    expect(opened).toBe(2 * rows * (1 + api.series.length))

    // the chart: every drawn value of a measure's line is the point it opens; the formula's and the earlier week's none
    const series = shaped.option.series
    expect(series.some((s) => s.id.startsWith('formula:'))).toBe(true)
    expect(series.some((s) => s.id.startsWith('before:'))).toBe(true)
    for (const s of series) {
      s.data.forEach((value, i) => {
        const point = eventPointOfClick(s.id, i)
        if (s.id.startsWith('formula:') || s.id.startsWith('before:')) return expect(point, s.id).toBeNull()
        expect(point, s.id).not.toBeNull()
        if (value !== null) expect(figureOf(api, point!)).toBe(value)
      })
    }
    // the cell asked for: the measure, the row's labels and the period's first day; the whole range without one
    const target = eventCell(request, api, labelsOf(request), { measure: 0, row: 1, period: 2 })!
    expect(target.choices[0]).toMatchObject({ cell: { measure: 0, byValue: api.rows[1].byValue, period: api.series[2] }, figure: api.rows[1].values[0][2] })
    expect(eventCell(request, api, labelsOf(request), { measure: 1, row: 0, period: null })!.choices[0]).toMatchObject({ cell: { measure: 1, byValue: api.rows[0].byValue }, figure: null })
  }, 60_000)
})

const count = async (page: Page): Promise<number> => Number(((await page.getByTestId('cell-count').textContent()) ?? '').replace(/,/g, ''))
const cellAt = (page: Page, r: number, col: number) => page.locator('[data-testid=result-table] tbody tr').nth(r).locator('th, td').nth(col)
const panelReady = (page: Page) => page.locator('[data-testid=cell-users][data-phase=ready]').waitFor({ timeout: 30_000 })

describe('the users of an event chart in the Charts view', () => {
  it('a day of a breakdown row and the row’s whole range open their users: the table’s count, listed, each a link to People', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await ready(page)
    await pick(page, 'measure-0-event', 'pay', 'Pay')
    await pick(page, 'breakdown', 'platform', 'Platform')
    await ready(page)
    const { api } = await answerOf(ui.server, c, '/uba/api/events/analyze')

    // Measure, Platform, Whole range, then one column per day
    const rows = await tableValues(page)
    const r = 1
    const col = rows[r].findIndex((v, i) => i > 2 && Number(v) > 0)
    const expected = Number(rows[r][col])
    expect(expected).toBe(api.rows[r].values[0][col - 3])
    await page.getByTestId('result-table').screenshot({ path: join(RESULTS, 'drilldown-table.png') })
    await cellAt(page, r, col).getByRole('button').click()
    await panelReady(page)
    expect(await count(page)).toBe(expected)
    expect(await page.getByTestId('cell-check').textContent()).toContain('The same number as the table.')
    expect(await page.getByTestId('cell-title').textContent()).toMatch(/^Users who did Pay on /)
    expect(await page.getByTestId('cell-users').getByText(`Platform: ${api.rows[r].byValue[0]}`).count()).toBe(1)
    expect(await page.getByTestId('cell-user').count()).toBe(Math.min(expected, 50))
    await shot(page, 'drilldown-light.png')

    // the row's whole range: every payer of that platform over the range, once each
    await cellAt(page, r, 2).getByRole('button').click()
    await expect.poll(() => page.getByTestId('cell-title').textContent()).toMatch(/^Users who did Pay from /)
    await panelReady(page)
    await expect.poll(() => count(page)).toBe(api.rows[r].sum[0])
    expect(await page.getByTestId('cell-check').textContent()).toContain('The same number as the table.')

    const user = page.getByTestId('cell-user').first()
    const xwho = (await user.textContent())?.trim() ?? ''
    await user.click()
    await page.getByTestId('profile-xwho').filter({ hasText: xwho }).waitFor()
    expect(decodeURIComponent(page.url())).toContain(`#/people?xwho=${xwho}`)
    // back at the chart, the users are still open
    await page.goBack()
    await panelReady(page)
    expect(await count(page)).toBe(api.rows[r].sum[0])
    await page.getByTestId('cell-close').click()
    await page.getByTestId('cell-users').waitFor({ state: 'detached' })
    expect(c.problems).toEqual([])
    await page.context().close()
  }, 120_000)

  it('a bar of the chart opens the users of its day, in the dark theme', async () => {
    const c = await openCharts(ui.browser, ui.server, 'dark')
    const { page } = c
    const asked: any[] = []
    page.on('request', (q) => {
      if (q.url().includes('/uba/api/events/users')) asked.push(JSON.parse(q.postData() ?? '{}').cell)
    })
    await ready(page)
    await pick(page, 'measure-0-event', 'pay', 'Pay')
    await page.getByRole('button', { name: 'Bar' }).click()
    await ready(page)
    const { api } = await answerOf(ui.server, c, '/uba/api/events/analyze')

    // ECharts shows a pointer over a bar: find one by hovering, then click it; the bars grow in,
    // so the search is repeated until one is there (a busy machine draws them late)
    const box = (await page.locator('.echart').boundingBox())!
    let hit: { x: number; y: number } | null = null
    const y = box.y + box.height - 40
    await eventually(async () => {
      for (let x = box.x + box.width - 20; x > box.x + 40 && !hit; x -= 6) {
        await page.mouse.move(x, y)
        const pointer = await page.evaluate<boolean>(`[...document.querySelectorAll('.echart *')].some((e) => e.style?.cursor === 'pointer')`)
        if (pointer) hit = { x, y }
      }
      return hit !== null
    }, 30_000).catch(() => undefined)
    expect(hit).not.toBeNull()
    await page.mouse.click(hit!.x, hit!.y)
    await panelReady(page)
    expect(asked).toHaveLength(1)
    const period = asked[0].period as string
    expect(asked[0]).toEqual({ measure: 0, period })
    expect(api.series).toContain(period)
    expect(await count(page)).toBe(api.rows[0].values[0][api.series.indexOf(period)])
    expect(await page.getByTestId('cell-check').textContent()).toContain('The same number as the table.')
    await shot(page, 'drilldown-dark.png')
    expect(c.problems).toEqual([])
    await page.context().close()
  }, 120_000)

  it('with a formula and a comparison, the measures’ numbers open their users and the formula’s and the earlier range’s do not', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await ready(page)
    await pick(page, 'measure-0-event', 'pay', 'Pay')
    await page.getByTestId('add-measure').click()
    await page.getByTestId('measure-1-aggregator').selectOption('TOTAL_COUNT')
    await page.getByTestId('formula').fill('b / a')
    await page.getByTestId('formula').press('Enter')
    await page.getByTestId('compare').selectOption('week')
    await expect.poll(() => c.requests.at(-1)?.postData() ?? '').toContain('"compare":"week"')
    await ready(page)
    const { api } = await answerOf(ui.server, c, '/uba/api/events/analyze')
    // Measure, Whole range, the days, Before, Change; rows A, B, the formula
    const width = 2 + api.series.length + 2
    const buttons = (r: number) => page.locator('[data-testid=result-table] tbody tr').nth(r).getByRole('button').count()
    expect(await buttons(0)).toBe(1 + api.series.length)
    expect(await buttons(1)).toBe(1 + api.series.length)
    expect(await buttons(2)).toBe(0)
    expect(await cellAt(page, 0, width - 2).getByRole('button').count()).toBe(0)
    expect(await cellAt(page, 0, width - 1).getByRole('button').count()).toBe(0)

    // B counts payments: its users are the payers of the range, no figure of the table to match
    await cellAt(page, 1, 1).getByRole('button').click()
    await panelReady(page)
    expect(await count(page)).toBe(api.rows[0].sum[0])
    expect(await page.getByTestId('cell-check').count()).toBe(0)
    expect(c.problems).toEqual([])
    await page.context().close()
  }, 120_000)
})
