import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { openView, RESULTS } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'
import { daysBefore, shot, today } from './chartsPage'
import { checkPdf, jpegSize, pngSize } from './pdfCheck'

const ui = useBrowserTest({ sample: { users: 120, days: 20 } })
let headers: { appKey: string; token: string }
const names = ['Payers', 'Viewers', 'View to pay', 'Everyone']
let reportIds: number[] = []

beforeAll(async () => {
  headers = ui.server.project
  const zone = (await ui.server.call('GET', '/uba/api/project', { headers })).body.timeZone
  const dated = { fromDate: daysBefore(today(zone), 12), toDate: daysBefore(today(zone), 3), crowds: ['$ALL'] }
  const measure = (event: string) => ({ ...dated, unit: 'DAY', measures: [{ expression: `event.${event}`, aggregator: 'TRIGGER_USER_COUNT' }] })
  const bodies = [
    { name: names[0], kind: 'events', request: measure('pay') },
    { name: names[1], kind: 'events', request: measure('view_product') },
    { name: names[2], kind: 'funnels', request: { ...dated, steps: [{ expression: 'event.view_product' }, { expression: 'event.pay' }] } },
    { name: names[3], kind: 'userAttributes', request: { crowds: ['$ALL'], measure: { aggregator: 'USER_COUNT' }, byFields: [] } },
  ]
  reportIds = []
  for (const body of bodies) {
    const res = await ui.server.call('POST', '/uba/api/reports', { headers, body })
    expect(res.status).toBe(200)
    reportIds.push(res.body.id)
  }
}, 90_000)

/** A dashboard of the four reports, two by two, half width and small. */
async function newBoard(name: string): Promise<number> {
  const tiles = reportIds.map((reportId, i) => ({ reportId, x: (i % 2) * 6, y: Math.floor(i / 2) * 5, w: 6, h: 5 }))
  const res = await ui.server.call('POST', '/uba/api/dashboards', { headers, body: { name, tiles } })
  expect(res.status).toBe(200)
  return res.body.id
}

async function openBoard(id: number, name: string): Promise<{ page: Page; problems: string[] }> {
  const opened = await openView(ui.browser, ui.server, 'Dashboards', { hash: `#/dashboards/${id}`, heading: name })
  await opened.page.locator('[data-testid=dashboard-progress][data-done="4"][data-total="4"]').waitFor({ timeout: 30_000 })
  return opened
}

const layout = async (id: number) =>
  ((await ui.server.call('GET', `/uba/api/dashboards/${id}`, { headers })).body.tiles as { reportId: number; x: number; y: number; w: number; h: number }[]).map(({ reportId, x, y, w, h }) => ({
    name: names[reportIds.indexOf(reportId)],
    at: `${x},${y},${w},${h}`,
  }))

/** The tiles on screen in order: their report's name and their place on the grid. */
const onScreen = (page: Page) =>
  page.locator('[data-testid^=slot-]').evaluateAll((slots) => slots.map((s) => ({ name: s.querySelector('section')?.getAttribute('aria-label') ?? '', at: s.getAttribute('data-layout') ?? '' })))

/**
 * Counts, per quarter of the area below the heading, the pixels of this colour (within a
 * tolerance), on the image decoded by the browser. Written as page source: the tests' own types
 * have no DOM. The app's content security policy allows no data: fetch, so the bytes come as base64.
 */
const COUNT_COLOURS = `async ({ b64, type, colour, top, tolerance }) => {
  const blob = new Blob([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], { type })
  const bitmap = await createImageBitmap(blob)
  const ctx = new OffscreenCanvas(bitmap.width, bitmap.height).getContext('2d')
  ctx.drawImage(bitmap, 0, 0)
  const { data } = ctx.getImageData(0, 0, bitmap.width, bitmap.height)
  const want = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16))
  const background = [data[0], data[1], data[2]]
  const near = (p, c) => Math.abs(data[p] - c[0]) + Math.abs(data[p + 1] - c[1]) + Math.abs(data[p + 2] - c[2]) <= tolerance
  const quarters = [0, 0, 0, 0]
  let heading = 0
  const middle = top + (bitmap.height - top) / 2
  for (let y = 0; y < bitmap.height; y++) {
    for (let x = 0; x < bitmap.width; x++) {
      const p = (y * bitmap.width + x) * 4
      if (y < top) heading += near(p, background) ? 0 : 1
      else if (near(p, want)) quarters[(y < middle ? 0 : 2) + (x < bitmap.width / 2 ? 0 : 1)] += 1
    }
  }
  return { width: bitmap.width, height: bitmap.height, quarters, heading }
}`

function colourByQuarter(page: Page, bytes: Buffer, type: string, colour: string, top: number, tolerance: number): Promise<{ width: number; height: number; quarters: number[]; heading: number }> {
  const args = { b64: bytes.toString('base64'), type, colour, top, tolerance }
  return page.evaluate(`(${COUNT_COLOURS})(${JSON.stringify(args)})`)
}

describe('a dashboard saved as one picture', () => {
  it('PNG: every tile with its title and range at twice the resolution; PDF: one page holding that picture', async () => {
    const id = await newBoard('Shop review')
    const { page, problems } = await openBoard(id, 'Shop review')
    const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-dashboard-png').click()])
    expect(png.suggestedFilename()).toBe('Shop-review.png')
    const bytes = readFileSync((await png.path()) as string)
    writeFileSync(join(RESULTS, 'dashboard-export.png'), bytes)
    const size = pngSize(bytes)
    // 1200 CSS pixels wide at 2x; the heading (76) and two rows of tiles at least 150 high each
    expect(size.width).toBe(2400)
    expect(size.height).toBeGreaterThan(2 * (76 + 2 * 150))
    // the first series colour of the light theme: a chart in three quarters; the fourth holds the figure of "Everyone"
    const series = '#5750d8'
    const picture = await colourByQuarter(page, bytes, 'image/png', series, 2 * 76, 0)
    expect(picture).toMatchObject({ width: size.width, height: size.height })
    expect(picture.heading).toBeGreaterThan(500)
    const [payers, viewers, funnel, everyone] = picture.quarters
    for (const count of [payers, viewers, funnel]) expect(count).toBeGreaterThan(200)
    expect(everyone).toBe(0)

    const [pdf] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-dashboard-pdf').click()])
    expect(pdf.suggestedFilename()).toBe('Shop-review.pdf')
    const file = readFileSync((await pdf.path()) as string)
    writeFileSync(join(RESULTS, 'dashboard-export.pdf'), file)
    const parsed = checkPdf(file)
    expect(parsed.title).toBe('Shop review')
    expect(parsed.image).toMatchObject({ width: size.width, height: size.height, filter: 'DCTDecode' })
    expect(jpegSize(parsed.image.bytes)).toEqual({ width: size.width, height: size.height })
    // the page is the picture at 96 pixels per inch: 1200 CSS pixels are 900 points
    expect(parsed.mediaBox).toEqual([0, 0, 900, (size.height / 2) * 0.75])
    const jpeg = await colourByQuarter(page, Buffer.from(parsed.image.bytes), 'image/jpeg', series, 2 * 76, 60)
    expect(jpeg).toMatchObject({ width: size.width, height: size.height })
    for (const count of jpeg.quarters.slice(0, 3)) expect(count).toBeGreaterThan(100)
    expect(problems, problems.join('\n')).toEqual([])
    await page.context().close()
  }, 120_000)
})

describe('tiles below the fold', () => {
  it('are computed at once but drawn when they come near the screen; the PNG holds them all the same', async () => {
    const id = await newBoard('Tall review')
    const { page, problems } = await openView(ui.browser, ui.server, 'Dashboards', { hash: `#/dashboards/${id}`, heading: 'Tall review', viewport: { width: 1280, height: 420 } })
    await page.locator('[data-testid=dashboard-progress][data-done="4"][data-total="4"]').waitFor({ timeout: 30_000 })
    for (const i of [0, 1, 2, 3]) await page.locator(`[data-testid=tile-${i}][data-status=ready]`).waitFor()
    await page.getByTestId('tile-0').locator('.echart').waitFor()
    // the second row is more than 200 px below the screen: its tiles wait, with their answers
    expect(await page.getByTestId('tile-2').getByTestId('tile-waiting').count()).toBe(1)
    expect(await page.getByTestId('tile-3').getByTestId('tile-waiting').count()).toBe(1)
    const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-dashboard-png').click()])
    const bytes = readFileSync((await png.path()) as string)
    const picture = await colourByQuarter(page, bytes, 'image/png', '#5750d8', 2 * 76, 0)
    for (const count of picture.quarters.slice(0, 3)) expect(count).toBeGreaterThan(200)
    await page.getByTestId('tile-2').scrollIntoViewIfNeeded()
    await page.getByTestId('tile-2').locator('.echart').waitFor()
    await page.getByTestId('tile-3').getByText('Users').first().waitFor()
    expect(await page.getByTestId('tile-waiting').count()).toBe(0)
    expect(problems, problems.join('\n')).toEqual([])
    await page.context().close()
  }, 120_000)
})

describe('arranging a dashboard', () => {
  it('moves a tile by dragging it onto another, resizes one by its corner and by its buttons, and keeps the layout over a reload', async () => {
    const id = await newBoard('Layout review')
    const { page, problems } = await openBoard(id, 'Layout review')
    const answers: string[] = []
    page.on('request', (r) => r.url().includes('/analyze') && answers.push(r.url()))
    expect(await onScreen(page)).toEqual(await layout(id))

    // "View to pay" dragged by its grip onto "Payers" takes the first place; the rest flow after it
    await page.getByTestId('tile-2-grip').dragTo(page.getByTestId('slot-0'))
    const moved = [
      { name: 'View to pay', at: '0,0,6,5' },
      { name: 'Payers', at: '6,0,6,5' },
      { name: 'Viewers', at: '0,5,6,5' },
      { name: 'Everyone', at: '6,5,6,5' },
    ]
    await expect.poll(() => onScreen(page)).toEqual(moved)
    await expect.poll(() => layout(id)).toEqual(moved)

    // the corner of "View to pay" dragged over its neighbour and down: it snaps to full width and large, the others flow below
    const corner = (await page.getByTestId('tile-0-corner').boundingBox())!
    const grid = (await page.getByTestId('dashboard-grid').boundingBox())!
    await page.mouse.move(corner.x + 5, corner.y + 5)
    await page.mouse.down()
    await page.mouse.move(grid.x + grid.width - 10, corner.y + 300, { steps: 8 })
    expect(await page.locator('.preview').evaluate((e) => [e.getAttribute('data-w'), e.getAttribute('data-h')])).toEqual(['12', '8'])
    await page.mouse.up()
    const resized = [
      { name: 'View to pay', at: '0,0,12,8' },
      { name: 'Payers', at: '0,8,6,5' },
      { name: 'Viewers', at: '6,8,6,5' },
      { name: 'Everyone', at: '0,13,6,5' },
    ]
    await expect.poll(() => layout(id)).toEqual(resized)
    expect(await onScreen(page)).toEqual(resized)

    // from the keyboard: "Viewers" one step left, then "View to pay" back to half width and small with its buttons
    await page.getByTestId('tile-2-left').focus()
    await page.keyboard.press('Enter')
    const stepped = ['View to pay', 'Viewers', 'Payers', 'Everyone'].map((name, i) => ({ name, at: resized[i].at }))
    await expect.poll(() => onScreen(page)).toEqual(stepped)
    await expect.poll(() => layout(id)).toEqual(stepped)
    // the focus stays on the moved tile's button
    expect(await page.evaluate('document.activeElement?.getAttribute("data-testid")')).toBe('tile-1-left')
    await page.getByTestId('tile-0-width').press('Enter')
    await expect.poll(() => layout(id)).not.toEqual(stepped)
    await page.getByTestId('tile-0-height').press('Enter')
    const final = [
      { name: 'View to pay', at: '0,0,6,5' },
      { name: 'Viewers', at: '6,0,6,5' },
      { name: 'Payers', at: '0,5,6,5' },
      { name: 'Everyone', at: '6,5,6,5' },
    ]
    await expect.poll(() => layout(id)).toEqual(final)
    expect(await page.getByTestId('tile-0-width').getAttribute('aria-pressed')).toBe('false')
    // moving and resizing asks for no tile to be computed again; each tile keeps its numbers
    expect(answers).toEqual([])
    for (const i of [0, 1, 2]) expect(await page.locator(`[data-testid=tile-${i}][data-status=ready]`).count()).toBe(1)
    await shot(page, 'dashboard-arranged.png')

    await page.reload()
    await page.getByRole('heading', { name: 'Layout review', level: 1 }).waitFor()
    await page.locator('[data-testid=dashboard-progress][data-done="4"][data-total="4"]').waitFor({ timeout: 30_000 })
    expect(await onScreen(page)).toEqual(final)
    expect(problems, problems.join('\n')).toEqual([])
    await page.context().close()
  }, 120_000)
})
