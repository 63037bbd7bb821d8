import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { setSetting } from '../../src-main/domain/platform/settings'
import { nameProblem } from '../../src-renderer/src/components/projectRules'
import { RESULTS } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'
import type { TestServer } from '../helpers/server'

const ui = useBrowserTest()

const PROJECTS = '/uba/manage/enterprise/projects'
// the browser's own zone, so that the dialog's default is known and differs from the zone chosen
const BROWSER_ZONE = 'Europe/Berlin'

interface ListedProject {
  appKey: string
  cname: string
  timeZone: string
  stream: number
}

function platform(method: string, path: string, body?: unknown): ReturnType<TestServer['call']> {
  return ui.server.call(method, path, { headers: { xtoken: ui.server.creds.xtoken }, body })
}

async function listed(): Promise<ListedProject[]> {
  return (await platform('GET', PROJECTS)).body as ListedProject[]
}

/** Opens Settings through the connect link; uncaught page errors are collected in `errors`. */
async function openSettings(colorScheme: 'light' | 'dark'): Promise<{ page: Page; errors: string[] }> {
  const context = await ui.browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme, timezoneId: BROWSER_ZONE })
  const page = await context.newPage()
  const errors: string[] = []
  page.on('pageerror', (err) => errors.push(err.message))
  await page.goto(`${ui.server.url}/#/connect?xtoken=${ui.server.creds.xtoken}`)
  await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor()
  await page.getByTestId('project-events').filter({ hasText: /^\d/ }).waitFor()
  return { page, errors }
}

function newProjectDialog(page: Page) {
  return page.getByRole('dialog', { name: 'New project' })
}

async function chooseZone(page: Page, search: string): Promise<void> {
  await page.getByTestId('new-project-zone').click()
  await page.getByRole('combobox', { name: 'Search time zone' }).fill(search)
  await page.keyboard.press('Enter')
}

describe('Settings: projects and the data stream', () => {
  it('creates a project in the time zone chosen, waits for it, and switches to it', async () => {
    const { page, errors } = await openSettings('light')
    await page.getByTestId('new-project').click()
    const dialog = newProjectDialog(page)
    await dialog.waitFor()
    expect(await page.getByTestId('new-project-zone').textContent()).toContain(BROWSER_ZONE)

    // a name the server refuses is refused here first, in the server's words
    await page.getByTestId('new-project-name').fill('Tokyo Shop')
    await page.getByTestId('new-project-name-note').filter({ hasText: 'Only English letters and digits, 1-50 characters' }).waitFor()
    expect(await page.getByTestId('new-project-create').isDisabled()).toBe(true)
    await newProjectDialog(page).screenshot({ path: join(RESULTS, 'settings-new-project-bad-name.png') })
    const refused = await platform('POST', PROJECTS, { name: 'Tokyo Shop' })
    expect(refused.status).toBe(400)
    expect(refused.body.msg).toContain('only English letters and digits, 1-50 characters')

    await page.getByTestId('new-project-name').fill('TokyoShop')
    await chooseZone(page, 'tokyo')
    expect(await page.getByTestId('new-project-zone').textContent()).toContain('Asia/Tokyo')
    await page.screenshot({ path: join(RESULTS, 'settings-new-project.png') })

    await page.getByTestId('new-project-create').click()
    await dialog.waitFor({ state: 'hidden' })
    await page.getByTestId('project-name').filter({ hasText: /^TokyoShop$/ }).waitFor()

    const created = (await listed()).find((p) => p.cname === 'TokyoShop')
    expect(created?.timeZone).toBe('Asia/Tokyo')
    const detail = await platform('GET', `${PROJECTS}/${created?.appKey}`)
    expect(detail.body.finish).toBe(true)
    expect(await page.getByTestId('sidebar-project').inputValue()).toBe(created?.appKey)
    expect(await page.getByTestId('cred-appKey').textContent()).toBe(created?.appKey)
    expect(await page.getByTestId('project-zone').textContent()).toContain('Asia/Tokyo')
    await page.screenshot({ path: join(RESULTS, 'settings-project-created.png') })
    expect(errors).toEqual([])
    await page.context().close()
  })

  it('starts the data stream and stops it again, showing the states the server reports', async () => {
    const { appKey } = ui.server.project
    const { page, errors } = await openSettings('light')
    await page.getByTestId('settings-project').selectOption(appKey)
    const badge = page.getByTestId('stream-row').getByTestId('stream-state')
    const toggle = page.getByRole('switch', { name: 'Data stream' })
    await badge.filter({ hasText: 'Not started' }).waitFor()
    expect(await toggle.getAttribute('aria-checked')).toBe('false')
    expect(await page.getByTestId('stream-row').textContent()).toContain(`${ui.server.url}/up`)

    await toggle.click()
    await badge.filter({ hasText: /^Started$/ }).waitFor()
    expect(await toggle.getAttribute('aria-checked')).toBe('true')
    expect(await toggle.isEnabled()).toBe(true)
    expect((await platform('GET', `${PROJECTS}/${appKey}`)).body.stream).toBe(2)
    await page.screenshot({ path: join(RESULTS, 'settings-stream-on.png'), fullPage: true })

    await toggle.click()
    await badge.filter({ hasText: 'Not started' }).waitFor()
    expect(await toggle.getAttribute('aria-checked')).toBe('false')
    expect((await platform('GET', `${PROJECTS}/${appKey}`)).body.stream).toBe(0)
    expect((await listed()).find((p) => p.appKey === appKey)?.stream).toBe(0)
    expect(errors).toEqual([])
    await page.context().close()
  })

  it("shows the server's refusal when the project quota is reached", async () => {
    const count = (await listed()).length
    setSetting(ui.server.app.ctx.meta, 'quota.projects', String(count))
    try {
      const { page } = await openSettings('light')
      await page.getByTestId('new-project').click()
      await page.getByTestId('new-project-name').fill('OneTooMany')
      await page.getByTestId('new-project-create').click()
      const error = page.getByTestId('new-project-error')
      await error.waitFor()
      const answer = await platform('POST', PROJECTS, { name: 'OneTooMany' })
      expect(answer.status).toBe(501)
      expect((await error.textContent())?.toLowerCase()).toContain(String(answer.body.msg).toLowerCase())
      await page.screenshot({ path: join(RESULTS, 'settings-new-project-refused.png') })
      // the dialog stays open with what was typed, for another try
      expect(await page.getByTestId('new-project-name').inputValue()).toBe('OneTooMany')
      expect((await listed()).length).toBe(count)
      await page.context().close()
    } finally {
      setSetting(ui.server.app.ctx.meta, 'quota.projects', '100')
    }
  })

  it('the sidebar opens the same dialog, and it looks right in the dark theme', async () => {
    const { page, errors } = await openSettings('dark')
    await page.getByTestId('stream-row').waitFor()
    await page.screenshot({ path: join(RESULTS, 'settings-projects-dark.png'), fullPage: true })
    await page.getByTestId('sidebar-new-project').click()
    await newProjectDialog(page).waitFor()
    await page.getByTestId('new-project-name').fill('Night')
    await page.getByTestId('new-project-zone').click()
    await page.getByRole('combobox', { name: 'Search time zone' }).fill('america')
    await page.screenshot({ path: join(RESULTS, 'settings-new-project-dark.png') })
    await page.keyboard.press('Escape')
    await page.keyboard.press('Escape')
    await newProjectDialog(page).waitFor({ state: 'hidden' })
    expect((await listed()).some((p) => p.cname === 'Night')).toBe(false)
    expect(errors).toEqual([])
    await page.context().close()
  })

  it('judges project names exactly as the server does', async () => {
    const names = ['', 'a', 'Shop2', 'A'.repeat(50), 'A'.repeat(51), 'a b', 'Café', 'a_b', 'a-b', '商店']
    for (const name of names) {
      const answer = await platform('POST', PROJECTS, { name })
      expect({ name, accepted: nameProblem(name) === '' }).toEqual({ name, accepted: answer.status === 200 })
    }
  })
})
