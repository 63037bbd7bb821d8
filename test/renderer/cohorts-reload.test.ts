import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { openView } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'
import { eventually } from '../helpers/server'

/** After a reload the project's token comes with the project list: the Cohorts view asks nothing before it. */

const ui = useBrowserTest({ sample: { users: 60, days: 7 } })
let headers: { appKey: string; token: string }
let cohortId: number

beforeAll(async () => {
  headers = ui.server.project
  const rule = { ruleGroup: [{ relation: 'AND', rules: [{ type: 'user', expression: 'user.xwho', function: 'NOT_NULL', params: [] }] }], relations: [] }
  const made = await ui.server.call('POST', '/uba/api/cohort', { headers, body: { name: 'Everyone here', dynamic: 0, content: rule } })
  expect(made.status).toBe(200)
  cohortId = made.body.id
  await eventually(async () => (await ui.server.call('GET', `/uba/api/cohort/${cohortId}`, { headers })).body.status === 'success', 30_000)
}, 90_000)

/** Every answer of the page's API calls that said 401, by address. */
function refusals(page: Page): string[] {
  const seen: string[] = []
  page.on('response', (res) => {
    if (res.status() === 401) seen.push(new URL(res.url()).pathname)
  })
  return seen
}

describe('Cohorts: a reload', () => {
  it('shows the list again without a single 401', async () => {
    let unauthorised: string[] = []
    const { page, problems } = await openView(ui.browser, ui.server, 'Cohorts', { watch: (p) => void (unauthorised = refusals(p)) })
    await page.getByTestId('cohort-list').getByText('Everyone here').waitFor()
    await page.reload()
    await page.getByRole('heading', { name: 'Cohorts', level: 1 }).waitFor()
    await page.getByTestId('cohort-list').getByText('Everyone here').waitFor()
    // the list, then the names the builder offers: both read once the token is there
    await eventually(async () => (await page.getByTestId('cohort-size').count()) === 1)
    expect(unauthorised).toEqual([])
    expect(problems, problems.join('\n')).toEqual([])
    await page.context().close()
  }, 60_000)

  it('a cohort reloaded on its own address shows its members without a 401', async () => {
    let unauthorised: string[] = []
    const { page, problems } = await openView(ui.browser, ui.server, 'Cohorts', { hash: `#/cohorts?id=${cohortId}`, heading: 'Everyone here', watch: (p) => void (unauthorised = refusals(p)) })
    await page.getByTestId('members-table').waitFor()
    await page.reload()
    await page.getByRole('heading', { name: 'Everyone here', level: 1 }).waitFor()
    await page.getByTestId('members-table').locator('tbody tr').first().waitFor()
    expect(unauthorised).toEqual([])
    expect(problems, problems.join('\n')).toEqual([])
    await page.context().close()
  }, 60_000)
})
