import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { openView, RESULTS } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'
import { eventually } from '../helpers/server'

const ui = useBrowserTest()

/** What the web UI keeps in localStorage (a string: these tests are type-checked without the DOM lib). */
function storedXtoken(page: Page): Promise<string | null> {
  return page.evaluate<string | null>("localStorage.getItem('uba-desk.xtoken')")
}

/** Opens the connect link the server prints and waits for the Settings view it leads to. */
async function openConnectLink(colorScheme: 'light' | 'dark'): Promise<Page> {
  const { page, problems } = await openView(ui.browser, ui.server, null, { colorScheme })
  await page.getByTestId('project-events').filter({ hasText: /^\d/ }).waitFor()
  expect(problems).toEqual([])
  return page
}

describe('Settings view in a browser', () => {
  it('connects with the link xtoken, removes it from the address, and shows the exact credentials', async () => {
    const page = await openConnectLink('light')
    const first = ui.server.creds.projects[0]

    expect(page.url()).not.toContain(ui.server.creds.xtoken)
    expect(page.url()).toMatch(/#\/settings$/)
    expect(await storedXtoken(page)).toBe(ui.server.creds.xtoken)

    // secrets are masked until asked for
    await expect(page.getByTestId('cred-token').textContent()).resolves.not.toContain(first.token)
    await page.getByTestId('show-token').click()
    await page.getByTestId('show-xtoken').click()

    expect(await page.getByTestId('cred-appKey').textContent()).toBe(first.appKey)
    expect(await page.getByTestId('cred-token').textContent()).toBe(first.token)
    expect(await page.getByTestId('cred-xtoken').textContent()).toBe(ui.server.creds.xtoken)
    expect(await page.getByTestId('cred-apiBase').textContent()).toBe(ui.server.url)
    expect(await page.getByTestId('project-name').textContent()).toBe(first.name)
    expect(await page.getByTestId('sidebar-project').inputValue()).toBe(first.appKey)

    await page.screenshot({ path: join(RESULTS, 'settings.png'), fullPage: true })

    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ui.server.url })
    await page.getByRole('button', { name: 'Copy appKey' }).click()
    await page.getByRole('button', { name: 'Copy appKey' }).filter({ hasText: 'Copied' }).waitFor()
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(first.appKey)
    await page.context().close()
  })

  it('looks right in the dark theme too', async () => {
    const page = await openConnectLink('dark')
    await page.screenshot({ path: join(RESULTS, 'settings-dark.png'), fullPage: true })
    await page.context().close()
  })

  it('refuses a wrong xtoken with a clear message and keeps asking for one', async () => {
    const context = await ui.browser.newContext({ viewport: { width: 1280, height: 800 } })
    const page = await context.newPage()
    await page.goto(`${ui.server.url}/#/charts`)
    await page.getByLabel('xtoken').waitFor()
    expect(page.url()).toMatch(/#\/connect$/)
    await page.getByLabel('xtoken').fill('not-the-xtoken')
    await page.getByRole('button', { name: 'Connect' }).click()
    await page.getByText('That xtoken was refused').waitFor()
    expect(await storedXtoken(page)).toBeNull()
    await page.screenshot({ path: join(RESULTS, 'connect-refused.png') })
    await context.close()
  })

  it('switching the project in Settings changes it everywhere', async () => {
    const xtoken = { xtoken: ui.server.creds.xtoken }
    const created = await ui.server.call('POST', '/uba/manage/enterprise/projects', { headers: xtoken, body: { name: 'Shop' } })
    expect(created.status).toBe(200)
    const appKey = created.body.appKey as string
    await eventually(async () => (await ui.server.call('GET', `/uba/manage/enterprise/projects/${appKey}`, { headers: xtoken })).body.finish === true)

    const page = await openConnectLink('light')
    await page.getByTestId('settings-project').selectOption(appKey)
    await page.getByTestId('project-name').filter({ hasText: 'Shop' }).waitFor()
    expect(await page.getByTestId('sidebar-project').inputValue()).toBe(appKey)
    expect(await page.getByTestId('cred-appKey').textContent()).toBe(appKey)
    await page.getByTestId('show-token').click()
    const listed = await ui.server.call('GET', '/uba/manage/enterprise/projects', { headers: xtoken })
    const shop = (listed.body as { appKey: string; normalToken: string }[]).find((p) => p.appKey === appKey)
    expect(await page.getByTestId('cred-token').textContent()).toBe(shop?.normalToken)

    // the choice survives a reload (the web case keeps it in localStorage)
    await page.reload()
    await page.getByTestId('project-name').filter({ hasText: 'Shop' }).waitFor()
    await page.context().close()
  })

  it('the sidebar leads to the Import view', async () => {
    const page = await openConnectLink('light')
    await page.getByRole('link', { name: 'Import' }).click()
    await page.getByRole('heading', { name: 'Import', level: 1 }).waitFor()
    await page.getByRole('heading', { name: 'Import a file' }).waitFor()
    expect(page.url()).toMatch(/#\/import$/)
    await page.screenshot({ path: join(RESULTS, 'import.png'), fullPage: true })
    await page.context().close()
  })
})
