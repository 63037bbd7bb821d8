import { join } from 'node:path'
import * as XLSX from 'xlsx'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { openView, RESULTS } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'
import { fixture } from '../helpers/ingest'

const ui = useBrowserTest()

const CITIES = ['Paris', 'Rome', 'Oslo', 'Lima']

/**
 * Events under headers the mapping cannot guess, with one row whose time is not a time (line
 * `badRow` + 1 of the file, record `badRow`). Large enough that the import runs for a few seconds.
 */
function eventsCsv(rows: number, badRow: number): string {
  const lines = ['member,action_name,occurred,price,City,junk']
  for (let i = 1; i <= rows; i++) {
    const time = i === badRow ? 'yesterday' : `2024-01-${String(1 + (i % 28)).padStart(2, '0')} 10:${String(i % 60).padStart(2, '0')}:00`
    lines.push(`u${i % 5000},${i % 3 ? 'view_item' : 'buy'},${time},${(i % 100) + 0.5},${CITIES[i % 4]},x${i}`)
  }
  return `${lines.join('\n')}\n`
}

async function openImport(colorScheme: 'light' | 'dark'): Promise<{ page: Page; problems: string[] }> {
  const opened = await openView(ui.browser, ui.server, 'Import', { colorScheme })
  await opened.page.getByRole('heading', { name: 'Import a file' }).waitFor()
  return opened
}

/** Text of every header cell of the preview table. */
async function previewHeader(page: Page): Promise<string> {
  return (await page.getByTestId('preview-table').locator('thead').textContent()) ?? ''
}

describe('Import view: a file', () => {
  it('imports a CSV mapped by hand, shows the progress, and sums it up as the API does, rejected row included', async () => {
    const ROWS = 300_000
    const BAD = 7
    const file = fixture('shop events.csv', eventsCsv(ROWS, BAD))
    const { page, problems } = await openImport('light')
    await page.getByTestId('import-file').setInputFiles(file)
    await page.getByTestId('chosen-file').filter({ hasText: 'shop events.csv' }).waitFor()

    // nothing in the header says which column is the user, the event or the time
    await page.getByTestId('mapping-problem').waitFor()
    await page.getByTestId('map-xwho').selectOption('member')
    await page.getByTestId('map-xwhat').selectOption('action_name')
    await page.getByTestId('map-xwhen').selectOption('occurred')
    await page.getByTestId('preview-table').waitFor()
    await page.getByTestId('preview-summary').filter({ hasText: '1 would be rejected' }).waitFor()
    await page.getByTestId('preview-problems').getByText('is not a time').waitFor()

    // City becomes `town`, junk stays out
    await page.getByTestId('rename-City').fill('town')
    await page.getByTestId('rename-City').press('Enter')
    await page.getByTestId('include-junk').uncheck()
    await page.getByTestId('preview-table').locator('thead', { hasText: 'town' }).waitFor()
    await page.waitForFunction(`!document.querySelector('[data-testid="preview-table"] thead')?.textContent?.includes('junk')`)
    expect(await previewHeader(page)).toContain('price number')
    await page.screenshot({ path: join(RESULTS, 'import-mapping.png'), fullPage: true })

    await page.getByTestId('on-error-skip').check()
    await page.getByTestId('import-start').click()
    // the bar moves while the job runs
    const bar = page.getByRole('progressbar', { name: 'Import progress' })
    await bar.waitFor({ timeout: 30_000 })
    await page.getByTestId('import-progress').getByText(/Checking every record|Writing to the warehouse|Reading the file/).waitFor({ timeout: 30_000 })
    await page.screenshot({ path: join(RESULTS, 'import-progress.png'), fullPage: true })
    await page.locator('[data-testid="import-job"][data-state="succeeded"]').waitFor({ timeout: 120_000 })

    const jobs = await ui.server.call('GET', '/uba/api/import/jobs', { headers: ui.server.project })
    const listed = (jobs.body as { id: string; source: string }[]).find((j) => j.source === 'shop events.csv')
    expect(listed).toBeDefined()
    const job = (await ui.server.call('GET', `/uba/api/import/jobs/${listed!.id}`, { headers: ui.server.project })).body
    expect(job).toMatchObject({ state: 'succeeded', rowsRead: ROWS, rowsRejected: 1, result: { eventsWritten: ROWS - 1 } })
    const format = new Intl.NumberFormat('en-US').format
    expect(await page.getByTestId('summary-read').textContent()).toBe(format(job.rowsRead))
    expect(await page.getByTestId('summary-written').textContent()).toBe(format(job.result.eventsWritten))
    expect(await page.getByTestId('summary-rejected').textContent()).toBe(format(job.rowsRejected))
    const rejected = page.getByTestId('rejected-rows').locator('tbody tr')
    expect(await rejected.count()).toBe(1)
    const cells = await rejected.first().locator('td').allTextContents()
    expect(cells.map((c) => c.trim())).toEqual([String(job.rejected[0].row), 'xwhen', 'yesterday', job.rejected[0].reason])
    expect(job.rejected[0]).toMatchObject({ row: BAD, property: 'xwhen', value: 'yesterday' })
    await page.screenshot({ path: join(RESULTS, 'import-summary.png'), fullPage: true })

    // what the mapping said is what the plan now holds
    const props = await ui.server.call('GET', '/uba/api/schema/eventProperties?eventId=buy', { headers: ui.server.project })
    const ids = (props.body as { id: string; dataType: string }[]).map((p) => p.id)
    expect(ids).toContain('town')
    expect(ids).not.toContain('junk')
    expect((props.body as { id: string; dataType: string }[]).find((p) => p.id === 'price')?.dataType).toBe('number')

    // the job is first in the recent list
    await page.getByTestId('recent-imports').locator('tbody tr').first().getByText('shop events.csv').waitFor()
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('cancels a running import, which writes nothing; in the dark theme', async () => {
    const before = (await ui.server.call('GET', '/uba/api/project', { headers: ui.server.project })).body.events as number
    const file = fixture('more.csv', eventsCsv(400_000, 0).replace('member,action_name,occurred', 'user_id,event,time'))
    const { page, problems } = await openImport('dark')
    await page.getByTestId('import-file').setInputFiles(file)
    // these headers are guessed
    await page.getByTestId('preview-table').waitFor()
    expect(await page.getByTestId('map-xwho').inputValue()).toBe('user_id')
    expect(await page.getByTestId('map-xwhen').inputValue()).toBe('time')
    await page.screenshot({ path: join(RESULTS, 'import-mapping-dark.png'), fullPage: true })

    await page.getByTestId('import-start').click()
    await page.getByTestId('import-progress').waitFor({ timeout: 30_000 })
    await page.screenshot({ path: join(RESULTS, 'import-progress-dark.png'), fullPage: true })
    await page.getByTestId('import-cancel').click()
    await page.locator('[data-testid="import-job"][data-state="cancelled"]').waitFor({ timeout: 60_000 })
    await page.getByText('Cancelled: nothing was imported').waitFor()

    const jobs = (await ui.server.call('GET', '/uba/api/import/jobs', { headers: ui.server.project })).body as { source: string; state: string }[]
    expect(jobs.find((j) => j.source === 'more.csv')?.state).toBe('cancelled')
    expect((await ui.server.call('GET', '/uba/api/project', { headers: ui.server.project })).body.events).toBe(before)
    await page.screenshot({ path: join(RESULTS, 'import-cancelled-dark.png'), fullPage: true })
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('says what is wrong with a file it cannot read, in the server’s words', async () => {
    const file = fixture('broken.parquet', 'this is not parquet')
    const { page } = await openImport('light')
    await page.getByTestId('import-file').setInputFiles(file)
    await page.getByText('The file could not be previewed').waitFor()
    const message = await page.getByRole('alert').textContent()
    const direct = await (async () => {
      const form = new FormData()
      form.append('format', 'parquet')
      form.append('kind', 'events')
      form.append('file', new Blob(['this is not parquet']), 'broken.parquet')
      const res = await fetch(`${ui.server.url}/uba/api/import/preview?rows=20`, { method: 'POST', headers: ui.server.project, body: form })
      return (await res.json()) as { msg: string }
    })()
    expect(message?.toLowerCase()).toContain(direct.msg.toLowerCase().slice(0, 40))
    await page.context().close()
  })

  it('reads a spreadsheet\'s semicolon CSV by the separator its header shows, and by the one the user picks; numbers with a decimal comma', async () => {
    // what a spreadsheet writes where the decimal mark is a comma: a byte order mark, CRLF, commas inside cells
    const csv = '\uFEFFshopper;action;at;basket;note;total\r\nk1;order;2024-03-01 09:00:00;a,b;first, then more;12,5\r\nk2;order;2024-03-02 10:30:00;c;plain;3\r\n'
    const { page, problems } = await openImport('light')
    await page.getByTestId('import-file').setInputFiles(fixture('orders semicolon.csv', csv))
    await page.getByTestId('mapping-problem').waitFor()
    expect(await page.getByTestId('import-delimiter').inputValue()).toBe(';')
    const columns = () => page.getByTestId('map-xwho').locator('option').allTextContents()
    expect(await columns()).toEqual(expect.arrayContaining(['shopper', 'action', 'at', 'basket', 'note']))

    // read with commas, the header is one cell and the first line three: the server says so
    await page.getByTestId('import-delimiter').selectOption(',')
    await page.getByText('The file could not be previewed').waitFor()
    const refused = await page.getByRole('alert').filter({ hasText: 'could not be previewed' }).textContent()
    expect(refused?.toLowerCase()).toContain('line 2 has 4 cells where the header has 1')
    // the preview read with commas is gone with them
    expect(await page.getByTestId('map-xwho').count()).toBe(0)
    await page.getByTestId('import-delimiter').selectOption(';')
    await page.getByText('The file could not be previewed').waitFor({ state: 'detached' })
    await expect.poll(columns).toContain('shopper')
    await page.getByTestId('map-xwho').selectOption('shopper')
    await page.getByTestId('map-xwhat').selectOption('action')
    await page.getByTestId('map-xwhen').selectOption('at')
    await page.getByTestId('preview-table').getByText('first, then more').waitFor()
    // 12,5 is text until the decimal mark is a comma
    const totalType = page.getByTestId('preview-table').locator('thead th', { hasText: 'total' })
    await expect.poll(() => totalType.textContent()).toContain('string')
    await page.getByTestId('import-decimal').selectOption(',')
    await expect.poll(() => totalType.textContent()).toContain('number')
    await page.screenshot({ path: join(RESULTS, 'import-semicolon.png'), fullPage: true })
    await page.getByTestId('import-start').click()
    await page.locator('[data-testid="import-job"][data-state="succeeded"]').waitFor({ timeout: 60_000 })
    expect(await page.getByTestId('summary-written').textContent()).toBe('2')
    const rows = await ui.server.call('POST', '/uba/api/sql/query', {
      headers: ui.server.project,
      body: { sql: "SELECT xwho, strftime(xwhen, '%Y-%m-%d %H:%M') AS at, basket, note, total FROM event_vd WHERE xwhat = 'order' ORDER BY xwho", format: 'json' },
    })
    expect(rows.body).toEqual([
      { xwho: 'k1', at: '2024-03-01 09:00', basket: 'a,b', note: 'first, then more', total: 12.5 },
      { xwho: 'k2', at: '2024-03-02 10:30', basket: 'c', note: 'plain', total: 3 },
    ])
    // the browser logs the refused preview; nothing else went wrong
    expect(problems.filter((p) => !p.includes('status of 400'))).toEqual([])
    await page.context().close()
  })

  it('imports SDK records without a mapping, and user profiles from the Excel sheet chosen', async () => {
    const { page, problems } = await openImport('light')
    const records = [
      { appid: ui.server.project.appKey, xwho: 'j1', xwhat: 'login', xwhen: Date.UTC(2024, 1, 1, 10), xcontext: { $platform: 'iOS', plan_name: 'pro' } },
      { appid: ui.server.project.appKey, xwho: 'j2', xwhat: 'login', xwhen: Date.UTC(2024, 1, 2, 10), xcontext: { $platform: 'Android', plan_name: 'free' } },
    ]
    await page.getByTestId('import-file').setInputFiles(fixture('sdk.jsonl', records.map((r) => JSON.stringify(r)).join('\n')))
    await page.getByText('No mapping is needed').waitFor()
    await page.getByTestId('preview-table').getByText('plan_name').waitFor()
    await page.getByTestId('import-start').click()
    await page.locator('[data-testid="import-job"][data-state="succeeded"]').waitFor({ timeout: 60_000 })
    expect(await page.getByTestId('summary-written').textContent()).toBe('2')
    await page.getByTestId('import-another').click()

    const book = XLSX.utils.book_new()
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['notes'], ['not data']]), 'Cover')
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['user', 'tier', 'seats'], ['j1', 'gold', 3], ['j2', 'silver', 1], ['j3', 'gold', 8]]), 'Users')
    await page.getByTestId('import-file').setInputFiles(fixture('users.xlsx', XLSX.write(book, { type: 'buffer', bookType: 'xlsx' })))
    await page.getByTestId('kind-profiles').check()
    await page.getByTestId('import-sheet').selectOption('Users')
    await page.getByTestId('preview-table').locator('thead', { hasText: 'seats' }).waitFor()
    expect(await page.getByTestId('map-xwho').inputValue()).toBe('user')
    await page.screenshot({ path: join(RESULTS, 'import-profiles.png'), fullPage: true })
    await page.getByTestId('import-start').click()
    await page.locator('[data-testid="import-job"][data-state="succeeded"]').waitFor({ timeout: 60_000 })
    const jobs = (await ui.server.call('GET', '/uba/api/import/jobs', { headers: ui.server.project })).body as { source: string; kind: string; result: { profilesChanged: number } }[]
    const job = jobs.find((j) => j.source === 'users.xlsx')
    expect(job).toMatchObject({ kind: 'profiles', result: { profilesChanged: 3 } })
    expect(await page.getByTestId('summary-written').textContent()).toBe('3')
    const users = (await ui.server.call('GET', '/uba/api/schema/userProperties', { headers: ui.server.project })).body as { id: string; dataType: string }[]
    expect(users.find((u) => u.id === 'seats')?.dataType).toBe('number')
    expect(problems).toEqual([])
    await page.context().close()
  })
})
