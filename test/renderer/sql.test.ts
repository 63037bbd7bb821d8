import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openView, RESULTS, startBrowserTest } from '../helpers/browser'
import { eventually, type TestServer } from '../helpers/server'

let server: TestServer
let browser: Browser
let stop: () => Promise<void>
let headers: { appKey: string; token: string }

beforeAll(async () => {
  ;({ server, browser, stop } = await startBrowserTest())
  headers = server.project
  const job = await server.call('POST', '/uba/api/import/sample', { headers, body: { users: 300, days: 30 } })
  expect(job.status).toBe(200)
  await eventually(async () => (await server.call('GET', `/uba/api/import/jobs/${job.body.id}`, { headers })).body.state === 'succeeded', 60_000)
})

afterAll(() => stop?.())

async function openSql(colorScheme: 'light' | 'dark'): Promise<{ page: Page; problems: string[] }> {
  const { page, problems } = await openView(browser, server, 'SQL', { colorScheme, allow400: true })
  // the table list comes from the metadata API: once it is there, completion knows the columns
  await page.getByRole('button', { name: 'profile_vd', exact: true }).waitFor()
  return { page, problems }
}

/** Types into the editor as a user would, key by key. */
async function typeQuery(page: Page, sql: string): Promise<void> {
  await page.getByTestId('sql-editor').click()
  await page.keyboard.type(sql)
}

/** A value as the grid writes it (see components/sql/cells.ts). */
function cell(value: unknown): string {
  if (value === null || value === undefined) return 'NULL'
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

async function apiQuery(sql: string): Promise<Record<string, unknown>[]> {
  const res = await server.call('POST', '/uba/api/sql/query', { headers, body: { sql, format: 'json' } })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body
}

/** The grid as drawn: header names and the cells of every drawn row (without the row number). */
async function grid(page: Page): Promise<{ columns: string[]; rows: string[][] }> {
  const columns = (await page.getByTestId('result-column').allTextContents()).map((c) => c.trim())
  const rows: string[][] = []
  for (const row of await page.getByTestId('result-row').all()) rows.push((await row.locator('td').allTextContents()).slice(1).map((c) => c.trim()))
  return { columns, rows }
}

describe('SQL view', () => {
  it('runs a query typed with the keyboard on Ctrl+Enter; the grid is the API’s answer', async () => {
    const { page, problems } = await openSql('light')
    const sql = 'SELECT "$os" AS os, xwhat, count(*) AS events, round(avg("$screen_width"), 1) AS width FROM event_vd GROUP BY ALL ORDER BY events DESC, os, xwhat LIMIT 40'
    await typeQuery(page, sql)
    await page.keyboard.press('Control+Enter')
    await page.getByTestId('result-summary').waitFor()

    const rows = await apiQuery(sql)
    expect(rows.length).toBeGreaterThan(20)
    expect(await page.getByTestId('result-count').textContent()).toBe(`${rows.length} rows`)
    expect(await page.getByTestId('result-time').textContent()).toMatch(/^[\d,]+ ms$/)
    const drawn = await grid(page)
    expect(drawn.columns).toEqual(['os', 'xwhat', 'events', 'width'])
    expect(drawn.rows.length).toBeGreaterThan(10)
    expect(drawn.rows).toEqual(rows.slice(0, drawn.rows.length).map((r) => drawn.columns.map((c) => cell(r[c]))))
    await page.screenshot({ path: join(RESULTS, 'sql-result.png') })

    // the query is in the history, and comes back from it
    await page.getByTestId('sql-editor').click()
    await page.keyboard.press('Control+a')
    await page.keyboard.press('Delete')
    await page.getByTestId('history-toggle').click()
    await page.getByTestId('history-entry').first().waitFor()
    await page.screenshot({ path: join(RESULTS, 'sql-history.png') })
    await page.getByTestId('history-entry').first().click()
    expect(await page.getByTestId('sql-editor').textContent()).toBe(sql)

    // undo steps back through the pick and the deletion; redo goes forward again
    await page.keyboard.press('Control+z')
    await page.locator('.cm-placeholder').waitFor()
    await page.keyboard.press('Control+z')
    expect(await page.getByTestId('sql-editor').textContent()).toBe(sql)
    await page.keyboard.press('Control+Shift+z')
    await page.locator('.cm-placeholder').waitFor()
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('completes column names of the table read, quoting the ones with $', async () => {
    const { page, problems } = await openSql('light')
    await typeQuery(page, 'SELECT  FROM event_vd WHERE xwhat = \'pay\' LIMIT 3')
    await page.keyboard.press('Home')
    for (let i = 0; i < 'SELECT '.length; i++) await page.keyboard.press('ArrowRight')
    await page.keyboard.type('$os_ver')
    const option = page.locator('.cm-tooltip-autocomplete li', { hasText: '$os_version' })
    await option.waitFor()
    await page.screenshot({ path: join(RESULTS, 'sql-completion.png') })
    await page.keyboard.press('Enter')
    expect(await page.getByTestId('sql-editor').textContent()).toBe('SELECT "$os_version" FROM event_vd WHERE xwhat = \'pay\' LIMIT 3')
    await page.keyboard.press('Control+Enter')
    await page.getByTestId('result-summary').waitFor()
    expect((await grid(page)).columns).toEqual(['$os_version'])
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('shows the server’s message when the query is refused (dark theme)', async () => {
    const { page } = await openSql('dark')
    const sql = 'SELECT no_such_column FROM event_vd'
    await typeQuery(page, sql)
    await page.getByTestId('sql-run').click()
    const res = await server.call('POST', '/uba/api/sql/query', { headers, body: { sql, format: 'json' } })
    expect(res.status).toBe(400)
    const error = page.getByTestId('sql-error')
    await error.getByText('The query was refused').waitFor()
    const message = String(res.body.msg)
    expect((await error.textContent())?.toLowerCase()).toContain(message.slice(0, 60).toLowerCase())
    await page.screenshot({ path: join(RESULTS, 'sql-error-dark.png') })

    // a good query afterwards replaces the message with rows
    await page.getByTestId('sql-editor').click()
    await page.keyboard.press('Control+a')
    await page.keyboard.type('SELECT xwho, age FROM profile_vd ORDER BY xwho LIMIT 5')
    await page.keyboard.press('Control+Enter')
    await page.getByTestId('result-count').filter({ hasText: '5 rows' }).waitFor()
    expect(await page.getByTestId('sql-error').count()).toBe(0)
    await page.screenshot({ path: join(RESULTS, 'sql-result-dark.png') })
    await page.context().close()
  })

  it('exports CSV: the downloaded file is what the export API streams', async () => {
    const { page, problems } = await openSql('light')
    const sql = 'SELECT xwho, xwhat, xwhen, "$city" FROM event_vd ORDER BY xwhen, xwho, xwhat'
    await typeQuery(page, sql)
    await page.getByTestId('sql-export').click()
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('sql-export-csv').click()])
    expect(download.suggestedFilename()).toMatch(/^query-\d{8}-\d{6}\.csv$/)
    const file = readFileSync((await download.path())!, 'utf8')
    const api = await server.call('POST', '/uba/api/sql/export', { headers, body: { sql, format: 'csv' } })
    expect(api.status).toBe(200)
    expect(file).toBe(api.body)
    const events = (await apiQuery('SELECT count(*) AS n FROM event_vd'))[0].n as number
    expect(file.trimEnd().split('\r\n')).toHaveLength(events + 1)
    await page.getByTestId('sql-export-status').filter({ hasText: `Exported ${new Intl.NumberFormat('en-US').format(events)} rows` }).waitFor()
    await page.screenshot({ path: join(RESULTS, 'sql-export.png') })
    expect(problems).toEqual([])
    await page.context().close()
  })
})
