import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openView, startBrowserTest } from '../helpers/browser'
import { eventually, type TestServer } from '../helpers/server'

/** After a reload the project's token comes with the project list: the Cohorts view asks nothing before it. */

let server: TestServer
let browser: Browser
let stop: () => Promise<void>
let headers: { appKey: string; token: string }
let cohortId: number

beforeAll(async () => {
  ;({ server, browser, stop } = await startBrowserTest())
  headers = server.project
  const job = await server.call('POST', '/uba/api/import/sample', { headers, body: { users: 60, days: 7 } })
  expect(job.status).toBe(200)
  await eventually(async () => (await server.call('GET', `/uba/api/import/jobs/${job.body.id}`, { headers })).body.state === 'succeeded', 60_000)
  const rule = { ruleGroup: [{ relation: 'AND', rules: [{ type: 'user', expression: 'user.xwho', function: 'NOT_NULL', params: [] }] }], relations: [] }
  const made = await server.call('POST', '/uba/api/cohort', { headers, body: { name: 'Everyone here', dynamic: 0, content: rule } })
  expect(made.status).toBe(200)
  cohortId = made.body.id
  await eventually(async () => (await server.call('GET', `/uba/api/cohort/${cohortId}`, { headers })).body.status === 'success', 30_000)
}, 90_000)

afterAll(() => stop?.())

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
    const { page, problems } = await openView(browser, server, 'Cohorts', { watch: (p) => void (unauthorised = refusals(p)) })
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
    const { page, problems } = await openView(browser, server, 'Cohorts', { hash: `#/cohorts?id=${cohortId}`, heading: 'Everyone here', watch: (p) => void (unauthorised = refusals(p)) })
    await page.getByTestId('members-table').waitFor()
    await page.reload()
    await page.getByRole('heading', { name: 'Everyone here', level: 1 }).waitFor()
    await page.getByTestId('members-table').locator('tbody tr').first().waitFor()
    expect(unauthorised).toEqual([])
    expect(problems, problems.join('\n')).toEqual([])
    await page.context().close()
  }, 60_000)
})
