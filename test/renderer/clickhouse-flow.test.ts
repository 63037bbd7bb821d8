import { join } from 'node:path'
import type { Page, Request } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { clickhouseAvailable } from '../helpers/clickhouse'
import { openView, RESULTS } from '../helpers/browser'
import { newProject } from '../helpers/ingest'
import { eventually, type TestServer } from '../helpers/server'
import { pick, ready, tableValues } from './chartsPage'
import { fillServer, tryConnection, useClickHouseBrowser } from './settingsPage'

/**
 * Issue 22's flow, as a user does it: a ClickHouse project made in Settings, the sample loaded into
 * it from the Import view, the same sample in a DuckDB project, and the same funnel built in the
 * Charts view on both shows the same users per step, which are the API's answer to that funnel.
 */

const ZONE = 'Europe/Paris'
// small: the sample must load within the test's time on a loaded 2-core machine
const USERS = 400
const DAYS = 14
const STEPS = [
  ['view_product', 'View product'],
  ['add_to_cart', 'Add to cart'],
  ['pay', 'Pay'],
] as const

type Project = { appKey: string; token: string }

/** The users column of the steps table's total row: steps 1, 2, 3 (cells 1, 2 and 4; 3 is a rate). */
async function stepUsers(page: Page): Promise<string[]> {
  const [total] = await tableValues(page)
  return [total[1], total[2], total[4]]
}

/** Builds the funnel in the Charts view of the current project; `from`..`to` the range. */
async function buildFunnel(page: Page, from: string, to: string): Promise<void> {
  await page.getByRole('link', { name: 'Charts' }).click()
  await page.getByRole('heading', { name: 'Charts', level: 1 }).waitFor()
  await page.getByRole('tab', { name: 'Funnels' }).click()
  await page.getByTestId('range-custom').click()
  await page.getByTestId('range-from').fill(from)
  await page.getByTestId('range-to').fill(to)
  await pick(page, 'step-0-event', STEPS[0][0], STEPS[0][1])
  await pick(page, 'step-1-event', STEPS[1][0], STEPS[1][1])
  if ((await page.getByTestId('step-2').count()) === 0) await page.getByTestId('add-step').click()
  await pick(page, 'step-2-event', STEPS[2][0], STEPS[2][1])
  await page.getByTestId('convert-time').fill('7')
  await page.getByLabel('Conversion window unit').selectOption('DAY')
  await ready(page)
}

/** The last funnel request the page sent for `project`, asked again through the API: its users per step. */
async function apiSteps(server: TestServer, requests: Request[], project: Project): Promise<{ body: any; steps: number[] }> {
  const sent = requests.filter((r) => r.url().includes('/uba/api/funnels/analyze') && r.headers().appkey === project.appKey).at(-1)
  if (!sent) throw new Error(`no funnel request for ${project.appKey}`)
  const body = JSON.parse(sent.postData() ?? '{}')
  const api = await server.call('POST', '/uba/api/funnels/analyze', { headers: project, body })
  expect(api.status, JSON.stringify(api.body)).toBe(200)
  return { body, steps: api.body.rows[0].stepsDetail.map((s: any) => s.convertedUser[0]) }
}

describe.skipIf(!clickhouseAvailable())('a ClickHouse project from Settings to a funnel, beside DuckDB (real clickhouse-server 18.16)', () => {
  const ui = useClickHouseBrowser()
  const x = () => ({ xtoken: ui.server.creds.xtoken })

  it('creates the project, loads the sample, and its funnel shows the DuckDB twin\'s and the API\'s numbers', async () => {
    // the DuckDB twin exists before the page loads, so the project switcher lists it
    const duck = await newProject(ui.server, 'flowduck', ZONE)
    const requests: Request[] = []
    const { page, problems } = await openView(ui.browser, ui.server, null, {
      timezoneId: ZONE,
      viewport: { width: 1280, height: 900 },
      watch: (p) => p.on('request', (r) => {
        if (r.url().includes('/analyze')) requests.push(r)
      }),
    })

    // 1. Settings: New project on the ClickHouse server, its connection tried, then created
    await page.getByTestId('new-project').click()
    const dialog = page.getByRole('dialog', { name: 'New project' })
    await dialog.waitFor()
    await page.getByTestId('new-project-name').fill('ShopOnClickHouse')
    await page.getByText('ClickHouse server', { exact: true }).click()
    await fillServer(dialog, { url: ui.clickhouse.url, database: 'uba_flow', user: 'default' })
    await tryConnection(page, 'uba_flow')
    await page.getByTestId('new-project-create').click()
    await dialog.waitFor({ state: 'hidden', timeout: 60_000 })
    await page.getByTestId('project-name').filter({ hasText: 'ShopOnClickHouse' }).waitFor()
    await page.getByTestId('project-engine').filter({ hasText: 'ClickHouse' }).waitFor()
    const list = (await ui.server.call('GET', '/uba/manage/enterprise/projects', { headers: x() })).body as any[]
    const made = list.find((p) => p.cname === 'ShopOnClickHouse')
    expect(made).toMatchObject({ warehouse: { engine: 'clickhouse', url: ui.clickhouse.url, database: 'uba_flow' } })
    const house: Project = { appKey: made.appKey, token: made.normalToken }
    const detail = await ui.server.call('GET', `/uba/manage/enterprise/projects/${house.appKey}`, { headers: x() })
    expect(detail.body.timeZone).toBe(ZONE)

    // 2. the sample into it from the Import view
    await page.getByRole('link', { name: 'Import' }).click()
    await page.getByRole('heading', { name: 'Load sample data' }).waitFor()
    await page.getByTestId('sample-users').fill(String(USERS))
    await page.getByTestId('sample-days').fill(String(DAYS))
    await page.getByTestId('sample-start').click()
    await page.getByTestId('sample-result').waitFor({ timeout: 240_000 })
    const overview = (await ui.server.call('GET', '/uba/api/project', { headers: house })).body
    expect(overview.users).toBe(USERS)
    expect(overview.events).toBeGreaterThan(0)

    // 3. the very same sample (the job's own options: users, days, seed, end day) into the DuckDB project
    const options = JSON.parse(ui.server.app.ctx.meta.prepare(`SELECT options FROM import_jobs WHERE app_key = ? AND kind = 'sample'`).pluck().get(house.appKey) as string)
    expect(options).toMatchObject({ users: USERS, days: DAYS })
    const started = await ui.server.call('POST', '/uba/api/import/sample', { headers: duck, body: { users: options.users, days: options.days, seed: options.seed, endDate: options.endDate } })
    expect(started.status, JSON.stringify(started.body)).toBe(200)
    let job: any
    await eventually(async () => {
      job = (await ui.server.call('GET', `/uba/api/import/jobs/${started.body.id}`, { headers: duck })).body
      return !['queued', 'running'].includes(job.state)
    }, 240_000)
    expect(job.state).toBe('succeeded')
    const duckOverview = (await ui.server.call('GET', '/uba/api/project', { headers: duck })).body
    expect([duckOverview.users, duckOverview.events, duckOverview.firstDay, duckOverview.lastDay]).toEqual([overview.users, overview.events, overview.firstDay, overview.lastDay])

    // 4. the same funnel on both, over the sample's days
    await buildFunnel(page, overview.firstDay, overview.lastDay)
    const onHouse = await stepUsers(page)
    const houseApi = await apiSteps(ui.server, requests, house)
    expect(houseApi.body).toMatchObject({ convertTime: 7, convertTimeUnit: 'DAY' })
    expect(onHouse).toEqual(houseApi.steps.map(String))
    expect(houseApi.steps[2]).toBeGreaterThan(0)
    // 5. what a user sees on the ClickHouse project
    await page.waitForTimeout(400) // the chart's entry animation
    await page.screenshot({ path: join(RESULTS, 'clickhouse-flow-funnel.png'), fullPage: true })

    await page.getByTestId('sidebar-project').selectOption(duck.appKey)
    await buildFunnel(page, overview.firstDay, overview.lastDay)
    await expect.poll(async () => (await apiSteps(ui.server, requests, duck).catch(() => null))?.steps, { timeout: 60_000 }).toBeDefined()
    await ready(page)
    const onDuck = await stepUsers(page)
    const duckApi = await apiSteps(ui.server, requests, duck)
    expect(duckApi.body).toEqual(houseApi.body)
    expect(onDuck).toEqual(duckApi.steps.map(String))
    expect(onDuck).toEqual(onHouse)
    expect(problems).toEqual([])
    await page.context().close()
  }, 600_000)
})
