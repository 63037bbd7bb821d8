import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { useBrowserTest } from '../helpers/browserTest'
import { answerOf, openCharts, pick, ready, shot } from './chartsPage'

const ui = useBrowserTest({ sample: { users: 300, days: 30 } })

const cellOf = (page: import('playwright-core').Page, r: number, col: number) => page.locator('[data-testid=result-table] tbody tr').nth(r).locator('th, td').nth(col)
const count = async (page: import('playwright-core').Page) => Number((await page.getByTestId('cell-count').textContent())?.replace(/,/g, ''))

describe('the users behind a number of the funnel and retention tables', () => {
  it('a funnel step’s dropped-off users: the same count as the table, each a link to People, saved as a cohort of exactly them', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await page.getByRole('tab', { name: 'Funnels' }).click()
    await pick(page, 'step-0-event', 'view product', 'View product')
    await pick(page, 'step-1-event', 'add to cart', 'Add to cart')
    await ready(page)
    const { api } = await answerOf(ui.server, c, '/uba/api/funnels/analyze')
    const [entered, carted] = api.rows[0].stepsDetail.map((s: any) => s.convertedUser[0])
    expect(entered).toBeGreaterThan(carted)

    // the "1 → 2" rate of the total row: who dropped off after step 1
    await cellOf(page, 0, 3).getByRole('button').click()
    const panel = page.locator('[data-testid=cell-users][data-phase=ready]')
    await panel.waitFor({ timeout: 30_000 })
    expect(await page.getByTestId('cell-title').textContent()).toBe('Users who dropped off after 1. View product')
    expect(await count(page)).toBe(entered - carted)
    expect(await page.getByTestId('cell-check').textContent()).toContain('The same number as the table.')
    expect(await page.getByTestId('cell-user').count()).toBe(Math.min(50, entered - carted))
    const first = await page.getByTestId('cell-user').first().textContent()
    expect(await page.getByTestId('cell-user').first().getAttribute('href')).toBe(`#/people?xwho=${encodeURIComponent(first!)}`)

    // CSV: every dropped-off user, not only the page on screen
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('cell-csv').click()])
    const csv = readFileSync((await download.path())!, 'utf8')
    const csvLines = csv.replace(/^\uFEFF/, '').trimEnd().split('\r\n')
    // with the visible profile properties of the plan, as the cohort members export
    expect(csvLines[0]).toMatch(/^xwho,.*,gender,age,.*,distinct_id$/)
    expect(csvLines).toHaveLength(entered - carted + 1)

    await page.getByTestId('cell-save').click()
    await page.getByTestId('cell-cohort-name').fill('Viewed, never carted')
    await page.getByTestId('cell-cohort-save').click()
    await page.getByTestId('cell-saved').waitFor()
    expect(await page.getByTestId('cell-saved').textContent()).toContain('Viewed, never carted')
    await shot(page, 'cell-users-funnel.png')

    const cohorts = await ui.server.call('GET', '/uba/api/cohort', { headers: ui.server.project })
    const saved = cohorts.body.find((k: any) => k.name === 'Viewed, never carted')
    expect(saved).toMatchObject({ dynamic: 0, status: 'success', userNumber: entered - carted })
    // the same users as the panel lists, not only as many
    const members = await ui.server.call('POST', '/uba/api/cohort/users', { headers: ui.server.project, body: { cohortCode: saved.code, properties: [], limit: 10000 } })
    const listed = await ui.server.call('POST', '/uba/api/funnels/users', { headers: ui.server.project, body: { ...JSON.parse(c.requests.at(-1)!.postData()!), cell: { step: 0, outcome: 'dropped' }, pageSize: 10000, properties: [] } })
    expect(members.body.users.map((u: any) => u.xwho)).toEqual(listed.body.users.map((u: any) => u.xwho))

    // the switch shows who did reach step 1 instead
    expect(await page.getByTestId('cell-choice').allTextContents()).toEqual(['Dropped off', 'Reached'])
    await page.getByTestId('cell-choice').nth(1).click()
    await expect.poll(() => count(page)).toBe(entered)
    expect(c.problems).toEqual([])
    await page.context().close()
  })

  it('a retention cell: who returned, and who did not, on day 1 of the first cohort day', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await page.getByRole('tab', { name: 'Retention' }).click()
    await pick(page, 'first-event', 'sign up', 'Sign up')
    await page.getByTestId('range-last7').click()
    await ready(page)
    const { api } = await answerOf(ui.server, c, '/uba/api/retentions/analyze')
    const row = api.rows[1]
    expect(row.totalPeople).toBeGreaterThan(0)

    await cellOf(page, 1, 3).getByRole('button').click()
    await page.locator('[data-testid=cell-users][data-phase=ready]').waitFor({ timeout: 30_000 })
    expect(await page.getByTestId('cell-title').textContent()).toBe('Users who came back (Any event), day 1')
    expect(await count(page)).toBe(row.retentionPeoples[1])
    expect(await page.getByTestId('cell-check').textContent()).toContain('The same number as the table.')
    await page.getByTestId('cell-choice').nth(1).click()
    await expect.poll(() => count(page)).toBe(row.totalPeople - row.retentionPeoples[1])
    await shot(page, 'cell-users-retention.png')
    await page.getByTestId('cell-close').click()
    await page.getByTestId('cell-users').waitFor({ state: 'detached' })
    expect(c.problems).toEqual([])
    await page.context().close()
  })
})
