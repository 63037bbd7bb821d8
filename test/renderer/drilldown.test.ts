import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EventsRequest, EventsResponse } from '../../src-renderer/src/api/analysis'
import type { DataType } from '../../src-renderer/src/api/schema'
import { drillOf, type DrillPoint } from '../../src-renderer/src/views/Charts/drilldown/target'
import { RESULTS, startBrowserTest } from '../helpers/browser'
import { eventually, type TestServer } from '../helpers/server'
import { answerOf, daysBefore, openCharts, pick, ready, shot, tableValues, today } from './chartsPage'

let server: TestServer
let browser: Browser
let stop: () => Promise<void>
let headers: { appKey: string; token: string }
let range: { fromDate: string; toDate: string }

beforeAll(async () => {
  ;({ server, browser, stop } = await startBrowserTest())
  headers = server.project
  const job = await server.call('POST', '/uba/api/import/sample', { headers, body: { users: 200, days: 14 } })
  expect(job.status).toBe(200)
  await eventually(async () => (await server.call('GET', `/uba/api/import/jobs/${job.body.id}`, { headers })).body.state === 'succeeded', 60_000)
  const timeZone = (await server.call('GET', '/uba/api/project', { headers })).body.timeZone
  // starts inside the sample and not on a Monday: the first week is cut by the range, with events before it
  const from = [9, 10].map((n) => daysBefore(today(timeZone), n)).find((day) => new Date(`${day}T00:00:00Z`).getUTCDay() !== 1) as string
  range = { fromDate: from, toDate: today(timeZone) }
}, 90_000)

afterAll(() => stop?.())

type CohortRow = { id: number; name: string; code: string; status: string; userNumber: number | null; content?: any }
const cohorts = async (): Promise<CohortRow[]> => (await server.call('GET', '/uba/api/cohort?needMore=true', { headers })).body
const valueAt = (api: EventsResponse, p: DrillPoint): number | null => (p.period === null ? api.rows[p.row].sum[p.measure] : api.rows[p.row].values[p.measure][p.period])

/** The whole range and up to `per` non-empty periods of every row, for measure `measure`. */
function points(api: EventsResponse, measure: number, per = 3): DrillPoint[] {
  return api.rows.flatMap((row, r) => {
    const periods = row.values[measure].flatMap((v, i) => (v ? [i] : [])).slice(0, per)
    return [{ measure, row: r, period: null }, ...periods.map((period) => ({ measure, row: r, period }))]
  })
}

/**
 * Creates the cohort of each point as the panel would and checks its size against the chart's
 * unique users of measure `users` at the same point.
 */
async function expectSameUsers(request: EventsRequest, type: DataType | undefined, drilled: number, users = drilled): Promise<void> {
  const answer = await server.call('POST', '/uba/api/events/analyze', { headers, body: request })
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  const api = answer.body as EventsResponse
  expect(api.rows.length).toBeGreaterThan(1)
  const names = { event: (id: string) => id, breakdown: 'By', measures: request.measures.map((m) => m.aggregator), breakdownType: type }
  const made: { id: number; expected: number | null; point: DrillPoint; label: string }[] = []
  for (const [k, point] of points(api, drilled).entries()) {
    const drill = drillOf(request, api, point, names)
    if (!drill.ok) throw new Error(`${JSON.stringify(point)} refused: ${drill.reason}`)
    const created = await server.call('POST', '/uba/api/cohort', { headers, body: { name: `${drill.target.name} #${k}`, dynamic: 0, content: drill.target.content } })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    made.push({ id: created.body.id, expected: valueAt(api, { ...point, measure: users }), point, label: api.rows[point.row].byValue[0] })
  }
  await eventually(async () => (await cohorts()).filter((c) => made.some((m) => m.id === c.id)).every((c) => c.status === 'success'), 60_000)
  const sizes = new Map((await cohorts()).map((c) => [c.id, c.userNumber]))
  expect(made.map((m) => ({ ...m, size: sizes.get(m.id) }))).toEqual(made.map((m) => ({ ...m, size: m.expected })))
  for (const m of made) expect((await server.call('DELETE', `/uba/api/cohort/${m.id}`, { headers })).status).toBe(200)
}

const pay = (aggregator = 'TRIGGER_USER_COUNT', filter?: EventsRequest['filter']) => ({ expression: 'event.pay', aggregator, ...(filter ? { filter } : {}) })

describe('drill-down rules', () => {
  it('a point of unique users broken down by an event property is a cohort of exactly those users, per day, week and the whole range', async () => {
    await expectSameUsers({ ...range, crowds: ['$ALL'], measures: [pay()], unit: 'DAY', byFields: [{ expression: 'event.$Anything.$platform' }] }, 'string', 0)
    await expectSameUsers({ ...range, crowds: ['$ALL'], measures: [pay()], unit: 'WEEK', byFields: [{ expression: 'event.$Anything.$platform' }] }, 'string', 0)
  }, 120_000)

  it('unknown values, number buckets, booleans, OR filters multiplied out and a user-property breakdown all count the chart’s users', async () => {
    const orFilter = { relation: 'OR' as const, conditions: [{ expression: 'event.$Anything.$utm_source', function: 'EQ', params: ['wechat', 'douyin'] }, { expression: 'event.$Anything.$utm_source', function: 'NULL', params: [] }] }
    // the unknown row of a text property: missing values and none of them literally "unknown"
    await expectSameUsers({ ...range, crowds: ['$ALL'], measures: [pay()], unit: 'WEEK', byFields: [{ expression: 'event.$Anything.$utm_source' }] }, 'string', 0)
    await expectSameUsers({ ...range, crowds: ['$ALL'], measures: [pay()], unit: 'WEEK', filter: orFilter, byFields: [{ expression: 'event.pay.amount', buckets: [100, 300] }] }, 'number', 0)
    const couponOr = { relation: 'OR' as const, conditions: [{ expression: 'event.pay.coupon_used', function: 'TRUE', params: [] }, { expression: 'event.pay.payment_method', function: 'EQ', params: ['Alipay'] }] }
    await expectSameUsers({ ...range, crowds: ['$ALL'], measures: [pay('TRIGGER_USER_COUNT', couponOr)], unit: 'WEEK', byFields: [{ expression: 'event.$Anything.coupon_used' }] }, 'boolean', 0)
    // gender is "female", "male", "unknown" in the profiles, and missing for users without one
    await expectSameUsers({ ...range, crowds: ['$ALL'], measures: [pay()], unit: 'WEEK', filter: orFilter, byFields: [{ expression: 'user.gender' }] }, 'string', 0)
  }, 180_000)

  it('a measure of events, not users, lists the users who did the event in the point', async () => {
    await expectSameUsers({ ...range, crowds: ['$ALL'], measures: [pay(), pay('TOTAL_COUNT')], unit: 'WEEK', byFields: [{ expression: 'event.$Anything.$platform' }] }, 'string', 1, 0)
  }, 120_000)

  it('refuses what a rule cannot say, with the reason', () => {
    const response: EventsResponse = { reportUpdateTime: '', measures: ['m'], byFields: ['b'], series: ['2026-01-05'], numRows: 2, rows: [{ sum: [3], values: [[3]], byValue: ['unknown'] }, { sum: [0], values: [[0]], byValue: ['x'] }] }
    const base: EventsRequest = { fromDate: '2026-01-05', toDate: '2026-01-05', crowds: ['$ALL'], measures: [pay()], unit: 'DAY', byFields: [{ expression: 'event.$Anything.tags' }] }
    const names = (breakdownType: DataType) => ({ event: (id: string) => id, breakdown: 'B', measures: ['m'], breakdownType })
    const reason = (request: EventsRequest, type: DataType, row = 0): string => {
      const d = drillOf(request, response, { measure: 0, row, period: 0 }, names(type))
      return d.ok ? '' : d.reason
    }
    expect(reason({ ...base, crowds: ['c1'] }, 'string')).toMatch(/cohort/)
    expect(reason(base, 'array<string>')).toMatch(/empty lists/)
    expect(reason(base, 'string', 1)).toMatch(/Nobody/)
    const dated = { ...response, rows: [{ sum: [3], values: [[3]], byValue: ['2026-01-05 10:00:00'] }] }
    expect(drillOf(base, dated, { measure: 0, row: 0, period: 0 }, names('datetime'))).toMatchObject({ ok: false, reason: expect.stringMatching(/to the minute/) })
    const many = { relation: 'OR' as const, conditions: ['a', 'b', 'c', 'd', 'e'].map((v) => ({ expression: 'event.pay.payment_method', function: 'EQ', params: [v] })) }
    expect(reason({ ...base, measures: [pay('TRIGGER_USER_COUNT', many)], filter: many }, 'string')).toMatch(/50 alternatives.*at most 20 rules/)
    // the unknown of a user property: an OR group of NULL and "unknown", joined to the event rule
    const user = drillOf({ ...base, byFields: [{ expression: 'user.gender' }] }, response, { measure: 0, row: 0, period: 0 }, names('string'))
    expect(user.ok && user.target.content).toEqual({
      ruleGroup: [
        { relation: 'AND', rules: [{ type: 'event', expression: 'event.pay', aggregator: 'TOTAL_COUNT', function: 'GTE', params: [1], eventAbsoluteTimeParams: ['2026-01-05', '2026-01-05'] }] },
        { relation: 'OR', rules: [{ type: 'user', expression: 'user.gender', function: 'NULL', params: [] }, { type: 'user', expression: 'user.gender', function: 'EQ', params: ['unknown'] }] },
      ],
      relations: ['AND'],
    })
  })
})

const drillCount = async (page: Page): Promise<number> => Number(((await page.getByTestId('drill-count').textContent()) ?? '').replace(/,/g, ''))
const drillCohorts = async (): Promise<CohortRow[]> => (await cohorts()).filter((c) => c.name.startsWith('Drill-down · '))

describe('drill-down in the Charts view', () => {
  it('a table number opens its users: the same count, a user opens in People, and the temporary cohort goes when the panel closes', async () => {
    const c = await openCharts(browser, server, 'light')
    const { page } = c
    await ready(page)
    await pick(page, 'measure-0-event', 'pay', 'Pay')
    await pick(page, 'breakdown', 'platform', 'Platform')
    await ready(page)
    const { api } = await answerOf(server, c, '/uba/api/events/analyze')

    // Measure, Platform, Whole range, then one column per day; a day without payers opens nothing
    const rows = await tableValues(page)
    const zero = rows[0].findIndex((v, i) => i > 2 && v === '0')
    const cell = (r: number, col: number) => page.locator('[data-testid=result-table] tbody tr').nth(r).locator('th, td').nth(col)
    expect(zero).toBeGreaterThan(2)
    expect(await cell(0, zero).getByRole('button').count()).toBe(0)
    expect(await cell(0, zero).locator('span').getAttribute('title')).toBe('Nobody did this event here.')

    const r = 1
    await page.getByTestId('result-table').screenshot({ path: join(RESULTS, 'drilldown-table.png') })
    const col = rows[r].findIndex((v, i) => i > 2 && Number(v) > 0)
    const expected = Number(rows[r][col])
    expect(expected).toBe(api.rows[r].values[0][col - 3])
    await cell(r, col).getByRole('button').click()
    const panel = page.getByTestId('drilldown')
    await page.locator('[data-testid=drilldown][data-phase=ready]').waitFor({ timeout: 30_000 })
    expect(await drillCount(page)).toBe(expected)
    expect(await page.getByTestId('drill-check').textContent()).toContain('The same number as the chart.')
    expect(await page.getByTestId('drill-title').textContent()).toMatch(/^Users who did Pay on /)
    expect(await panel.getByText(`Platform: ${api.rows[r].byValue[0]}`).count()).toBe(1)
    expect(await page.getByTestId('drill-user').count()).toBe(Math.min(expected, 50))
    const [temporary] = await drillCohorts()
    expect(temporary).toMatchObject({ status: 'success', userNumber: expected })
    expect(temporary.content.ruleGroup[0].rules[0].eventAbsoluteTimeParams).toEqual([api.series[col - 3], api.series[col - 3]])
    await shot(page, 'drilldown-light.png')

    const user = page.getByTestId('drill-user').first()
    const xwho = (await user.textContent())?.trim() ?? ''
    await user.click()
    await page.getByTestId('profile-xwho').filter({ hasText: xwho }).waitFor()
    expect(decodeURIComponent(page.url())).toContain(`#/people?xwho=${xwho}`)

    // back at the chart, the drill-down is still open; closing it deletes the temporary cohort
    await page.goBack()
    await page.locator('[data-testid=drilldown][data-phase=ready]').waitFor()
    expect(await drillCohorts()).toHaveLength(1)
    await page.getByTestId('drill-close').click()
    await panel.waitFor({ state: 'hidden' })
    await eventually(async () => (await drillCohorts()).length === 0)
    expect(c.problems).toEqual([])
    await page.context().close()
  }, 120_000)

  it('a bar of the chart opens its users in the dark theme, and Keep as cohort leaves the cohort behind', async () => {
    const c = await openCharts(browser, server, 'dark')
    const { page } = c
    await ready(page)
    await pick(page, 'measure-0-event', 'pay', 'Pay')
    await page.getByRole('button', { name: 'Bar' }).click()
    await ready(page)
    const { api } = await answerOf(server, c, '/uba/api/events/analyze')

    // ECharts shows a pointer over a bar: find one by hovering, then click it; the bars grow in,
    // so the search is repeated until one is there (a busy machine draws them late)
    const box = (await page.locator('.echart').boundingBox())!
    let hit: { x: number; y: number } | null = null
    const y = box.y + box.height - 40
    await eventually(async () => {
      for (let x = box.x + box.width - 20; x > box.x + 40 && !hit; x -= 6) {
        await page.mouse.move(x, y)
        const pointer = await page.evaluate<boolean>(`[...document.querySelectorAll('.echart *')].some((e) => e.style?.cursor === 'pointer')`)
        if (pointer) hit = { x, y }
      }
      return hit !== null
    }, 30_000).catch(() => undefined)
    expect(hit).not.toBeNull()
    await page.mouse.click(hit!.x, hit!.y)
    await page.locator('[data-testid=drilldown][data-phase=ready]').waitFor({ timeout: 30_000 })
    const [temporary] = await drillCohorts()
    const day = temporary.content.ruleGroup[0].rules[0].eventAbsoluteTimeParams[0]
    expect(await drillCount(page)).toBe(api.rows[0].values[0][api.series.indexOf(day)])
    await shot(page, 'drilldown-dark.png')

    await page.getByTestId('drill-keep').click()
    await page.getByTestId('drill-kept').getByRole('link', { name: temporary.name }).waitFor()
    await page.keyboard.press('Escape')
    await page.getByTestId('drilldown').waitFor({ state: 'hidden' })
    await page.waitForTimeout(300)
    expect((await drillCohorts()).map((k) => k.id)).toEqual([temporary.id])

    // the kept cohort is a crowd now: a chart of its users only cannot be drilled into, and says why
    await pick(page, 'crowd', 'drill-down', temporary.name)
    await ready(page)
    const whole = page.locator('[data-testid=result-table] tbody tr').first().locator('td').first()
    expect(await whole.getByRole('button').count()).toBe(0)
    expect(await whole.locator('span').getAttribute('title')).toMatch(/^The chart counts the users of a cohort only/)
    // the bars grow in again: click where the bar was until the refusal shows
    await eventually(async () => {
      await page.mouse.click(hit!.x, hit!.y)
      return page.getByTestId('drill-refused').isVisible()
    }, 30_000).catch(() => undefined)
    await page.getByTestId('drill-refused').waitFor()
    await shot(page, 'drilldown-refused-dark.png')
    await page.getByTestId('drill-close').click()
    expect((await drillCohorts()).map((k) => k.id)).toEqual([temporary.id])
    expect(c.problems).toEqual([])
    await page.context().close()
    expect((await server.call('DELETE', `/uba/api/cohort/${temporary.id}`, { headers })).status).toBe(200)
  }, 120_000)
})
