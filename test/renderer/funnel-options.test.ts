import { beforeAll, describe, expect, it } from 'vitest'
import { useBrowserTest } from '../helpers/browserTest'
import { fixture, importAndWait } from '../helpers/ingest'
import { answerOf, openCharts, pick, ready, shot, tableValues } from './chartsPage'

const ui = useBrowserTest()

const at = (minutes: number) => Date.parse('2024-03-05T12:00:00Z') + minutes * 60_000
const rec = (xwho: string, xwhat: string, minutes: number) => JSON.stringify({ xwho, xwhat, xwhen: at(minutes), xcontext: {} })

/*
 * view_item -> add_cart -> pay_order on 2024-03-05 (12:00 UTC + minutes), window 7 days:
 * p1 view 0, cart 1, pay 5                  -> 3 (300 s)
 * p2 view 0, leave 1, cart 2, pay 3          -> 3, but 1 with leave_site excluded between steps 1 and 2
 * p3 view 0, cart 1                          -> 2
 * p4 view 0, cart 2, leave 3, pay 16:40      -> 3 (1000 s), but 2 with leave_site excluded between steps 2 and 3
 * Excluded over every span: [4, 3, 1] (p1); between steps 1 and 2 only: [4, 3, 2] (p1, p4).
 */
const lines = [
  rec('p1', 'view_item', 0),
  rec('p1', 'add_cart', 1),
  rec('p1', 'pay_order', 5),
  rec('p2', 'view_item', 0),
  rec('p2', 'leave_site', 1),
  rec('p2', 'add_cart', 2),
  rec('p2', 'pay_order', 3),
  rec('p3', 'view_item', 0),
  rec('p3', 'add_cart', 1),
  rec('p4', 'view_item', 0),
  rec('p4', 'add_cart', 2),
  rec('p4', 'leave_site', 3),
  rec('p4', 'pay_order', 16 + 40 / 60),
]

beforeAll(async () => {
  const job = await importAndWait(ui.server, ui.server.project, { path: fixture('funnel.jsonl', lines.join('\n')) })
  expect(job.state).toBe('succeeded')
}, 90_000)

/** The users column of the steps table: step 1, step 2, step 3 (cells 1, 2 and 4; 3 is a rate). */
async function stepUsers(page: Parameters<typeof ready>[0]): Promise<string[]> {
  const [total] = await tableValues(page)
  return [total[1], total[2], total[4]]
}

describe('funnel options in the Charts view', () => {
  it('a funnel with an exclusion counts as computed by hand, then shows its time to convert and its trend', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await page.getByRole('tab', { name: 'Funnels' }).click()
    await page.getByTestId('range-custom').click()
    await page.getByTestId('range-from').fill('2024-03-01')
    await page.getByTestId('range-to').fill('2024-03-07')
    await pick(page, 'step-0-event', 'view_item', 'view_item')
    await pick(page, 'step-1-event', 'add_cart', 'add_cart')
    await page.getByTestId('add-step').click()
    await pick(page, 'step-2-event', 'pay_order', 'pay_order')
    await ready(page)
    expect(await stepUsers(page)).toEqual(['4', '4', '3'])

    // an exclusion over every span (the default): only p1 converts
    await page.getByTestId('add-exclusion').click()
    await page.getByText('Pick an event for exclusion 1.').waitFor()
    await pick(page, 'exclusion-0-event', 'leave_site', 'leave_site')
    await expect.poll(() => stepUsers(page), { timeout: 30_000 }).toEqual(['4', '3', '1'])
    // between steps 1 and 2 only: p4's leave after its cart no longer counts
    await page.getByTestId('exclusion-0-to').selectOption('1')
    await expect.poll(() => stepUsers(page), { timeout: 30_000 }).toEqual(['4', '3', '2'])
    const { body, api } = await answerOf(ui.server, c, '/uba/api/funnels/analyze')
    expect(body.exclusions).toEqual([{ expression: 'event.leave_site', fromStep: 0, toStep: 1 }])
    expect(api.rows[0].stepsDetail.map((s: any) => s.convertedUser[0])).toEqual([4, 3, 2])
    await shot(page, 'funnel-exclusion.png')

    // time to convert: p1 300 s, p4 1000 s; no new query
    const asked = c.requests.length
    await page.getByTestId('funnel-view-time').click()
    await expect.poll(async () => (await tableValues(page)).filter((row) => row[2] !== '0')).toEqual([
      ['5m – 15m', '300', '1', '0.5'],
      ['15m – 30m', '900', '1', '0.5'],
    ])
    expect((await tableValues(page)).map((row) => row[1]).at(-1)).toBe('604800')
    await shot(page, 'funnel-time-to-convert.png')

    // the trend: 2 of 4 over the range and on 03-05; nobody entered the other days
    await page.getByTestId('funnel-view-trend').click()
    await expect.poll(async () => (await tableValues(page))[0]?.slice(0, 2)).toEqual(['All users', '0.5'])
    expect((await tableValues(page))[0]).toEqual(['All users', '0.5', '', '', '', '', '0.5', '', ''])
    await shot(page, 'funnel-trend.png')
    expect(c.requests.length).toBe(asked)

    // strict order: p2's leave between view and cart, p4's between cart and pay interrupt them
    await page.getByTestId('funnel-view-steps').click()
    await page.getByTestId('funnel-order').selectOption('STRICT')
    await expect.poll(() => stepUsers(page), { timeout: 30_000 }).toEqual(['4', '3', '1'])
    expect(c.problems).toEqual([])
    await page.context().close()
  })

  it('a funnel with an exclusion opens its dropped-off users and saves them as a cohort of exactly them', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await page.getByRole('tab', { name: 'Funnels' }).click()
    await page.getByTestId('range-custom').click()
    await page.getByTestId('range-from').fill('2024-03-01')
    await page.getByTestId('range-to').fill('2024-03-07')
    await pick(page, 'step-0-event', 'view_item', 'view_item')
    await pick(page, 'step-1-event', 'add_cart', 'add_cart')
    await page.getByTestId('add-step').click()
    await pick(page, 'step-2-event', 'pay_order', 'pay_order')
    await page.getByTestId('add-exclusion').click()
    await pick(page, 'exclusion-0-event', 'leave_site', 'leave_site')
    await expect.poll(() => stepUsers(page), { timeout: 30_000 }).toEqual(['4', '3', '1'])

    // the "2 → 3" rate of the total row: reached add_cart, then no pay_order without a leave_site
    // between: p3 (never paid) and p4 (left between cart and pay); p1 converted, p2 stopped at step 1
    const rate = page.locator('[data-testid=result-table] tbody tr').first().locator('th, td').nth(5)
    await rate.getByRole('button').click()
    await page.locator('[data-testid=cell-users][data-phase=ready]').waitFor({ timeout: 30_000 })
    expect(await page.getByTestId('cell-count').textContent()).toBe('2')
    expect(await page.getByTestId('cell-user').allTextContents()).toEqual(['p3', 'p4'])
    await page.getByTestId('cell-save').click()
    await page.getByTestId('cell-cohort-name').fill('Carted, excluded or never paid')
    await page.getByTestId('cell-cohort-save').click()
    await page.getByTestId('cell-saved').waitFor()
    await shot(page, 'funnel-exclusion-dropped.png')

    const cohorts = await ui.server.call('GET', '/uba/api/cohort', { headers: ui.server.project })
    const saved = cohorts.body.find((k: any) => k.name === 'Carted, excluded or never paid')
    expect(saved).toMatchObject({ dynamic: 0, userNumber: 2 })
    const members = await ui.server.call('POST', '/uba/api/cohort/users', { headers: ui.server.project, body: { cohortCode: saved.code, properties: [], limit: 100 } })
    expect(members.body.users.map((u: any) => u.xwho).sort()).toEqual(['p3', 'p4'])
    expect(c.problems).toEqual([])
    await page.context().close()
  })
})
