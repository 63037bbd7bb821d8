import { describe, expect, it } from 'vitest'
import { useBrowserTest } from '../helpers/browserTest'
import { answerOf, openCharts, pick, raw, ready, shot, tableHeader, tableValues } from './chartsPage'

const ui = useBrowserTest({ sample: { users: 300, days: 30 } })

/** The change column as the table computes it: relative to the earlier figure, none from 0. */
const changeOf = (now: number | null, before: number | null): string => (now === null || before === null || before === 0 ? '' : String((now - before) / Math.abs(before)))

describe('Charts: formulas and comparisons', () => {
  it('events: a formula between two measures, the filters named, then a comparison a week earlier', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await ready(page)
    await pick(page, 'measure-0-event', 'pay', 'Pay')
    await page.getByTestId('add-measure').click()
    await page.getByTestId('measure-1-aggregator').selectOption('TOTAL_COUNT')
    // a filter of measure B and a global one, which the chart names
    await page.getByTestId('measure-1').getByRole('button', { name: '+ Filter' }).click()
    await page.keyboard.type('amount')
    await page.keyboard.press('Enter')
    await page.getByTestId('measure-1').locator('select.op').selectOption('NOT_NULL')
    await page.getByTestId('global-filter').getByRole('button', { name: '+ Filter' }).click()
    await page.keyboard.type('city')
    await page.keyboard.press('Enter')
    await page.getByTestId('global-filter').locator('select.op').selectOption('NOT_NULL')
    await page.getByTestId('formula').fill('b / a')
    await page.getByTestId('formula').press('Enter')
    await expect.poll(() => c.requests.at(-1)?.postData() ?? '').toContain('"formula":"b / a"')
    await ready(page)

    const { body, api } = await answerOf(ui.server, c, '/uba/api/events/analyze')
    expect(body.formula).toBe('b / a')
    expect(body.measures[1]).toMatchObject({ aggregator: 'TOTAL_COUNT', filter: { conditions: [{ expression: 'event.pay.amount', function: 'NOT_NULL' }] } })
    expect(api.formula).toBe('B/A')
    const row = api.rows[0]
    // payments per paying user: the whole range from the whole-range figures
    expect(row.formula.sum).toBeCloseTo(row.sum[1] / row.sum[0], 5)
    const table = await tableValues(page)
    expect(table).toHaveLength(3)
    expect(table[2]).toEqual(['Formula B/A', raw(row.formula.sum), ...row.formula.values.map(raw)])
    expect(await page.getByTestId('chart-filters').textContent()).toMatch(/^Filter: City is set · B: Order amount is set$/)
    await shot(page, 'charts-formula.png')

    await page.getByTestId('compare').selectOption('week')
    await expect.poll(() => c.requests.at(-1)?.postData() ?? '').toContain('"compare":"week"')
    await ready(page)
    const compared = await answerOf(ui.server, c, '/uba/api/events/analyze')
    expect(compared.body.compare).toBe('week')
    const answer = compared.api
    expect((await tableHeader(page)).slice(-2)).toEqual(['Before', 'Change'])
    const rows = await tableValues(page)
    const sums = [...answer.rows[0].sum, answer.rows[0].formula.sum]
    const before = [...answer.rows[0].previous.sum, answer.rows[0].previous.formula.sum]
    expect(rows.map((r) => r.slice(-2))).toEqual(sums.map((s, m) => [raw(before[m]), changeOf(s, before[m])]))
    // the earlier week overlaps the range: some users paid in it
    expect(answer.rows[0].previous.sum[0]).toBeGreaterThan(0)
    expect(await page.getByTestId('chart-compare').textContent()).toMatch(/^vs .+ \(dashed\)$/)
    await shot(page, 'charts-compare.png')
    expect(c.problems).toEqual([])
    await page.context().close()
  })

  it('funnels: compared with the previous period, a change column beside the overall conversion', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    await page.getByRole('tab', { name: 'Funnels' }).click()
    await pick(page, 'step-0-event', 'view product', 'View product')
    await pick(page, 'step-1-event', 'pay', 'Pay')
    await page.getByTestId('compare').selectOption('previous')
    await expect.poll(() => c.requests.at(-1)?.postData() ?? '').toContain('"compare":"previous"')
    await ready(page)
    const { api } = await answerOf(ui.server, c, '/uba/api/funnels/analyze')
    const total = api.rows[0]
    const overall = (steps: { convertedUser: (number | null)[] }[]) => (steps[0].convertedUser[0] ? (steps[1].convertedUser[0] as number) / (steps[0].convertedUser[0] as number) : null)
    const now = overall(total.stepsDetail)
    const before = overall(total.previous.stepsDetail)
    expect((await tableHeader(page)).slice(-2)).toEqual(['Overall before', 'Change'])
    expect((await tableValues(page))[0].slice(-2)).toEqual([raw(before), changeOf(now, before)])
    await shot(page, 'charts-funnel-compare.png')
    expect(c.problems).toEqual([])
    await page.context().close()
  })
})
