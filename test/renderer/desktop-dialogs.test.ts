import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page, Request } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RESULTS } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'

/**
 * The renderer inside the desktop app: a stand-in for the preload's object (window.ubaDesk) answers
 * the native dialogs as the main process would. Import reads the chosen file by path (no upload);
 * exports go to the save dialog, not to the browser's downloads.
 */

const ui = useBrowserTest()
let folder: string

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'uba-desk-dialogs-'))
})

afterAll(async () => {
  rmSync(folder, { recursive: true, force: true })
})

/** The preload's object, with the dialogs answered: `chosen` for the open dialog; saves are recorded. */
function fakePreload(chosen: { path: string; name: string; size: number }): string {
  const first = ui.server.creds.projects[0]
  const session = { apiBase: ui.server.url, xtoken: ui.server.creds.xtoken, appKey: first.appKey, token: first.token }
  return `(() => {
    const calls = { chooseImportFile: 0, saved: [] }
    window.__desk = calls
    Object.defineProperty(window, 'ubaDesk', { value: Object.freeze({
      ...${JSON.stringify(session)},
      openExternal: async () => {},
      chooseImportFile: async () => (calls.chooseImportFile++, ${JSON.stringify(chosen)}),
      saveFile: async (name, data) => {
        if (!(data instanceof Uint8Array)) throw new Error('not bytes')
        calls.saved.push({ name, text: new TextDecoder().decode(data) })
        return true
      },
    }) })
  })()`
}

async function openDesktop(chosen: { path: string; name: string; size: number }, hash: string, heading: string): Promise<{ page: Page; imports: Request[]; problems: string[]; downloads: string[] }> {
  const context = await ui.browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true })
  await context.addInitScript(fakePreload(chosen))
  const page = await context.newPage()
  const problems: string[] = []
  const downloads: string[] = []
  const imports: Request[] = []
  page.on('pageerror', (err) => problems.push(err.message))
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()))
  page.on('download', (d) => downloads.push(d.suggestedFilename()))
  page.on('request', (r) => r.method() === 'POST' && r.url().includes('/uba/api/import/') && imports.push(r))
  await page.goto(`${ui.server.url}/${hash}`)
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor()
  return { page, imports, problems, downloads }
}

describe('the desktop app’s native dialogs', () => {
  it('imports the file chosen in the open dialog by its path, without uploading a copy', async () => {
    const path = join(folder, 'desk events.jsonl')
    const records = [1, 2, 3].map((i) => JSON.stringify({ appid: ui.server.project.appKey, xwho: `d${i}`, xwhat: 'desk_open', xwhen: 1717200000000 + i * 1000 }))
    writeFileSync(path, `${records.join('\n')}\n`)
    const { page, imports, problems, downloads } = await openDesktop({ path, name: 'desk events.jsonl', size: statSync(path).size }, '#/import', 'Import')

    await page.getByTestId('choose-native').click()
    await page.getByTestId('chosen-file').filter({ hasText: 'desk events.jsonl' }).waitFor()
    expect(await page.getByTestId('chosen-path').textContent()).toContain(path)
    expect(await page.evaluate<number>('window.__desk.chooseImportFile')).toBe(1)
    await page.getByTestId('preview-table').waitFor()
    await page.screenshot({ path: join(RESULTS, 'desktop-import-by-path.png'), fullPage: true })
    await page.getByTestId('import-start').click()
    await page.locator('[data-testid="import-job"][data-state="succeeded"]').waitFor({ timeout: 60_000 })

    // the preview and the job named the file; nothing was uploaded
    const paths = imports.map((r) => r.url().replace(/\?.*$/, '').replace(ui.server.url, ''))
    expect(paths).toEqual(expect.arrayContaining(['/uba/api/import/preview', '/uba/api/import/jobs']))
    for (const r of imports) {
      expect(r.headers()['content-type']).toBe('application/json')
      expect(JSON.parse(r.postData() ?? '{}').path).toBe(path)
    }
    const rows = await ui.server.call('POST', '/uba/api/sql/query', { headers: ui.server.project, body: { sql: "SELECT count(*) AS n FROM event_vd WHERE xwhat = 'desk_open'" } })
    expect(rows.status).toBe(200)
    expect(rows.body).toBe('n\r\n3\r\n')
    expect(downloads).toEqual([])
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('saves an export through the save dialog, with the bytes the export API streams', async () => {
    const { page, problems, downloads } = await openDesktop({ path: '/nowhere', name: 'x', size: 0 }, '#/sql', 'SQL')
    await page.getByRole('button', { name: 'profile_vd', exact: true }).waitFor()
    const sql = 'SELECT xwho, xwhat FROM event_vd ORDER BY xwho'
    await page.getByTestId('sql-editor').click()
    await page.keyboard.type(sql)
    await page.getByTestId('sql-export').click()
    await page.getByTestId('sql-export-csv').click()
    await expect.poll(() => page.evaluate<number>('window.__desk.saved.length'), { timeout: 30_000 }).toBe(1)
    const [saved] = await page.evaluate<{ name: string; text: string }[]>('window.__desk.saved')
    expect(saved.name).toMatch(/^query-\d{8}-\d{6}\.csv$/)
    const api = await ui.server.call('POST', '/uba/api/sql/export', { headers: ui.server.project, body: { sql, format: 'csv' } })
    expect(api.status).toBe(200)
    expect(saved.text).toBe(api.body)
    expect(saved.text).toContain('d1,desk_open')
    expect(downloads).toEqual([])
    expect(problems).toEqual([])
    await page.context().close()
  })
})
