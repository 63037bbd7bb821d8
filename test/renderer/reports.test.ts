import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { openView } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'
import { eventually } from '../helpers/server'
import { answerOf, daysBefore, openCharts, pick, raw, ready, shot, tableValues, today } from './chartsPage'

const ui = useBrowserTest({ sample: { users: 120, days: 30 } })

const listed = async (): Promise<any[]> => (await ui.server.call('GET', '/uba/api/reports', { headers: ui.server.project })).body
const heading = (page: Page, name: string) => page.getByRole('heading', { name, level: 1 }).waitFor()
const historyLength = (page: Page) => page.evaluate<number>('history.length')

async function saveAs(page: Page, name: string | null): Promise<void> {
  await page.getByTestId('save-report').click()
  if (name !== null) await page.getByTestId('report-name').fill(name)
  await page.getByTestId('report-name').press('Enter')
}

async function funnelReport(page: Page, name: string): Promise<void> {
  await page.getByRole('tab', { name: 'Funnels' }).click()
  await pick(page, 'step-0-event', 'view product', 'View product')
  await pick(page, 'step-1-event', 'pay', 'Pay')
  await ready(page)
  await saveAs(page, name)
  await heading(page, name)
}

describe('saved reports in the project', () => {
  it('never overwrites a report from another analysis: Save after switching tab makes a new report, from User attributes and from Events', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await funnelReport(page, 'Checkout funnel by UTM')
    const funnel = (await listed()).find((r) => r.name === 'Checkout funnel by UTM')
    expect(funnel).toMatchObject({ kind: 'funnels', request: { steps: [{ expression: 'event.view_product' }, { expression: 'event.pay' }] } })

    await page.getByRole('tab', { name: 'User attributes' }).click()
    // detached at once: the header no longer names the funnel report
    await heading(page, 'Charts')
    await ready(page)
    await page.getByTestId('save-report').click()
    expect(await page.getByTestId('report-save-confirm').textContent()).toBe('Save')
    await page.getByTestId('report-name').press('Enter')
    await page.getByRole('heading', { name: /^User attributes/, level: 1 }).waitFor()
    await shot(page, 'reports-overwrite-user-attributes.png')

    // the same from the Events tab, starting from the reopened funnel report
    await page.getByTestId('reports-button').click()
    await page.getByTestId('report-Checkout funnel by UTM').click()
    await heading(page, 'Checkout funnel by UTM')
    await page.getByRole('tab', { name: 'Events' }).click()
    await heading(page, 'Charts')
    await ready(page)
    await saveAs(page, 'Unique users per day')
    await heading(page, 'Unique users per day')

    const reports = await listed()
    expect(Object.fromEntries(reports.map((r) => [r.kind, r.name]))).toEqual({
      funnels: 'Checkout funnel by UTM',
      events: 'Unique users per day',
      userAttributes: expect.stringMatching(/^User attributes/),
    })
    // the funnel report is untouched
    expect(reports.find((r) => r.name === 'Checkout funnel by UTM')).toEqual(funnel)

    // Update on a report of the same analysis changes it; a name in use is refused in the form
    await page.getByTestId('reports-button').click()
    await page.getByTestId('report-Checkout funnel by UTM').click()
    await heading(page, 'Checkout funnel by UTM')
    await page.getByTestId('add-step').click()
    await pick(page, 'step-2-event', 'pay', 'Pay')
    await page.getByText('edited, not saved').waitFor()
    await page.getByTestId('save-report').click()
    expect(await page.getByTestId('report-save-confirm').textContent()).toBe('Update')
    await page.getByTestId('report-name').fill('Unique users per day')
    await page.getByTestId('report-name').press('Enter')
    expect(await page.getByTestId('report-save-problem').textContent()).toContain('already exists')
    await page.getByTestId('report-name').fill('Checkout funnel by UTM')
    await page.getByTestId('report-name').press('Enter')
    await eventually(async () => (await listed()).find((r) => r.id === funnel.id).request.steps.length === 3)
    // the header follows the saved report once the server has answered
    await page.getByText('edited, not saved').waitFor({ state: 'detached' })
    expect((await listed()).length).toBe(3)
    expect(c.problems.filter((p) => !p.includes('status of 501'))).toEqual([])
    await page.context().close()
  })

  it('opens a report in a new browser profile, from the list and from a copied link, with the numbers of its saved request', async () => {
    const first = await openCharts(ui.browser, ui.server, 'light')
    await funnelReport(first.page, 'Shared funnel')
    const link = first.page.url()
    expect(link).toMatch(/#\/charts\/report\/\d+$/)
    await first.page.context().close()

    // another profile: nothing in its storage, the report comes from the project
    const other = await openCharts(ui.browser, ui.server, 'dark')
    await other.page.getByTestId('reports-button').click()
    await other.page.getByTestId('report-Shared funnel').click()
    await heading(other.page, 'Shared funnel')
    expect(await other.page.getByRole('tab', { name: 'Funnels' }).getAttribute('aria-selected')).toBe('true')
    expect(await other.page.getByTestId('step-1-event').textContent()).toContain('Pay')
    await ready(other.page)
    const saved = (await listed()).find((r) => r.name === 'Shared funnel')
    const { body, api } = await answerOf(ui.server, other, '/uba/api/funnels/analyze')
    expect(body.steps).toEqual(saved.request.steps)
    expect((await tableValues(other.page))[0].slice(1, 3)).toEqual(api.rows[0].stepsDetail.map((s: any) => String(s.convertedUser[0])))
    await shot(other.page, 'reports-new-profile.png')
    await other.page.context().close()

    const linked = await openView(ui.browser, ui.server, 'Charts', { hash: link.slice(link.indexOf('#')), heading: 'Shared funnel' })
    expect(await linked.page.getByTestId('step-0-event').textContent()).toContain('View product')
    await ready(linked.page)
    expect(linked.problems).toEqual([])
    await linked.page.context().close()
  })

  it('keeps the chart in the address: each run is a history entry, Back and Forward step through them, reload restores', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await ready(page)
    const initial = page.url()
    await pick(page, 'measure-0-event', 'pay', 'Pay')
    await ready(page)
    // the Pay run's own entry, not the first chart's (on a loaded machine it may come after ready)
    await eventually(async () => page.url() !== initial && page.url().includes('#/charts/events?q='))
    const before = await historyLength(page)
    const plain = page.url()
    await pick(page, 'breakdown', 'platform', 'Platform')
    await ready(page)
    await eventually(async () => page.url() !== plain)
    // typing in the picker's search did not add entries: one run, one entry
    expect(await historyLength(page)).toBe(before + 1)
    const broken = page.url()

    await page.goBack()
    await eventually(async () => page.url() === plain)
    await eventually(async () => !(await page.getByTestId('breakdown').first().textContent())?.includes('Platform'))
    await ready(page)
    expect(await page.getByTestId('measure-0-event').textContent()).toContain('Pay')
    await page.goForward()
    await eventually(async () => (await page.getByTestId('breakdown').first().textContent())?.includes('Platform') ?? false)
    await ready(page)

    await page.reload()
    await page.getByRole('tab', { name: 'Events' }).waitFor()
    await ready(page)
    expect(page.url()).toBe(broken)
    expect(await page.getByTestId('breakdown').first().textContent()).toContain('Platform')
    expect(await page.getByTestId('measure-0-event').textContent()).toContain('Pay')
    const sent = c.requests.at(-1)
    expect(JSON.parse(sent?.postData() ?? '{}').byFields).toEqual([{ expression: 'event.$Anything.$platform' }])
    await shot(page, 'reports-reloaded.png')

    // a hand-edited link: fields of another shape take the builder's defaults, the rest is kept
    const edited = JSON.stringify({ definition: { first: null, second: 'x', duration: 14 }, range: { preset: 'soon' } })
    await page.goto(`${ui.server.url}/#/charts/retention?q=${encodeURIComponent(edited)}`)
    await page.getByRole('tab', { name: 'Retention', selected: true }).waitFor()
    await ready(page)
    expect(JSON.parse(c.requests.at(-1)?.postData() ?? '{}')).toMatchObject({ duration: 14, firstEvent: { expression: 'event.$Anything' }, secondEvent: { expression: 'event.$Anything' } })
    expect(c.problems).toEqual([])
    await page.context().close()
  })

  it('moves reports an earlier version kept in the browser into the project, once', async () => {
    const { page, problems } = await openView(ui.browser, ui.server, null)
    const old = {
      id: 'rlocal1',
      name: 'Old local funnel',
      kind: 'funnels',
      definition: {
        steps: [
          { key: 'a', eventId: 'view_product', filter: { relation: 'AND', conditions: [] } },
          { key: 'b', eventId: 'pay', filter: { relation: 'AND', conditions: [] } },
        ],
        filter: { relation: 'AND', conditions: [] },
        breakdown: null,
        byStepIndex: 0,
        convertTime: 3,
        convertTimeUnit: 'DAY',
      },
      range: { preset: 'last30', from: '', to: '' },
      crowd: '$ALL',
      savedAt: 1,
    }
    const key = `uba-desk.reports.${ui.server.project.appKey}`
    await page.evaluate(`localStorage.setItem(${JSON.stringify(key)}, ${JSON.stringify(JSON.stringify([old]))})`)
    await page.getByRole('link', { name: 'Charts' }).click()
    await heading(page, 'Charts')
    await eventually(async () => (await listed()).some((r) => r.name === 'Old local funnel'))
    const moved = (await listed()).find((r) => r.name === 'Old local funnel')
    expect(moved).toMatchObject({ kind: 'funnels', request: { steps: [{ expression: 'event.view_product' }, { expression: 'event.pay' }], convertTime: 3 } })
    expect(await page.evaluate(`localStorage.getItem(${JSON.stringify(key)})`)).toBeNull()

    await page.reload()
    await heading(page, 'Charts')
    await page.getByTestId('reports-button').click()
    await page.getByTestId('report-Old local funnel').click()
    await heading(page, 'Old local funnel')
    await ready(page)
    expect((await listed()).filter((r) => r.name.startsWith('Old local funnel')).length).toBe(1)
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('opens a report whose cohort was deleted, and says why it cannot be computed', async () => {
    const rule = { ruleGroup: [{ relation: 'AND', rules: [{ type: 'user', expression: 'user.xwho', function: 'NOT_NULL', params: [] }] }], relations: [] }
    const cohort = (await ui.server.call('POST', '/uba/api/cohort', { headers: ui.server.project, body: { name: 'Everyone', dynamic: 0, content: rule } })).body
    await eventually(async () => (await ui.server.call('GET', `/uba/api/cohort/${cohort.id}`, { headers: ui.server.project })).body.status !== 'calculating')
    const c = await openCharts(ui.browser, ui.server, 'light')
    await c.page.getByRole('tab', { name: 'Funnels' }).click()
    await pick(c.page, 'step-0-event', 'view product', 'View product')
    await pick(c.page, 'step-1-event', 'pay', 'Pay')
    await pick(c.page, 'crowd', 'Everyone', 'Everyone')
    await ready(c.page)
    await saveAs(c.page, 'Funnel of everyone')
    await heading(c.page, 'Funnel of everyone')
    const link = c.page.url()
    await c.page.context().close()
    expect((await ui.server.call('DELETE', `/uba/api/cohort/${cohort.id}`, { headers: ui.server.project })).status).toBe(200)

    const again = await openView(ui.browser, ui.server, 'Charts', { hash: link.slice(link.indexOf('#')), heading: 'Funnel of everyone', allow400: true })
    const error = again.page.getByTestId('chart-error')
    await error.waitFor()
    expect(await error.textContent()).toContain('The saved report "Funnel of everyone" asks for something the project refuses now')
    await shot(again.page, 'reports-deleted-cohort.png')
    expect(again.problems).toEqual([])
    await again.page.context().close()
  })
  it('shows a dashboard of reports on an overridden date range, each tile with the numbers of its report on that range', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await ready(page)
    await pick(page, 'measure-0-event', 'pay', 'Pay')
    await ready(page)
    await saveAs(page, 'Payers')
    await heading(page, 'Payers')
    await page.getByTestId('add-to-dashboard').click()
    await page.getByTestId('add-dashboard-name').fill('Weekly review')
    await page.getByTestId('add-dashboard-name').press('Enter')
    await page.getByTestId('added-to-dashboard').waitFor()
    await page.getByTestId('add-to-dashboard').click()

    await page.getByRole('tab', { name: 'Funnels' }).click()
    await pick(page, 'step-0-event', 'view product', 'View product')
    await pick(page, 'step-1-event', 'add to cart', 'Add to cart')
    await ready(page)
    await saveAs(page, 'View to cart')
    await heading(page, 'View to cart')
    await page.getByTestId('add-to-dashboard').click()
    await page.getByTestId('dashboard-Weekly review').click()
    await page.getByTestId('added-to-dashboard').getByRole('link', { name: 'Weekly review' }).click()
    await heading(page, 'Weekly review')

    const zone = (await ui.server.call('GET', '/uba/api/project', { headers: ui.server.project })).body.timeZone
    const [from, to] = [daysBefore(today(zone), 12), daysBefore(today(zone), 5)]
    await page.getByTestId('dashboard-from').fill(from)
    await page.getByTestId('dashboard-to').fill(to)
    await page.getByTestId('dashboard-apply-range').click()
    for (const i of [0, 1]) await page.locator(`[data-testid=tile-${i}][data-range="${from}~${to}"][data-status=ready]`).waitFor({ timeout: 30_000 })
    await page.locator('[data-testid=dashboard-progress][data-done="2"][data-total="2"]').waitFor()

    // each report's own request, on the dashboard's range, asked of the API directly
    const reports = await listed()
    const ownOn = async (name: string, kind: string) => {
      const report = reports.find((r) => r.name === name)
      const res = await ui.server.call('POST', `/uba/api/${kind}/analyze`, { headers: ui.server.project, body: { ...report.request, fromDate: from, toDate: to } })
      expect(res.status).toBe(200)
      return res.body
    }
    const tileTable = (i: number) =>
      page.evaluate<string[][]>(`[...document.querySelectorAll('[data-testid=tile-${i}] [data-testid=result-table] tbody tr')].map((tr) => [...tr.children].map((c) => c.getAttribute('data-value')))`)
    const payers = await ownOn('Payers', 'events')
    expect((await tileTable(0))[0].slice(1)).toEqual([raw(payers.rows[0].sum[0]), ...payers.rows[0].values[0].map(raw)])
    expect(payers.series[0]).toBe(from)
    const funnel = await ownOn('View to cart', 'funnels')
    const steps = funnel.rows[0].stepsDetail.map((d: { convertedUser: number[] }) => String(d.convertedUser[0]))
    expect((await tileTable(1))[0].slice(1, 3)).toEqual(steps)
    expect(Number(steps[0])).toBeGreaterThan(0)
    await shot(page, 'reports-dashboard.png')

    // a tile opens its report
    await page.getByTestId('tile-1-open').click()
    await heading(page, 'View to cart')
    expect(c.problems).toEqual([])
    await page.context().close()
  })
})
