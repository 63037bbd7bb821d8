import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OPERATORS as SERVER_OPERATORS } from '../../src-main/domain/expr/filters'
import { OPERATORS as UI_OPERATORS } from '../../src-renderer/src/filters/operators'
import { RESULTS, startBrowserTest } from '../helpers/browser'
import { eventually, type TestServer } from '../helpers/server'
import { answerOf, daysBefore, exportHeader, openCharts, pick, raw, ready, shot, tableHeader, tableValues, today } from './chartsPage'

let server: TestServer
let browser: Browser
let stop: () => Promise<void>
let timeZone: string

beforeAll(async () => {
  ;({ server, browser, stop } = await startBrowserTest())
  const started = await server.call('POST', '/uba/api/import/sample', { headers: server.project, body: { users: 300, days: 30 } })
  expect(started.status).toBe(200)
  await eventually(async () => (await server.call('GET', `/uba/api/import/jobs/${started.body.id}`, { headers: server.project })).body.state === 'succeeded', 60_000)
  timeZone = (await server.call('GET', '/uba/api/project', { headers: server.project })).body.timeZone
}, 90_000)

afterAll(() => stop?.())

describe('Charts view', () => {
  it('filters offer exactly the operators the server accepts per data type', () => {
    for (const type of Object.keys(SERVER_OPERATORS) as (keyof typeof SERVER_OPERATORS)[]) {
      expect(UI_OPERATORS[type].map((o) => o.function).sort()).toEqual(SERVER_OPERATORS[type].map((o) => o.function).sort())
    }
  })

  it('events: two measures broken down by platform, the table holds the API answer, SQL and CSV and PNG export', async () => {
    const c = await openCharts(browser, server, 'light')
    const { page } = c
    await ready(page)
    await pick(page, 'measure-0-event', 'pay', 'Pay')
    await page.getByTestId('add-measure').click()
    await page.getByTestId('measure-1-aggregator').selectOption('SUM')
    await pick(page, 'measure-1-property', 'amount', 'Order amount')
    await pick(page, 'breakdown', 'platform', 'Platform')
    await ready(page)

    const { body, api } = await answerOf(server, c, '/uba/api/events/analyze')
    expect(body).toMatchObject({
      measures: [
        { expression: 'event.pay', aggregator: 'TRIGGER_USER_COUNT' },
        { expression: 'event.pay.amount', aggregator: 'SUM' },
      ],
      byFields: [{ expression: 'event.$Anything.$platform' }],
      crowds: ['$ALL'],
      unit: 'DAY',
      fromDate: daysBefore(today(timeZone), 29),
      toDate: today(timeZone),
    })
    expect(api.rows.length).toBeGreaterThan(1)
    const expected = api.measures.flatMap((_: string, m: number) => api.rows.map((row: any) => [row.byValue.join(' / '), raw(row.sum[m]), ...row.values[m].map(raw)]))
    expect((await tableValues(page)).map((cells) => cells.slice(1))).toEqual(expected)
    expect(await page.getByTestId('chart-title').textContent()).toBe('Pay · Unique users, Pay · Sum of Order amount by Platform')
    await shot(page, 'charts-events.png')

    // a filter still being written is not applied: no new request, and the chart is not drawn again
    const draws = await page.locator('.echart').getAttribute('data-draws')
    const sent = c.requests.length
    await page.getByTestId('global-filter').getByRole('button', { name: '+ Filter' }).click()
    await page.keyboard.type('city')
    await page.keyboard.press('Enter')
    await page.getByText('Not applied until it has a value.').waitFor()
    await page.waitForTimeout(600)
    expect(c.requests.length).toBe(sent)
    expect(await page.locator('.echart').getAttribute('data-draws')).toBe(draws)

    await page.getByTestId('show-sql').click()
    const dialog = page.getByTestId('sql-dialog')
    await dialog.waitFor()
    const sqlText = (await dialog.getByTestId('sql-text').first().textContent()) ?? ''
    expect(sqlText).toContain('FROM event_vd')
    const explained = await server.call('POST', '/uba/api/events/analyze?explain=true', { headers: server.project, body })
    expect(sqlText.replace(/\s+/g, ' ')).toBe(explained.body.sql[0].sql)
    await dialog.getByText("'pay'").first().waitFor()
    await page.screenshot({ path: join(RESULTS, 'charts-sql.png') })
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    expect(await page.locator('.echart').getAttribute('data-draws')).toBe(draws)

    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-csv').click()])
    expect(csv.suggestedFilename()).toBe('Pay-Unique-users-Pay-Sum-of-Order-amount-by-Platform.csv')
    // the file starts with a byte-order mark (Excel reads it as UTF-8), then the table's headers in full
    const lines = readFileSync((await csv.path()) as string, 'utf8').replace(/^\uFEFF/, '').trim().split('\r\n')
    expect(lines[0].split(',')).toEqual(await exportHeader(page))
    expect(lines.slice(1).map((l) => l.split(','))).toEqual(await tableValues(page))

    const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-png').click()])
    expect(png.suggestedFilename()).toMatch(/\.png$/)
    expect(readFileSync((await png.path()) as string).subarray(1, 4).toString()).toBe('PNG')
    expect(c.problems).toEqual([])
    await page.context().close()
  })

  it('events in the dark theme, by week, as bars; Ctrl+Enter and Recompute ask past the cache', async () => {
    const c = await openCharts(browser, server, 'dark')
    await ready(c.page)
    await c.page.getByTestId('unit').selectOption('WEEK')
    await c.page.getByRole('button', { name: 'Bar' }).click()
    await ready(c.page)
    const { body, api } = await answerOf(server, c, '/uba/api/events/analyze')
    expect(body.unit).toBe('WEEK')
    expect((await tableValues(c.page))[0].slice(1)).toEqual([raw(api.rows[0].sum[0]), ...api.rows[0].values[0].map(raw)])
    await shot(c.page, 'charts-events-dark.png')

    // Ctrl+Enter and Recompute ask again past the cache
    for (const again of [() => c.page.keyboard.press('Control+Enter'), () => c.page.getByTestId('recompute').click()]) {
      const before = c.requests.length
      await again()
      await expect.poll(() => c.requests.length).toBe(before + 1)
      expect(JSON.parse(c.requests[before].postData() ?? '{}')).toEqual({ ...body, useCache: false })
      await ready(c.page)
    }
    expect(c.problems).toEqual([])
    await c.page.context().close()
  })

  it('funnels: three steps, users per step and conversion as the API counts them, in both themes; a saved report reopens', async () => {
    const c = await openCharts(browser, server, 'light')
    const { page } = c
    await page.getByRole('tab', { name: 'Funnels' }).click()
    await page.getByText('Pick an event for step 1.').waitFor()
    await pick(page, 'step-0-event', 'view product', 'View product')
    await pick(page, 'step-1-event', 'add to cart', 'Add to cart')
    await page.getByTestId('add-step').click()
    await pick(page, 'step-2-event', 'pay', 'Pay')
    await ready(page)

    const { body, api } = await answerOf(server, c, '/uba/api/funnels/analyze')
    expect(body).toMatchObject({
      steps: [{ expression: 'event.view_product' }, { expression: 'event.add_to_cart' }, { expression: 'event.pay' }],
      convertTime: 7,
      convertTimeUnit: 'DAY',
      crowds: ['$ALL'],
    })
    const users = api.rows[0].stepsDetail.map((s: any) => s.convertedUser[0])
    expect(users[0]).toBeGreaterThan(users[2])
    const [total] = await tableValues(page)
    expect(total[0]).toBe('All users')
    expect([total[1], total[2], total[4]]).toEqual(users.map(String))
    expect(Number(total[3])).toBeCloseTo(users[1] / users[0], 10)
    expect(Number(total[5])).toBeCloseTo(users[2] / users[1], 10)
    expect(Number(total[6])).toBeCloseTo(users[2] / users[0], 10)
    expect([total[7], total[8]]).toEqual(api.rows[0].medianConvertedTime.map((m: any) => raw(m.median[0])))
    await shot(page, 'charts-funnel.png')

    await page.getByTestId('save-report').click()
    await page.getByTestId('report-name').fill('Checkout funnel')
    await page.getByTestId('report-save-confirm').click()
    await page.getByRole('heading', { name: 'Checkout funnel', level: 1 }).waitFor()
    expect(page.url()).toContain('#/charts/report/')

    // another page of the same browser: the report is kept in the project, and opens from the list
    const again = await openCharts(browser, server, 'light', page)
    await again.page.getByTestId('reports-button').click()
    await again.page.getByTestId('report-Checkout funnel').click()
    await again.page.getByRole('heading', { name: 'Checkout funnel', level: 1 }).waitFor()
    expect(await again.page.getByRole('tab', { name: 'Funnels' }).getAttribute('aria-selected')).toBe('true')
    expect(await again.page.getByTestId('step-2-event').textContent()).toContain('Pay')
    await ready(again.page)
    expect((await tableValues(again.page))[0].slice(1, 5)).toEqual([total[1], total[2], total[3], total[4]])
    await shot(again.page, 'charts-report-reopened.png')
    expect([...c.problems, ...again.problems]).toEqual([])
    await page.context().close()

    const dark = await openCharts(browser, server, 'dark')
    await dark.page.getByRole('tab', { name: 'Funnels' }).click()
    await pick(dark.page, 'step-0-event', 'view product', 'View product')
    await pick(dark.page, 'step-1-event', 'pay', 'Pay')
    await pick(dark.page, 'breakdown', 'platform', 'Platform')
    await ready(dark.page)
    const split = await answerOf(server, dark, '/uba/api/funnels/analyze')
    expect(split.body.byField).toEqual({ expression: 'event.view_product.$platform' })
    const rows = await tableValues(dark.page)
    expect(rows.map((r) => [r[0], r[1], r[2]])).toEqual(
      split.api.rows.map((row: any) => [row.byValue === -1 ? 'All users' : row.byValue, ...row.stepsDetail.map((s: any) => String(s.convertedUser[0]))]),
    )
    await shot(dark.page, 'charts-funnel-dark.png')
    expect(dark.problems).toEqual([])
    await dark.page.context().close()
  })

  it('retention: sign-up cohorts of the last 7 days coming back, the triangle as the API answers it', async () => {
    const c = await openCharts(browser, server, 'light')
    const { page } = c
    await page.getByRole('tab', { name: 'Retention' }).click()
    await pick(page, 'first-event', 'sign up', 'Sign up')
    await page.getByTestId('range-last7').click()
    await ready(page)
    const { body, api } = await answerOf(server, c, '/uba/api/retentions/analyze')
    expect(body).toMatchObject({ firstEvent: { expression: 'event.sign_up' }, secondEvent: { expression: 'event.$Anything' }, duration: 7, unit: 'DAY', fromDate: daysBefore(today(timeZone), 6), toDate: today(timeZone) })
    expect(api.rows[0].totalPeople).toBeGreaterThan(0)
    const expected = api.rows.map((row: any) => [raw(row.totalPeople), ...row.retentionPeoples.map(raw)])
    expect((await tableValues(page)).map((r) => r.slice(1))).toEqual(expected)
    await shot(page, 'charts-retention.png')
    expect(c.problems).toEqual([])
    await page.context().close()
  })

  it('distribution: views per user, histogram and table from the same answer; an empty range offers the data range', async () => {
    const c = await openCharts(browser, server, 'light')
    const { page } = c
    await page.getByRole('tab', { name: 'Distribution' }).click()
    await pick(page, 'measure-0-event', 'view product', 'View product')
    await ready(page)
    const { body, api } = await answerOf(server, c, '/uba/api/distributions/analyze')
    expect(body).toMatchObject({ measure: { expression: 'event.view_product', aggregator: 'TOTAL_COUNT' }, unit: '' })
    expect(await tableHeader(page)).toEqual(['Segment', 'Users', ...api.series])
    expect(await tableValues(page)).toEqual(api.rows.map((row: any) => ['All users', raw(row.sum), ...row.values.map(raw)]))
    await shot(page, 'charts-distribution.png')

    await page.getByTestId('range-custom').click()
    await page.getByTestId('range-from').fill('2020-01-01')
    await page.getByTestId('range-to').fill('2020-01-07')
    await page.getByTestId('chart-empty').waitFor()
    await page.getByTestId('use-data-range').click()
    await ready(page)
    const overview = (await server.call('GET', '/uba/api/project', { headers: server.project })).body
    expect(await page.getByTestId('range-from').inputValue()).toBe(overview.firstDay)
    expect(await page.getByTestId('range-to').inputValue()).toBe(overview.lastDay)
    expect(c.problems).toEqual([])
    await page.context().close()
  })

  it('user attributes: users by age intervals, and the figure of all users', async () => {
    const c = await openCharts(browser, server, 'light')
    const { page } = c
    await page.getByRole('tab', { name: 'User attributes' }).click()
    await ready(page)
    const all = await answerOf(server, c, '/uba/api/userAttributes/analyze')
    expect(await page.getByTestId('stat').textContent()).toContain(String(all.api.rows[0].value))
    await pick(page, 'breakdown', 'age', 'Age', 'breakdown-0')
    await page.getByLabel('Breakdown 1 interval edges').fill('20, 30, 40')
    await page.keyboard.press('Enter')
    await ready(page)
    const { body, api } = await answerOf(server, c, '/uba/api/userAttributes/analyze')
    expect(body).toMatchObject({ measure: { aggregator: 'USER_COUNT' }, byFields: [{ expression: 'user.age', buckets: [20, 30, 40] }] })
    expect(await tableValues(page)).toEqual(api.rows.map((row: any) => [...row.byValue, raw(row.value)]))
    expect(api.rows.map((row: any) => row.byValue[0]).sort()).toEqual(['-∞~20', '20~30', '30~40', '40~+∞'])
    await shot(page, 'charts-user-attributes.png')
    expect(c.problems).toEqual([])
    await page.context().close()
  })

  it('counts only the users of a cohort picked as the crowd', async () => {
    const rule = { ruleGroup: [{ relation: 'AND', rules: [{ type: 'user', expression: 'user.membership_level', function: 'EQ', params: ['gold'] }] }], relations: [] }
    const cohort = await server.call('POST', '/uba/api/cohort', { headers: server.project, body: { name: 'Gold members', dynamic: 0, content: rule } })
    expect(cohort.status).toBe(200)
    await eventually(async () => (await server.call('GET', `/uba/api/cohort/${cohort.body.id}`, { headers: server.project })).body.status === 'success', 30_000)
    const c = await openCharts(browser, server, 'light')
    const { page } = c
    await page.getByRole('tab', { name: 'User attributes' }).click()
    await pick(page, 'crowd', 'gold', 'Gold members')
    await ready(page)
    const { body, api } = await answerOf(server, c, '/uba/api/userAttributes/analyze')
    expect(body.crowds).toEqual([cohort.body.code])
    const everyone = await server.call('POST', '/uba/api/userAttributes/analyze', { headers: server.project, body: { ...body, crowds: ['$ALL'] } })
    expect(api.rows[0].value).toBeLessThan(everyone.body.rows[0].value)
    expect(await page.getByTestId('stat').textContent()).toContain(String(api.rows[0].value))
    expect(await tableValues(page)).toEqual([['Gold members', raw(api.rows[0].value)]])
    expect(c.problems).toEqual([])
    await page.context().close()
  })

  it('says why a query was refused, and tries again', async () => {
    const c = await openCharts(browser, server, 'light')
    const { page } = c
    await ready(page)
    await page.route('**/uba/api/events/analyze*', (route) =>
      route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ code: 400, msg: 'measures[0].expression: nope is not an event of this project', data: ['measures[0].expression'] }) }),
    )
    await page.getByTestId('unit').selectOption('MONTH')
    await page.getByTestId('chart-error').getByText('The server refused the query: measures[0].expression: nope is not an event of this project').waitFor()
    await page.unroute('**/uba/api/events/analyze*')
    await page.getByTestId('chart-error').getByRole('button', { name: 'Try again' }).click()
    await ready(page)
    await page.context().close()
  })
})
