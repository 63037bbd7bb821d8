import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openView, RESULTS } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'
import { eventually } from '../helpers/server'

const ui = useBrowserTest()

describe('First start', () => {
  it('a project without data opens on a welcome that offers the sample data, an import and the API; with data it is gone', async () => {
    const { page, problems } = await openView(ui.browser, ui.server, null)
    const welcome = page.getByTestId('welcome')
    await welcome.waitFor()
    expect(await welcome.getByRole('heading', { level: 2 }).textContent()).toContain('no data yet')
    expect(await page.getByTestId('welcome-docs').getAttribute('href')).toBe(`${ui.server.url}/docs`)
    expect(await welcome.textContent()).toContain(ui.server.url)
    await page.screenshot({ path: join(RESULTS, 'welcome.png'), fullPage: true })
    await page.getByTestId('welcome-sample').click()
    await page.getByRole('heading', { name: 'Import', level: 1 }).waitFor()
    await page.getByTestId('sample-card').waitFor()
    await page.goBack()
    await page.getByTestId('welcome-import').click()
    await page.getByRole('heading', { name: 'Import', level: 1 }).waitFor()

    const headers = ui.server.project
    const job = await ui.server.call('POST', '/uba/api/import/sample', { headers, body: { users: 20, days: 3 } })
    expect(job.status).toBe(200)
    await eventually(async () => (await ui.server.call('GET', `/uba/api/import/jobs/${job.body.id}`, { headers })).body.state === 'succeeded', 60_000)
    await page.getByRole('link', { name: 'Settings' }).click()
    await page.getByTestId('project-events').filter({ hasText: /^[1-9]/ }).waitFor()
    expect(await welcome.count()).toBe(0)
    expect(problems).toEqual([])
    await page.context().close()
  }, 90_000)
})
