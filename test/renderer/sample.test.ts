import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openView, RESULTS, startBrowserTest } from '../helpers/browser'
import { eventually, type TestServer } from '../helpers/server'

let server: TestServer
let browser: Browser
let stop: () => Promise<void>

beforeAll(async () => {
  ;({ server, browser, stop } = await startBrowserTest())
})

afterAll(() => stop?.())

/** Opens the Import view of the first project through the connect link. */
const openImport = (colorScheme: 'light' | 'dark') => openView(browser, server, 'Import', { colorScheme, viewport: { width: 1280, height: 900 } })

describe('Import view: sample data', () => {
  it('offers sample data to an empty project, next to the file import', async () => {
    const { page, problems } = await openImport('light')
    await page.getByRole('heading', { name: 'Load sample data' }).waitFor()
    await page.getByRole('heading', { name: 'Import a file' }).waitFor()
    expect(await page.getByTestId('sample-users').inputValue()).toBe('20000')
    expect(await page.getByTestId('sample-days').inputValue()).toBe('90')
    await page.screenshot({ path: join(RESULTS, 'sample-card.png'), fullPage: true })
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('checks the numbers before asking the server', async () => {
    const { page } = await openImport('light')
    await page.getByTestId('sample-users').fill('0')
    await page.getByTestId('sample-start').click()
    await page.getByText('A whole number from 1 to 5,000,000').waitFor()
    expect((await server.call('GET', '/uba/api/import/jobs', { headers: server.project })).body).toEqual([])
    await page.context().close()
  })

  it('loads the sample with a progress bar, then shows what it wrote and hides the offer from other views of the project', async () => {
    const { page, problems } = await openImport('dark')
    await page.getByTestId('sample-users').fill('20000')
    await page.getByTestId('sample-days').fill('30')
    await page.getByTestId('sample-start').click()
    // the events are the long part: the bar is past the generation of users and sessions by then
    await page.getByText('Writing events').waitFor({ timeout: 60_000 })
    const bar = page.getByRole('progressbar', { name: 'Sample data progress' })
    expect(Number(await bar.getAttribute('aria-valuenow'))).toBeGreaterThanOrEqual(60)
    await page.screenshot({ path: join(RESULTS, 'sample-progress.png'), fullPage: true })
    await page.getByTestId('sample-result').waitFor({ timeout: 120_000 })
    const overview = await server.call('GET', '/uba/api/project', { headers: server.project })
    expect(overview.body.users).toBe(20000)
    await page.getByText(new Intl.NumberFormat('en-US').format(overview.body.events)).waitFor()
    await page.getByText(`${overview.body.firstDay} – ${overview.body.lastDay}`).waitFor()
    await page.screenshot({ path: join(RESULTS, 'sample-result.png'), fullPage: true })
    expect(problems).toEqual([])
    await page.context().close()

    // a project with data is not offered the sample again
    const again = await openImport('light')
    await again.page.getByRole('heading', { name: 'Import a file' }).waitFor()
    await eventually(async () => (await again.page.getByTestId('sample-card').count()) === 0)
    await again.page.context().close()
  })
})
