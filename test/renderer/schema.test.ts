import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { openView, RESULTS } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'
import { fixture, importAndWait } from '../helpers/ingest'

/** The sample shop (a small one) plus one event that data reported but the plan does not have. */
const ui = useBrowserTest({ sample: { users: 300, days: 14, wait: 120_000 } })

beforeAll(async () => {
  const refunds = fixture('refunds.csv', 'user_id,event,time,reason\nu1,refund,2024-02-01 10:00:00,late\nu2,refund,2024-02-02 11:00:00,broken\n')
  const job = await importAndWait(ui.server, ui.server.project, { path: refunds, mapping: { xwho: 'user_id', xwhat: 'event', xwhen: 'time' } })
  expect(job.state).toBe('succeeded')
}, 180_000)

async function openSchema(colorScheme: 'light' | 'dark', tab = ''): Promise<{ page: Page; problems: string[] }> {
  const { page, problems } = await openView(ui.browser, ui.server, 'Schema', { colorScheme })
  if (tab) await page.getByTestId(`tab-${tab}`).click()
  return { page, problems }
}

const rowOf = (page: Page, table: string, key: string) => page.getByTestId(table).locator(`tbody tr[data-key="${key}"]`)

interface EventRecord {
  id: string
  name: string | null
  remark: string | null
  plan: number
}

async function apiEvents(): Promise<EventRecord[]> {
  return (await ui.server.call('GET', '/uba/api/schema/event', { headers: ui.server.project })).body
}

describe('Schema view', () => {
  it('lists the events with their state, and the search filters the table', async () => {
    const { page, problems } = await openSchema('light')
    const events = await apiEvents()
    await rowOf(page, 'events-table', 'add_to_cart').waitFor()
    expect(await page.getByTestId('events-table').locator('tbody tr').count()).toBe(events.length)
    await page.screenshot({ path: join(RESULTS, 'schema-events.png'), fullPage: true })

    // "/" jumps to the search box; the search matches ids, names and remarks
    await page.locator('body').press('/')
    await page.keyboard.type('cart')
    const expected = events.filter((e) => `${e.id} ${e.name ?? ''} ${e.remark ?? ''}`.toLowerCase().includes('cart')).map((e) => e.id)
    expect(expected.length).toBeGreaterThan(0)
    expect(expected.length).toBeLessThan(events.length)
    await page.getByTestId('schema-count').filter({ hasText: `${expected.length} of ${events.length}` }).waitFor()
    const shown = await Promise.all((await page.getByTestId('events-table').locator('tbody tr').all()).map((row) => row.getAttribute('data-key')))
    expect(shown.sort()).toEqual(expected.sort())

    // the plan filter narrows it further: the reported refund event is outside the plan
    await page.getByTestId('schema-search').fill('')
    await page.getByTestId('filter-plan').selectOption('unplanned')
    const unplanned = events.filter((e) => e.plan === 0).map((e) => e.id)
    expect(unplanned).toContain('refund')
    await page.getByTestId('schema-count').filter({ hasText: `${unplanned.length} of ${events.length}` }).waitFor()
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('edits an event’s display name and remark, and puts an unplanned event into the plan, as the API then says', async () => {
    const { page, problems } = await openSchema('light')
    // keyboard: focus the row and press Enter
    await rowOf(page, 'events-table', 'search').focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByTestId('plan-dialog')
    await dialog.getByRole('heading', { name: 'Edit event search' }).waitFor()
    await page.getByTestId('plan-name').fill('Product search')
    await page.getByTestId('plan-remark').fill('Typed a query in the search box (any page)')
    await page.screenshot({ path: join(RESULTS, 'schema-edit.png') })
    await page.getByTestId('plan-save').click()
    await dialog.waitFor({ state: 'hidden' })
    await rowOf(page, 'events-table', 'search').getByText('Product search').waitFor()
    const search = (await apiEvents()).find((e) => e.id === 'search')
    expect(search).toMatchObject({ name: 'Product search', remark: 'Typed a query in the search box (any page)', plan: 1 })

    // a refused text is explained before anything is sent
    await rowOf(page, 'events-table', 'refund').click()
    await page.getByTestId('plan-name').fill('Refund <b>')
    await page.getByTestId('plan-save').click()
    await page.getByText('Letters, digits, spaces and everyday punctuation').waitFor()
    await page.getByTestId('plan-name').fill('Refund')
    await page.getByTestId('plan-add').check()
    await page.getByTestId('plan-save').click()
    await dialog.waitFor({ state: 'hidden' })
    expect((await apiEvents()).find((e) => e.id === 'refund')).toMatchObject({ name: 'Refund', plan: 1 })
    await rowOf(page, 'events-table', 'refund').getByText('Planned').waitFor()
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('edits a user property and shows an event’s properties', async () => {
    const { page } = await openSchema('dark', 'userProperties')
    const users = (await ui.server.call('GET', '/uba/api/schema/userProperties', { headers: ui.server.project })).body as { id: string; visible: number }[]
    await page.getByTestId('schema-count').filter({ hasText: `${users.filter((u) => u.visible === 1).length} user properties` }).waitFor()
    await page.getByTestId('schema-search').fill('$city')
    await rowOf(page, 'user-properties-table', '$city').click()
    await page.getByTestId('plan-remark').fill('City of the last visit')
    await page.getByTestId('plan-masking').check()
    await page.getByTestId('plan-save').click()
    await page.getByTestId('plan-dialog').waitFor({ state: 'hidden' })
    const city = ((await ui.server.call('GET', '/uba/api/schema/userProperties', { headers: ui.server.project })).body as { id: string; remark: string; masking: number }[]).find((u) => u.id === '$city')
    expect(city).toMatchObject({ remark: 'City of the last visit', masking: 1 })

    await page.getByTestId('tab-events').click()
    await rowOf(page, 'events-table', 'pay').getByRole('button', { name: 'Properties of pay' }).click()
    expect(await page.getByTestId('event-picker').inputValue()).toBe('pay')
    await rowOf(page, 'event-properties-table', 'amount').waitFor()
    const props = (await ui.server.call('GET', '/uba/api/schema/eventProperties?eventId=pay', { headers: ui.server.project })).body as unknown[]
    expect(await page.getByTestId('event-properties-table').locator('tbody tr').count()).toBe(props.length)
    await page.screenshot({ path: join(RESULTS, 'schema-event-properties-dark.png'), fullPage: true })
    await page.context().close()
  })

  it('creates a virtual event from two events, one filtered, as the API then stores it', async () => {
    const { page, problems } = await openSchema('dark', 'virtual')
    await page.getByTestId('virtual-new').click()
    await page.getByTestId('virtual-id').fill('big_purchase')
    await page.getByTestId('virtual-name').fill('Big purchase')
    await page.getByTestId('member-event-0').selectOption('pay')
    await page.getByTestId('member-filter-0').click()
    const member = page.getByTestId('member-0')
    await member.getByLabel('Condition 1: property').selectOption('event.pay.amount')
    await member.getByLabel('Condition 1: operator').selectOption('GTE')
    await member.getByLabel('Condition 1: number').fill('100')
    await member.getByLabel('Condition 1: number').press('Tab')
    await page.getByTestId('virtual-add-event').click()
    await page.getByTestId('member-event-1').selectOption('checkout')
    await page.screenshot({ path: join(RESULTS, 'schema-virtual-dialog-dark.png') })
    await page.getByTestId('virtual-save').click()
    await page.getByTestId('virtual-dialog').waitFor({ state: 'hidden' })

    const virtual = (await ui.server.call('GET', '/uba/api/meta/event?type=virtual', { headers: ui.server.project })).body as { id: string; name: string; content: unknown }[]
    expect(virtual.find((v) => v.id === 'big_purchase')).toMatchObject({
      name: 'Big purchase',
      content: {
        relation: 'OR',
        events: [{ expression: 'event.pay', filter: { relation: 'AND', conditions: [{ expression: 'event.pay.amount', function: 'GTE', params: [100] }] } }, { expression: 'event.checkout' }],
      },
    })
    await rowOf(page, 'virtual-table', 'big_purchase').getByText('pay (1 filter) or checkout').waitFor()

    // the same id again is refused by the dialog; the server's own refusals show its message
    await page.getByTestId('virtual-new').click()
    await page.getByTestId('virtual-id').fill('pay')
    await page.getByTestId('member-event-0').selectOption('checkout')
    await page.getByTestId('virtual-save').click()
    await page.getByText('An event with this id exists already').waitFor()
    await page.keyboard.press('Escape')
    await page.screenshot({ path: join(RESULTS, 'schema-virtual-dark.png'), fullPage: true })
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('creates a dimension table from a CSV, shows its fields, and drops it after confirmation', async () => {
    const { page, problems } = await openSchema('light', 'dimensions')
    await rowOf(page, 'dimensions-table', 'products').click()
    await page.getByTestId('dimension-fields').getByText('product_id').waitFor()

    await page.getByTestId('dimension-new').click()
    const csv = fixture('Store Regions.csv', 'region_code,label,population,coastal,opened\nN,North,1200.5,true,2020-01-01\nS,"South, far",800,false,2021-06-30 08:00:00\n')
    await page.getByTestId('dimension-file').setInputFiles(csv)
    expect(await page.getByTestId('dimension-table').inputValue()).toBe('store_regions')
    await page.screenshot({ path: join(RESULTS, 'schema-dimension-dialog.png') })
    await page.getByTestId('dimension-create').click()
    await page.getByTestId('dimension-dialog').waitFor({ state: 'hidden' })
    await rowOf(page, 'dimensions-table', 'store_regions').waitFor()

    const fields = (await ui.server.call('GET', '/uba/api/project/dimensions/properties?table=store_regions', { headers: ui.server.project })).body
    expect(fields.map((f: { id: string; dataType: string; relation: number }) => [f.id, f.dataType, f.relation])).toEqual([
      ['region_code', 'string', 1],
      ['label', 'string', 0],
      ['population', 'number', 0],
      ['coastal', 'boolean', 0],
      ['opened', 'datetime', 0],
    ])
    const tables = (await ui.server.call('GET', '/uba/api/project/dimensions', { headers: ui.server.project })).body as { table: string; rows: number }[]
    expect(tables.find((t) => t.table === 'store_regions')?.rows).toBe(2)

    await rowOf(page, 'dimensions-table', 'store_regions').click()
    await page.getByTestId('dimension-fields').getByText('population').waitFor()
    await page.screenshot({ path: join(RESULTS, 'schema-dimensions.png'), fullPage: true })
    await page.getByTestId('dimension-drop').click()
    // the button waits for the table's name
    expect(await page.getByTestId('confirm-button').isDisabled()).toBe(true)
    await page.getByTestId('confirm-text').fill('store_regions')
    await page.getByTestId('confirm-button').click()
    await page.getByTestId('dimension-confirm').waitFor({ state: 'hidden' })
    await rowOf(page, 'dimensions-table', 'store_regions').waitFor({ state: 'detached' })
    const after = (await ui.server.call('GET', '/uba/api/project/dimensions', { headers: ui.server.project })).body as { table: string }[]
    expect(after.map((t) => t.table)).toEqual(['products'])
    expect(problems).toEqual([])
    await page.context().close()
  })
})
