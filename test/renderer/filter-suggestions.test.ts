import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openView, RESULTS } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'
import type { Request } from 'playwright-core'
import { openCharts, pick, raw, ready, tableValues } from './chartsPage'

const ui = useBrowserTest({ sample: { users: 300, days: 30 } })

const valuesOf = async (expression: string, search = '') =>
  (await ui.server.call('GET', `/uba/api/meta/propertyValues?expression=${encodeURIComponent(expression)}&search=${encodeURIComponent(search)}`, { headers: ui.server.project })).body
const en = new Intl.NumberFormat('en')

describe('values to pick from', () => {
  it('a chart filter is filled from the suggested values (with their counts, searched, two picked, typing kept) and the chart runs with it', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await ready(page)
    await pick(page, 'measure-0-event', 'pay', 'Pay')
    await ready(page)

    const filter = page.getByTestId('global-filter')
    await filter.getByRole('button', { name: '+ Filter' }).click()
    const popover = filter.locator('.popover')
    await popover.getByRole('combobox').fill('platform')
    // an event property and a user property are both named Platform: each says which it is
    const names = await popover.getByRole('option').locator('.label').allTextContents()
    expect(names).toContain('Platform · event')
    expect(names).toContain('Platform · user')
    await popover.getByRole('option').filter({ has: page.locator('.label', { hasText: /^Platform · event$/ }) }).click()
    expect(await filter.getByRole('button', { name: /Filter 1 property/ }).textContent()).toContain('Platform · event')

    // the values, most frequent first, with the counts the API gives
    const api = await valuesOf('event.$Anything.$platform')
    expect(api.values.length).toBe(3)
    const value = filter.getByRole('textbox', { name: 'Filter 1 value' })
    await value.click()
    const list = filter.getByRole('listbox', { name: 'Values of event.$Anything.$platform' })
    await list.waitFor()
    await expect.poll(() => list.getByRole('option').allTextContents()).toEqual(api.values.map((v: any) => `${v.value}${en.format(v.count)}`))
    await page.screenshot({ path: join(RESULTS, 'filter-suggestions.png') })

    // typed text narrows the list (any letter case); a click picks, and a second value may follow
    await value.pressSequentially('AN')
    await expect.poll(() => list.getByRole('option').allTextContents()).toEqual([`Android${en.format(api.values.find((v: any) => v.value === 'Android').count)}`])
    await list.getByRole('option', { name: /Android/ }).click()
    await expect.poll(() => list.getByRole('option').count()).toBe(3)
    const second = api.values.find((v: any) => v.value !== 'Android').value
    // the keyboard picks too: arrows down to it, Enter
    for (let i = 0; i <= api.values.findIndex((v: any) => v.value === second); i++) await value.press('ArrowDown')
    await value.press('Enter')
    await expect.poll(() => list.locator('[aria-selected=true]').count()).toBe(2)
    const paramsOf = (r: Request) => JSON.parse(r.postData() ?? '{}').filter?.conditions?.[0]?.params
    const sentFor = (params: string[]) => c.requests.find((r) => JSON.stringify(paramsOf(r)) === JSON.stringify(params))
    await expect.poll(() => sentFor(['Android', second]) !== undefined).toBe(true)
    await ready(page)
    // a value of one's own can still be typed; its chart is still computing when the value is removed again
    // (held here, as a loaded machine does): the chart goes back to the answer it had, not to that run's
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    await page.route('**/analyze*', async (route) => {
      if (JSON.stringify(paramsOf(route.request())).includes('Linux')) await held
      await route.continue().catch(() => undefined)
    })
    await value.fill('Linux')
    await value.press('Enter')
    await expect.poll(() => sentFor(['Android', second, 'Linux']) !== undefined).toBe(true)
    // the run for Linux is called off on the server, and its answer is not taken
    const cancelled = page.waitForRequest((r) => r.method() === 'DELETE' && r.url().includes('/uba/api/analyses/'))
    await filter.getByRole('button', { name: 'Remove Linux' }).click()
    await cancelled
    release()
    expect(await sentFor(['Android', second, 'Linux'])!.response()).toBeNull()
    await ready(page)
    const body = JSON.parse(sentFor(['Android', second])!.postData()!)
    expect(body.filter).toEqual({ relation: 'AND', conditions: [{ expression: 'event.$Anything.$platform', function: 'EQ', params: ['Android', second] }] })
    const { body: answer } = await ui.server.call('POST', '/uba/api/events/analyze', { headers: ui.server.project, body })
    const expected = answer.rows.map((row: any) => [raw(row.sum[0]), ...row.values[0].map(raw)])
    expect((await tableValues(page)).map((cells) => cells.slice(-expected[0].length))).toEqual(expected)
    expect(c.problems).toEqual([])
    await page.context().close()
  })

  it('a cohort rule on a user property offers its values with counts in users', async () => {
    const { page, problems } = await openView(ui.browser, ui.server, 'Cohorts', { hash: '#/cohorts', heading: 'Cohorts', allow400: true })
    await page.getByTestId('cohort-new').click()
    await page.getByRole('heading', { name: 'New cohort', level: 1 }).waitFor()
    const trigger = page.getByTestId('rule-0-0-property')
    if ((await trigger.getAttribute('aria-expanded')) !== 'true') await trigger.click()
    const popover = trigger.locator('xpath=..').locator('.popover')
    await popover.getByRole('combobox').fill('gender')
    await popover.getByRole('option').filter({ has: page.locator('.label', { hasText: /^Gender$/ }) }).click()
    await page.getByTestId('rule-0-0-operator').selectOption('EQ')
    const api = await valuesOf('user.gender')
    const value = page.getByTestId('rule-0-0').getByRole('textbox', { name: 'Group 1 rule 1 value' })
    await value.click()
    const list = page.getByTestId('rule-0-0').getByRole('listbox')
    await expect.poll(() => list.getByRole('option').allTextContents()).toEqual(api.values.map((v: any) => `${v.value}${en.format(v.count)}`))
    await list.getByRole('option', { name: new RegExp(`^${api.values[0].value}`) }).click()
    await page.getByTestId('rule-0-0').getByRole('button', { name: `Remove ${api.values[0].value}` }).waitFor()
    expect(problems).toEqual([])
    await page.context().close()
  })
})
