import { mkdtempSync, rmSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openView, RESULTS } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'
import { eventually } from '../helpers/server'

const ui = useBrowserTest()
let extra: string

beforeAll(async () => {
  extra = mkdtempSync(join(tmpdir(), 'uba-folders-'))
})

afterAll(async () => {
  rmSync(extra, { recursive: true, force: true })
})

const ROOTS = '/uba/manage/enterprise/settings/importRoots'

describe('Settings: import folders', () => {
  it('shows the default folders, saves an edited list the API then answers, and shows a refusal naming the line', async () => {
    const { page, problems } = await openView(ui.browser, ui.server, null, { allow400: true })
    const input = page.getByTestId('import-folders-input')
    await eventually(async () => (await input.count()) === 1 && (await input.inputValue()) === [homedir(), tmpdir()].join('\n'))
    expect(await page.getByTestId('import-folders').textContent()).toContain('the defaults')

    await input.fill(`${tmpdir()}\n\n  ${extra}  \n`)
    await page.getByTestId('import-folders-save').click()
    await page.getByTestId('import-folders-saved').waitFor()
    const saved = await ui.server.call('GET', ROOTS, { headers: { xtoken: ui.server.creds.xtoken } })
    expect(saved.body).toEqual({ roots: [tmpdir(), extra], defaults: false, commandLine: [] })
    await page.screenshot({ path: join(RESULTS, 'settings-import-folders.png'), fullPage: true })

    await input.fill('relative/folder')
    await page.getByTestId('import-folders-save').click()
    const error = page.getByTestId('import-folders-error')
    await error.waitFor()
    expect(await error.textContent()).toContain('roots[0]: an absolute folder path')
    // nothing changed on a refusal
    expect((await ui.server.call('GET', ROOTS, { headers: { xtoken: ui.server.creds.xtoken } })).body.roots).toEqual([tmpdir(), extra])
    expect(problems).toEqual([])
    await page.context().close()
  })
})
