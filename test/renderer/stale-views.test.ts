import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { openView } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'
import { eventually } from '../helpers/server'
import { openCharts, pick, ready, tableValues } from './chartsPage'

/** What a view shows must belong to the project, analysis and cohorts of now, not of before. */

const ui = useBrowserTest({ sample: { users: 200, days: 14 } })
let headers: { appKey: string; token: string }

beforeAll(() => {
  headers = ui.server.project
})

type CohortRow = { id: number; name: string; code: string; status: string }
const cohorts = async (): Promise<CohortRow[]> => (await ui.server.call('GET', '/uba/api/cohort', { headers })).body

/** The crowds the Users picker offers now (it is closed again after reading). */
async function offeredCrowds(page: Page): Promise<string[]> {
  await page.getByTestId('crowd').click()
  const options = page.getByRole('listbox', { name: 'Users' }).getByRole('option')
  await options.first().waitFor()
  const names = (await options.allTextContents()).map((t) => t.trim())
  await page.keyboard.press('Escape')
  return names
}

/** An option shows the cohort's name, then its size. */
const offers = (options: string[], name: string): boolean => options.some((o) => o.startsWith(name))

async function openUsers(page: Page): Promise<void> {
  await pick(page, 'measure-0-event', 'pay', 'Pay')
  await pick(page, 'breakdown', 'platform', 'Platform')
  await ready(page)
  const rows = await tableValues(page)
  const col = rows[0].findIndex((v, i) => i > 2 && Number(v) > 0)
  await page.locator('[data-testid=result-table] tbody tr').first().locator('th, td').nth(col).getByRole('button').click()
  await page.locator('[data-testid=cell-users][data-phase=ready]').waitFor({ timeout: 30_000 })
}

describe('Charts: the crowds and the users of a cell follow what changed', () => {
  it('a cohort saved from the users of an event cell is offered as a crowd at once', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await ready(page)
    await openUsers(page)
    // a visit to a user and back: the users are still open
    await page.getByTestId('cell-user').first().click()
    await page.getByTestId('profile-xwho').waitFor()
    await page.goBack()
    await page.locator('[data-testid=cell-users][data-phase=ready]').waitFor()
    expect(offers(await offeredCrowds(page), 'Payers of one day')).toBe(false)
    await page.getByTestId('cell-save').click()
    await page.getByTestId('cell-cohort-name').fill('Payers of one day')
    await page.getByTestId('cell-cohort-save').click()
    await page.getByTestId('cell-saved').waitFor()
    await expect.poll(async () => offers(await offeredCrowds(page), 'Payers of one day')).toBe(true)
    const saved = (await cohorts()).find((k) => k.name === 'Payers of one day')!
    expect((await ui.server.call('DELETE', `/uba/api/cohort/${saved.id}`, { headers })).status).toBe(200)
    expect(c.problems).toEqual([])
    await page.context().close()
  }, 120_000)

  it('a crowd deleted by another tool: the refusal replaces the numbers, and the picker drops the cohort', async () => {
    const rule = { ruleGroup: [{ relation: 'AND', rules: [{ type: 'user', expression: 'user.membership_level', function: 'EQ', params: ['gold'] }] }], relations: [] }
    const cohort = await ui.server.call('POST', '/uba/api/cohort', { headers, body: { name: 'Gold members', dynamic: 0, content: rule } })
    expect(cohort.status).toBe(200)
    await eventually(async () => (await ui.server.call('GET', `/uba/api/cohort/${cohort.body.id}`, { headers })).body.status === 'success', 30_000)
    const { page, problems } = await openCharts(ui.browser, ui.server, 'light')
    await pick(page, 'crowd', 'gold', 'Gold members')
    await ready(page)
    expect(await page.getByTestId('result-table').count()).toBe(1)

    expect((await ui.server.call('DELETE', `/uba/api/cohort/${cohort.body.id}`, { headers })).status).toBe(200)
    await page.getByTestId('unit').selectOption('WEEK')
    const error = page.getByTestId('chart-error')
    await error.waitFor()
    expect(await error.textContent()).toContain(`crowds[0]`)
    // the day-by-day numbers of before are gone, not shown faded under the refusal
    expect(await page.getByTestId('result-table').count()).toBe(0)
    await expect.poll(() => offeredCrowds(page)).toEqual(['All users'])
    expect(problems.filter((p) => !p.includes('status of 400'))).toEqual([])
    await page.context().close()
  }, 60_000)

  it('the users of a cell close when another analysis is chosen', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await ready(page)
    await openUsers(page)
    await page.getByRole('tab', { name: 'Funnels' }).click()
    await page.getByTestId('cell-users').waitFor({ state: 'detached' })
    expect(c.problems).toEqual([])
    await page.context().close()
  }, 120_000)
})

describe('People: switching project', () => {
  it('a new, empty project shows none of the project before’s users, and its address names none', async () => {
    const x = { xtoken: ui.server.creds.xtoken }
    expect((await ui.server.call('POST', '/uba/manage/enterprise/projects', { headers: x, body: { appKey: 'empty1', name: 'Empty' } })).status).toBe(200)
    await eventually(async () => (await ui.server.call('GET', '/uba/manage/enterprise/projects/empty1', { headers: x })).body.finish === true, 30_000)
    const { page, problems } = await openView(ui.browser, ui.server, 'People')
    const active = page.getByTestId('active-user')
    await active.first().waitFor()
    const xwho = ((await active.first().locator('.id').textContent()) ?? '').trim()
    await active.first().click()
    await page.getByTestId('profile-xwho').filter({ hasText: xwho }).waitFor()

    await page.getByTestId('sidebar-project').selectOption('empty1')
    await page.getByText('Open a user by their id').waitFor()
    await expect.poll(() => page.url()).not.toContain('xwho')
    expect(await page.getByTestId('profile-error').count()).toBe(0)
    expect(await active.count()).toBe(0)
    expect(problems, problems.join('\n')).toEqual([])
    await page.reload()
    await page.getByText('Open a user by their id').waitFor()
    expect(await page.getByTestId('profile-error').count()).toBe(0)
    expect(await active.count()).toBe(0)
    expect(problems, problems.join('\n')).toEqual([])
    await page.context().close()
  }, 60_000)
})
