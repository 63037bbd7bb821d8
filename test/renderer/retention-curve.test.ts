import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { useBrowserTest } from '../helpers/browserTest'
import { answerOf, openCharts, pick, raw, ready, shot, tableValues } from './chartsPage'

// 100 days: a 90-day range followed for 90 days has data to colour
const ui = useBrowserTest({ sample: { users: 300, days: 100, wait: 90_000 } })

/** The text of the chart's tooltip after hovering a point of the chart (x, y as shares of its box). */
async function tooltipAt(page: Page, x: number, y: number): Promise<string> {
  const box = await page.locator('.echart').boundingBox()
  if (!box) throw new Error('no chart')
  await page.mouse.move(box.x + box.width * x, box.y + box.height * y)
  const tip = page.locator('.echart div').filter({ hasText: 'users' }).last()
  await tip.waitFor({ state: 'visible' })
  return (await tip.textContent()) ?? ''
}

describe('retention in the Charts view', () => {
  it('draws a retention curve on or after each day, the percentages of the API answer', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await page.getByRole('tab', { name: 'Retention' }).click()
    await pick(page, 'first-event', 'sign up', 'Sign up')
    await page.getByTestId('range-last30').click()
    await page.getByTestId('retention-mode').selectOption('onOrAfter')
    await page.getByTestId('first-time').check()
    await ready(page)
    const { body, api } = await answerOf(ui.server, c, '/uba/api/retentions/analyze')
    expect(body).toMatchObject({ firstEvent: { expression: 'event.sign_up' }, retentionMode: 'onOrAfter', firstTime: true, duration: 7 })
    const all = api.rows[0]
    expect(all.totalPeople).toBeGreaterThan(0)
    // on or after: a row never grows with the offset
    for (const row of api.rows) {
      const seen = row.retentionPeoples.filter((n: number | null) => n !== null)
      expect(seen).toEqual([...seen].sort((a: number, b: number) => b - a))
    }

    expect(await page.getByTestId('chart-title').textContent()).toBe('Retention: Sign up (first time) → Any event, on or after')
    const sent = c.requests.length
    await page.getByTestId('retention-curve').click()
    await expect.poll(() => page.getByTestId('retention-curve').getAttribute('aria-pressed')).toBe('true')
    // a view of the same answer: nothing is asked again, the table stays the answer's
    expect(c.requests.length).toBe(sent)
    expect((await tableValues(page)).map((r) => r.slice(1))).toEqual(api.rows.map((row: any) => [raw(row.totalPeople), ...row.retentionPeoples.map(raw)]))

    // the tooltip at the middle of the curve names the day and the share of all users back then
    const tip = await tooltipAt(page, 0.5, 0.5)
    const k = Number(/Day (\d+)/.exec(tip)?.[1])
    expect(k).toBeGreaterThanOrEqual(0)
    const share = `${((all.retentionPeoples[k] / all.totalPeople) * 100).toFixed(1)}%`
    expect(tip).toContain(`All users ${share}`)
    expect(tip).toContain(`${all.retentionPeoples[k]} of ${all.totalPeople} users`)
    expect(tip).toContain('came back at +k or later')
    await shot(page, 'charts-retention-curve.png')

    // the "All users" row says how it de-duplicates
    const allCell = page.locator('[data-testid=result-table] tbody tr').first().locator('th span')
    expect(await allCell.getAttribute('title')).toContain('Each user counted once')
    expect(c.problems).toEqual([])
    await page.context().close()
  })

  it('draws a curve per breakdown value next to all users', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await page.getByRole('tab', { name: 'Retention' }).click()
    await pick(page, 'first-event', 'sign up', 'Sign up')
    await page.getByTestId('range-last30').click()
    await pick(page, 'breakdown', 'platform', 'Platform')
    await page.getByTestId('retention-curve').click()
    await ready(page)
    const { api } = await answerOf(ui.server, c, '/uba/api/retentions/analyze')
    expect(api.rows.length).toBeGreaterThan(2)
    // the legend names all users and each value
    const tip = await tooltipAt(page, 0.3, 0.6)
    for (const row of api.rows.slice(0, 10)) expect(tip).toContain(row.byValue === '$ALL' ? 'All users' : row.byValue)
    await shot(page, 'charts-retention-curve-by.png')
    expect(c.problems).toEqual([])
    await page.context().close()
  })

  it('shows numbers in the heatmap at 90 days, scrolling through cohorts and offsets', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await page.getByRole('tab', { name: 'Retention' }).click()
    await pick(page, 'first-event', 'sign up', 'Sign up')
    await page.getByTestId('range-last90').click()
    await page.getByTestId('duration').fill('90')
    await ready(page)
    const { body, api } = await answerOf(ui.server, c, '/uba/api/retentions/analyze')
    expect(body.duration).toBe(90)
    expect(api.rows.length).toBe(91)
    expect(await page.getByTestId('retention-heatmap').getAttribute('aria-pressed')).toBe('true')
    const tip = await tooltipAt(page, 0.3, 0.15)
    expect(tip).toMatch(/Day \d+/)
    await shot(page, 'charts-retention-90.png')
    expect(c.problems).toEqual([])
    await page.context().close()
  })
})
