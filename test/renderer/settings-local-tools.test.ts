import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { openView, RESULTS } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'

/** Settings' "API for local tools": what is copied runs as it is, in a real shell with the real curl. */

const ui = useBrowserTest()

const shell = promisify(execFile)

async function copied(page: Page, button: string): Promise<string> {
  await page.getByRole('button', { name: button }).click()
  await page.getByRole('button', { name: button }).filter({ hasText: 'Copied' }).waitFor()
  return page.evaluate<string>('navigator.clipboard.readText()')
}

describe('Settings: API for local tools', () => {
  it('shows the address and the OpenAPI links, and copies a curl line and a script environment that work as pasted', async () => {
    const { page, problems } = await openView(ui.browser, ui.server, null)
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ui.server.url })
    const card = page.getByTestId('local-tools')
    await card.getByRole('heading', { name: 'API for local tools' }).waitFor()
    expect(await page.getByTestId('local-tools-url').textContent()).toBe(ui.server.url)
    expect(await page.getByTestId('local-tools-docs').getAttribute('href')).toBe(`${ui.server.url}/docs`)
    expect(await page.getByTestId('local-tools-openapi').getAttribute('href')).toBe(`${ui.server.url}/openapi.json`)
    expect((await fetch(`${ui.server.url}/openapi.json`)).status).toBe(200)

    // the screen masks the tokens; the copies hold them
    const first = ui.server.creds.projects[0]
    for (const secret of [ui.server.creds.xtoken, first.token]) {
      expect(await page.getByTestId('local-tools-curl').textContent()).not.toContain(secret)
      expect(await page.getByTestId('local-tools-env').textContent()).not.toContain(secret)
    }

    const curl = await copied(page, 'Copy curl command')
    expect(curl).toBe(`curl -s '${ui.server.url}/uba/manage/enterprise/projects' -H 'xtoken: ${ui.server.creds.xtoken}'`)
    const projects = JSON.parse((await shell('sh', ['-c', curl])).stdout) as { appKey: string }[]
    expect(projects.map((p) => p.appKey)).toContain(first.appKey)

    await page.getByRole('button', { name: 'Copy environment variables' }).and(page.locator(':enabled')).waitFor()
    const env = await copied(page, 'Copy environment variables')
    expect(env.split('\n')).toEqual([
      `export UBA_DESK_URL='${ui.server.url}'`,
      `export UBA_DESK_XTOKEN='${ui.server.creds.xtoken}'`,
      `export UBA_DESK_APPKEY='${first.appKey}'`,
      `export UBA_DESK_TOKEN='${first.token}'`,
    ])
    // a script that uses the project headers from the environment
    const script = `${env}\ncurl -s -o /dev/null -w '%{http_code}' "$UBA_DESK_URL/uba/manage/project/roles" -H "appKey: $UBA_DESK_APPKEY" -H "token: $UBA_DESK_TOKEN"`
    expect((await shell('sh', ['-c', script])).stdout).toBe('200')

    await card.screenshot({ path: join(RESULTS, 'settings-local-tools.png') })
    expect(problems).toEqual([])
    await page.context().close()
  })
})
