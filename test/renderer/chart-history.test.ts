import type { Page, Route } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { useBrowserTest } from '../helpers/browserTest'
import { eventually } from '../helpers/server'
import { openCharts, pick, ready, shot } from './chartsPage'

const ui = useBrowserTest({ sample: { users: 60, days: 14 } })

const historyLength = (page: Page) => page.evaluate<number>('history.length')
/** The chart state the address holds (its `q`), decoded. */
const addressed = (page: Page) => decodeURIComponent(page.url())
const status = (page: Page) => page.getByTestId('chart-card').first().getAttribute('data-status')

/** Waits until the address holds a chart whose state contains `text` and that is no longer `before`. */
async function addressSettles(page: Page, before: string, text: string): Promise<string> {
  await eventually(async () => page.url() !== before && addressed(page).includes(text))
  return page.url()
}

describe('the chart address keeps one history entry per run', () => {
  it('adds the entry of an edit whose run is still being computed, and Back shows the chart before it', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await ready(page)
    const initial = page.url()
    await pick(page, 'measure-0-event', 'pay', 'Pay')
    await ready(page)
    const paid = await addressSettles(page, initial, '"pay"')
    const before = await historyLength(page)

    // the next run is held by the test until the address has been written: a run slower than the settle window
    const held: Route[] = []
    await page.route('**/uba/api/events/analyze*', (route) => void held.push(route))
    await pick(page, 'breakdown', 'platform', 'Platform')
    await eventually(async () => held.length > 0)
    const broken = await addressSettles(page, paid, '$platform')
    expect(await status(page)).toBe('loading')
    expect(await historyLength(page)).toBe(before + 1)

    for (const route of held) await route.continue()
    await page.unroute('**/uba/api/events/analyze*')
    await ready(page)
    expect(page.url()).toBe(broken)
    expect(await historyLength(page)).toBe(before + 1)

    await page.goBack()
    await eventually(async () => page.url() === paid)
    await eventually(async () => !(await page.getByTestId('breakdown').first().textContent())?.includes('Platform'))
    await ready(page)
    expect(c.problems).toEqual([])
    await page.context().close()
  })

  it('keeps the entry of a run when the next edit leaves the query incomplete for a while (a funnel step added, then picked)', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await page.getByRole('tab', { name: 'Funnels' }).click()
    await pick(page, 'step-0-event', 'view product', 'View product')
    await pick(page, 'step-1-event', 'pay', 'Pay')
    await ready(page)
    const twoSteps = await addressSettles(page, '', '"pay"')
    expect(twoSteps).toContain('#/charts/funnels?q=')
    const before = await historyLength(page)

    // the new step has no event yet: no query, and the address takes the edit once it settles
    await page.getByTestId('add-step').click()
    const incomplete = await addressSettles(page, twoSteps, '"eventId":""')
    expect(await status(page)).toBe('missing')

    // the run of the completed step is held until its address is written
    const held: Route[] = []
    await page.route('**/uba/api/funnels/analyze*', (route) => void held.push(route))
    await pick(page, 'step-2-event', 'pay', 'Pay')
    await eventually(async () => held.length > 0)
    const threeSteps = await addressSettles(page, incomplete, '"pay"')
    expect(addressed(page)).not.toContain('"eventId":""')
    for (const route of held) await route.continue()
    await page.unroute('**/uba/api/funnels/analyze*')
    await ready(page)
    // one run, one entry: the incomplete funnel in between is not a chart of its own
    expect(await historyLength(page)).toBe(before + 1)
    expect(page.url()).toBe(threeSteps)
    await shot(page, 'chart-history-three-steps.png')

    await page.goBack()
    await eventually(async () => page.url() !== threeSteps)
    expect(addressed(page)).toBe(decodeURIComponent(twoSteps))
    await page.getByTestId('step-2-event').waitFor({ state: 'detached' })
    await ready(page)
    expect(await page.getByTestId('step-1-event').textContent()).toContain('Pay')
    expect(c.problems).toEqual([])
    await page.context().close()
  })
})
