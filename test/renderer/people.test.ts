import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { openView, RESULTS } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'
import { warehouseRows } from '../helpers/ingest'
import { eventually } from '../helpers/server'

const ui = useBrowserTest({ sample: { users: 300, days: 30 } })
let headers: { appKey: string; token: string }
/** The user with the most events (more than one page of the timeline) and the project's data range. */
let busiest: string
let range: { fromDate: string; toDate: string }

beforeAll(async () => {
  headers = ui.server.project
  const [top] = await warehouseRows(ui.server, headers.appKey, 'SELECT xwho, count(*) AS n FROM event_vd GROUP BY xwho ORDER BY n DESC, xwho LIMIT 1')
  busiest = String(top.xwho)
  expect(top.n).toBeGreaterThan(100)
  const overview = (await ui.server.call('GET', '/uba/api/project', { headers })).body
  range = { fromDate: overview.firstDay, toDate: overview.lastDay }
})

const openPeople = (colorScheme: 'light' | 'dark', hash = '#/people') => openView(ui.browser, ui.server, 'People', { colorScheme, hash, allow400: true })

/** The value as the view writes it (see components/people/propertyValue.ts). */
function shown(value: unknown): string {
  if (value === null || value === '' || (Array.isArray(value) && value.length === 0)) return '—'
  if (Array.isArray(value)) return value.join(', ')
  return String(value)
}

/** What the view asks for: every visible user property, and the hidden distinct_id. */
async function apiProfile(xwho: string): Promise<Record<string, unknown>> {
  const meta = (await ui.server.call('GET', '/uba/api/meta/userProperties', { headers })).body as { id: string; visible: number }[]
  const properties = [...meta.filter((p) => p.visible === 1).map((p) => p.id), 'distinct_id']
  const res = await ui.server.call('POST', '/uba/api/users/personal', { headers, body: { xwho, properties } })
  expect(res.status).toBe(200)
  return res.body
}

async function apiSequence(body: Record<string, unknown>): Promise<{ eventId: string; eventTime: string }[]> {
  const res = await ui.server.call('POST', '/uba/api/users/sequence', { headers, body: { ...range, ...body } })
  expect(res.status).toBe(200)
  return res.body.rows
}

/**
 * The timeline as drawn: [time, event display name] per row, in order. Read in one pass in the
 * page, so that a re-render between two reads (a filter, a page of events arriving) cannot pair
 * one list's rows with another's.
 */
async function timelineRows(page: Page): Promise<[string, string][]> {
  return page.getByTestId('timeline-row').evaluateAll((rows) =>
    rows.map((row): [string, string] => [
      row.querySelector('[data-testid="row-time"]')?.textContent?.trim() ?? '',
      row.querySelector('[data-testid="row-event"]')?.textContent?.trim() ?? '',
    ]),
  )
}

/** Waits until the timeline draws `want` (rows and names may still be changing), then checks it. */
async function drawnAs(page: Page, want: [string, string][], first?: number): Promise<void> {
  const drawn = async () => (await timelineRows(page)).slice(0, first)
  await eventually(async () => JSON.stringify(await drawn()) === JSON.stringify(want)).catch(() => undefined)
  expect(await drawn()).toEqual(want)
}

/** API rows as the timeline should draw them: time of day and the event's display name. */
async function expected(rows: { eventId: string; eventTime: string }[]): Promise<[string, string][]> {
  const events = (await ui.server.call('GET', '/uba/api/meta/event', { headers })).body as { id: string; name: string | null }[]
  const names = new Map(events.map((e) => [e.id, e.name || e.id]))
  return rows.map((r) => [r.eventTime.slice(11), names.get(r.eventId) ?? r.eventId])
}

describe('People view', () => {
  it('opens a user by id: the profile and the newest 100 events are the API’s', async () => {
    const { page, problems } = await openPeople('light')
    await page.getByText('Open a user by their id').waitFor()
    await page.getByTestId('people-id').fill(busiest)
    await page.getByTestId('people-id').press('Enter')
    await page.getByTestId('profile-xwho').filter({ hasText: busiest }).waitFor()
    expect(page.url()).toContain(`#/people?xwho=${busiest}`)

    const profile = await apiProfile(busiest)
    expect(await page.getByTestId('profile-distinct-id').textContent()).toBe(String(profile.distinct_id))
    const names = new Map(((await ui.server.call('GET', '/uba/api/meta/userProperties', { headers })).body as { id: string; name: string }[]).map((p) => [p.id, p.name]))
    const entries = Object.entries(profile).filter(([id]) => id !== 'xwho' && id !== 'distinct_id')
    const empty = entries.filter(([, v]) => shown(v) === '—')
    for (const [id, value] of entries.filter(([, v]) => shown(v) !== '—')) {
      const row = page.getByTestId(`prop-${id}`)
      expect(await row.getByTestId('prop-value').textContent(), id).toBe(shown(value))
      expect(await row.locator('.name').textContent(), id).toBe(names.get(id) ?? id)
    }
    if (empty.length) {
      await page.getByTestId('toggle-empty').click()
      for (const [id] of empty) expect(await page.getByTestId(`prop-${id}`).getByTestId('prop-value').textContent()).toBe('—')
    }

    const rows = await apiSequence({ xwho: busiest, limit: 100 })
    expect(rows).toHaveLength(100)
    await eventually(async () => (await page.getByTestId('timeline-row').count()) === 100)
    await drawnAs(page, await expected(rows))
    // newest first, one heading per day
    const days = [...new Set(rows.map((r) => r.eventTime.slice(0, 10)))]
    expect(await page.getByTestId('day-label').count()).toBe(days.length)
    expect(await page.getByTestId('timeline-count').textContent()).toContain('100 newest events')

    // a row opens onto every property, with display names
    await page.getByTestId('timeline-row').first().getByRole('button').click()
    await page.getByTestId('row-details').first().waitFor()
    await page.screenshot({ path: join(RESULTS, 'people-profile.png'), fullPage: false })
    await page.screenshot({ path: join(RESULTS, 'people-profile-full.png'), fullPage: true })
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('loads more events, then filters by event; every step matches the API', async () => {
    const { page, problems } = await openPeople('light', `#/people?xwho=${busiest}`)
    await eventually(async () => (await page.getByTestId('timeline-row').count()) === 100)
    await page.getByTestId('load-more').click()
    const all = await apiSequence({ xwho: busiest, limit: 200 })
    await eventually(async () => (await page.getByTestId('timeline-row').count()) === all.length)
    await drawnAs(page, await expected(all))
    await page.getByText('That is every event in this range.').waitFor()

    await page.getByTestId('event-picker').click()
    await page.getByTestId('event-option-view_product').check()
    await page.screenshot({ path: join(RESULTS, 'people-event-picker.png') })
    await page.keyboard.press('Escape')
    const views = await apiSequence({ xwho: busiest, limit: 100, events: ['view_product'] })
    expect(views.length).toBeGreaterThan(0)
    await drawnAs(page, await expected(views))
    expect(await page.getByTestId('event-picker').textContent()).toContain('View product')
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('opens a deep link ?xwho= straight onto the user, and by distinct id too (dark theme)', async () => {
    const { page, problems } = await openPeople('dark', `#/people?xwho=${busiest}`)
    await page.getByTestId('profile-xwho').filter({ hasText: busiest }).waitFor()
    await eventually(async () => (await page.getByTestId('timeline-row').count()) === 100)
    const rows = await apiSequence({ xwho: busiest, limit: 3 })
    await drawnAs(page, await expected(rows), 3)
    await page.screenshot({ path: join(RESULTS, 'people-profile-dark.png') })

    const profile = await apiProfile(busiest)
    await page.getByTestId('people-kind').selectOption('distinctId')
    await page.getByTestId('people-id').fill(String(profile.distinct_id))
    await page.getByTestId('people-open').click()
    await eventually(async () => page.url().includes(`distinctId=${profile.distinct_id}`))
    await page.getByTestId('profile-xwho').filter({ hasText: busiest }).waitFor()

    // away and back through the sidebar: the user is still open, and the address says who
    await page.getByRole('link', { name: 'SQL' }).click()
    await page.getByRole('heading', { name: 'SQL', level: 1 }).waitFor()
    await page.getByRole('link', { name: 'People' }).click()
    await page.getByTestId('profile-xwho').filter({ hasText: busiest }).waitFor()
    await eventually(async () => page.url().includes(`#/people?distinctId=${profile.distinct_id}`))
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('offers the most active users of the last week of data while no user is open', async () => {
    const { page, problems } = await openPeople('light')
    const since = Number(new Date(Date.parse(`${range.toDate}T00:00:00Z`) - 6 * 86_400_000).toISOString().slice(0, 10).replaceAll('-', ''))
    const top = await warehouseRows(ui.server, headers.appKey, `SELECT xwho, count(*) AS n FROM event_vd WHERE ds >= ${since} GROUP BY xwho ORDER BY n DESC, xwho LIMIT 8`)
    await eventually(async () => (await page.getByTestId('active-user').count()) === top.length)
    const ids = await page.getByTestId('active-user').locator('.id').allTextContents()
    const counts = await page.getByTestId('active-user').locator('.count').allTextContents()
    expect(ids.map((id, i) => [id, counts[i].trim()])).toEqual(top.map((r) => [r.xwho, `${r.n} ${r.n === 1 ? 'event' : 'events'}`]))
    await page.screenshot({ path: join(RESULTS, 'people-empty.png') })
    await page.getByTestId('active-user').first().click()
    await page.getByTestId('profile-xwho').filter({ hasText: String(top[0].xwho) }).waitFor()
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('says so, with the server’s message, when no user has the id', async () => {
    const { page } = await openPeople('light')
    await page.getByTestId('people-id').fill('nobody-at-all')
    await page.getByTestId('people-open').click()
    const api = await ui.server.call('POST', '/uba/api/users/personal', { headers, body: { xwho: 'nobody-at-all' } })
    expect(api.status).toBe(400)
    const error = page.getByTestId('profile-error')
    await error.getByText('No such user in this project').waitFor()
    const message = String(api.body.msg)
    expect((await error.textContent())?.toLowerCase()).toContain(message.toLowerCase())
    await page.screenshot({ path: join(RESULTS, 'people-unknown.png') })
    await page.context().close()
  })

  it('exports the timeline as JSON lines, the same lines the export API streams', async () => {
    const { page, problems } = await openPeople('light', `#/people?xwho=${busiest}`)
    await eventually(async () => (await page.getByTestId('timeline-row').count()) === 100)
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-timeline').click()])
    expect(download.suggestedFilename()).toBe(`${busiest}-events-${range.fromDate}-to-${range.toDate}.jsonl`)
    const file = readFileSync((await download.path())!, 'utf8')
    const api = await ui.server.call('POST', '/uba/api/users/sequence/export', { headers, body: { xwho: busiest, ...range } })
    expect(api.status).toBe(200)
    expect(file).toBe(api.body)
    const lines = file.trim().split('\n')
    expect(lines.length).toBeGreaterThan(100)
    await page.getByTestId('export-status').filter({ hasText: `Exported ${lines.length} events` }).waitFor()
    await page.screenshot({ path: join(RESULTS, 'people-export.png') })
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('exports the timeline as CSV for a spreadsheet: a byte-order mark, a header line, the file the API streams', async () => {
    const { page, problems } = await openPeople('light', `#/people?xwho=${busiest}`)
    await eventually(async () => (await page.getByTestId('timeline-row').count()) === 100)
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-timeline-csv').click()])
    expect(download.suggestedFilename()).toBe(`${busiest}-events-${range.fromDate}-to-${range.toDate}.csv`)
    const file = readFileSync((await download.path())!)
    expect([...file.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const api = await fetch(`${ui.server.url}/uba/api/users/sequence/export?csvUtfEncoding=0`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ xwho: busiest, ...range, format: 'csv' }),
    })
    expect(Buffer.compare(file, Buffer.from(await api.arrayBuffer()))).toBe(0)
    const lines = file.toString('utf8').trimEnd().split('\r\n')
    expect(lines[0]).toMatch(/^\uFEFFxwhat,xwhen,/)
    // the status counts events, not the header line
    await page.getByTestId('export-status').filter({ hasText: `Exported ${lines.length - 1} events` }).waitFor()
    expect(problems).toEqual([])
    await page.context().close()
  })
})
