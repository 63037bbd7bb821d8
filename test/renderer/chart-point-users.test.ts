import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { useBrowserTest } from '../helpers/browserTest'
import { eventually } from '../helpers/server'
import { answerOf, openCharts, pick, ready, shot } from './chartsPage'

/**
 * A bar of the distribution and of the user-attribute charts opens the users it counts in the one
 * users panel, as the table's number does: the cell asked for is the bar's, the count is the bar's
 * value, and the users listed are those the server lists for that cell.
 */

const ui = useBrowserTest({ sample: { users: 300, days: 30 } })

const count = async (page: Page) => Number((await page.getByTestId('cell-count').textContent())?.replace(/,/g, ''))

/** Hovers along `points` until ECharts shows a pointer (a bar is under it), then clicks there; bars grow in, so the search is repeated. */
async function clickBar(page: Page, points: (box: { x: number; y: number; width: number; height: number }) => { x: number; y: number }[]): Promise<void> {
  const box = (await page.locator('.echart').boundingBox())!
  let hit: { x: number; y: number } | null = null
  await eventually(async () => {
    for (const p of points(box)) {
      await page.mouse.move(p.x, p.y)
      if (await page.evaluate<boolean>(`[...document.querySelectorAll('.echart *')].some((e) => e.style?.cursor === 'pointer')`)) {
        hit = p
        break
      }
    }
    return hit !== null
  }, 30_000).catch(() => undefined)
  expect(hit).not.toBeNull()
  await page.mouse.click(hit!.x, hit!.y)
}

/** The first page of users the server lists for `cell` of the analysis `body`, with the user properties asked for. */
async function listed(analysis: string, body: object, cell: object, properties: string[] = []): Promise<Record<string, unknown>[]> {
  const res = await ui.server.call('POST', `/uba/api/${analysis}/users`, { headers: ui.server.project, body: { ...body, cell, pageSize: 50, properties } })
  expect(res.status).toBe(200)
  return res.body.users
}
const names = (users: Record<string, unknown>[]) => users.map((u) => u.xwho)

function asked(page: Page, path: string): object[] {
  const cells: object[] = []
  page.on('request', (q) => {
    if (q.url().includes(path)) cells.push(JSON.parse(q.postData() ?? '{}').cell)
  })
  return cells
}

describe('a bar of the distribution and user-attribute charts opens its users', () => {
  it('a distribution bar: the users whose view count is in its bucket', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    const cells = asked(page, '/uba/api/distributions/users')
    await page.getByRole('tab', { name: 'Distribution' }).click()
    await pick(page, 'measure-0-event', 'view product', 'View product')
    await ready(page)
    const { body, api } = await answerOf(ui.server, c, '/uba/api/distributions/analyze')
    expect(api.rows).toHaveLength(1)

    // vertical bars: along a line just above the axis, from the right
    await clickBar(page, (b) => Array.from({ length: Math.floor((b.width - 60) / 6) }, (_, i) => ({ x: b.x + b.width - 20 - 6 * i, y: b.y + b.height - 40 })))
    await page.locator('[data-testid=cell-users][data-phase=ready]').waitFor({ timeout: 30_000 })
    expect(cells).toHaveLength(1)
    const cell = cells[0] as { byValue: string; bucket: string }
    expect(cell).toEqual({ byValue: 'all', bucket: cell.bucket })
    const k = api.series.indexOf(cell.bucket)
    expect(k).toBeGreaterThanOrEqual(0)
    expect(api.rows[0].values[k]).toBeGreaterThan(0)
    expect(await page.getByTestId('cell-title').textContent()).toContain(`is in ${cell.bucket}`)
    expect(await count(page)).toBe(api.rows[0].values[k])
    expect(await page.getByTestId('cell-check').textContent()).toContain('The same number as the table.')
    expect(await page.getByTestId('cell-user').allTextContents()).toEqual(names(await listed('distributions', body, cell)))
    await shot(page, 'chart-point-users-distribution.png')
    expect(c.problems).toEqual([])
    await page.context().close()
  }, 120_000)

  it('a user-attribute bar: the users of its age interval', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    const cells = asked(page, '/uba/api/userAttributes/users')
    await page.getByRole('tab', { name: 'User attributes' }).click()
    await ready(page)
    await pick(page, 'breakdown', 'age', 'Age', 'breakdown-0')
    await page.getByLabel('Breakdown 1 interval edges').fill('20, 30, 40')
    await page.keyboard.press('Enter')
    await ready(page)
    const { body, api } = await answerOf(ui.server, c, '/uba/api/userAttributes/analyze')
    expect(api.rows.length).toBeGreaterThan(1)

    // horizontal bars from the axis on the left: down a line a third of the way across
    await clickBar(page, (b) => Array.from({ length: Math.floor((b.height - 16) / 4) }, (_, i) => ({ x: b.x + b.width * 0.35, y: b.y + 8 + 4 * i })))
    await page.locator('[data-testid=cell-users][data-phase=ready]').waitFor({ timeout: 30_000 })
    expect(cells).toHaveLength(1)
    const cell = cells[0] as { byValue: string[] }
    const row = api.rows.find((r: { byValue: string[] }) => JSON.stringify(r.byValue) === JSON.stringify(cell.byValue))
    expect(row, JSON.stringify(cell)).toBeDefined()
    expect(await page.getByTestId('cell-title').textContent()).toBe('Users of this row')
    expect(await count(page)).toBe(row.value)
    expect(await page.getByTestId('cell-check').textContent()).toContain('The same number as the table.')
    const users = await listed('userAttributes', body, cell, ['age'])
    expect(await page.getByTestId('cell-user').allTextContents()).toEqual(names(users))
    // each listed user's age lies in the bar's interval ("20~30": from 20, below 30)
    const [from, to] = cell.byValue[0].split('~').map((edge) => (edge.includes('∞') ? null : Number(edge)))
    expect(users.length).toBeGreaterThan(0)
    for (const u of users) {
      const age = Number(u.age)
      expect(from === null || age >= from, `${u.xwho} ${age}`).toBe(true)
      expect(to === null || age < to, `${u.xwho} ${age}`).toBe(true)
    }
    await shot(page, 'chart-point-users-attributes.png')
    expect(c.problems).toEqual([])
    await page.context().close()
  }, 120_000)
})
