import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { decodeQueue, holdDecodersForTest, WAITING_FLOOR_BYTES } from '../../src-main/domain/ingest/decodePool'
import { openView, RESULTS } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'
import { rawRequest } from '../helpers/raw'
import { eventually } from '../helpers/server'

const ui = useBrowserTest()

const PRESETS = { $lib: 'Android', $lib_version: '4.5.1', $platform: 'Android', $is_login: false, $debug: 0, $time_calibrated: true }

async function upload(records: unknown[]): Promise<{ status: number; body: any }> {
  return rawRequest(ui.server.app.port, 'POST', '/up', { host: `127.0.0.1:${ui.server.app.port}`, 'content-type': 'application/json' }, JSON.stringify(records))
}

async function stream(appKey: string, on: boolean): Promise<void> {
  const x = { xtoken: ui.server.creds.xtoken }
  await ui.server.call('POST', `/uba/manage/enterprise/projects/${appKey}/stream`, { headers: x, body: { streamSwitch: on } })
  await eventually(async () => (await ui.server.call('GET', `/uba/manage/enterprise/projects/${appKey}`, { headers: x })).body.stream === (on ? 2 : 0))
}

describe('Import view: data quality', () => {
  it('shows what the collector refused or left out, with the SDK and the record, and clears it', async () => {
    const appKey = ui.server.project.appKey
    const rec = (xwho: string | null, xcontext: Record<string, unknown>) => ({ appid: appKey, ...(xwho ? { xwho } : {}), xwhat: 'buy', xwhen: 1717200000000, xcontext: { ...PRESETS, ...xcontext } })
    expect((await upload([rec('a1', { price: 1 })])).status).toBe(503)
    await stream(appKey, true)
    const res = await upload([rec('a1', { price: 3 }), rec('a2', { price: 'three' }), rec(null, { price: 4 })])
    expect(res.body).toMatchObject({ stored: 2, rejected: 1, valuesDropped: 1 })

    const { page, problems } = await openView(ui.browser, ui.server, 'Import')
    await page.getByTestId('nav-quality-badge').filter({ hasText: '3' }).waitFor()
    await page.getByTestId('quality-notice').filter({ hasText: 'refused or left out SDK data 3 times' }).waitFor()
    const card = page.getByTestId('data-quality')
    await card.getByTestId('data-quality-badge').filter({ hasText: '3 problems' }).waitFor()
    const counts = card.getByTestId('data-quality-counts')
    await counts.getByText('Upload refused').waitFor()
    await counts.getByText('1 upload (1 record)').waitFor()
    await counts.getByText('Value left out').waitFor()
    await counts.getByText('Record refused').waitFor()
    const examples = card.getByTestId('data-quality-examples')
    await examples.getByText('left out: is not a number').waitFor()
    await examples.getByText('refused: is missing').waitFor()
    expect(await examples.getByText('4.5.1', { exact: true }).count()).toBe(2)
    await examples.getByText('"xwho":"a2"', { exact: false }).waitFor()
    await card.scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(RESULTS, 'import-data-quality.png'), fullPage: true })
    await page.screenshot({ path: '/tmp/import-data-quality.png', fullPage: true })

    // and in the dark theme
    const dark = await openView(ui.browser, ui.server, 'Import', { colorScheme: 'dark' })
    await dark.page.getByTestId('data-quality-examples').getByText('left out: is not a number').waitFor()
    await dark.page.getByTestId('data-quality').scrollIntoViewIfNeeded()
    await dark.page.screenshot({ path: '/tmp/import-data-quality-dark.png' })
    expect(dark.problems).toEqual([])
    await dark.page.close()

    await card.getByTestId('data-quality-clear').click()
    await page.getByTestId('data-quality-clear-dialog').getByTestId('confirm-button').click()
    await card.getByText('Nothing refused or left out').waitFor()
    await page.waitForFunction(`!document.querySelector('[data-testid="nav-quality-badge"]')`)
    expect((await ui.server.call('GET', '/uba/api/ingest/problems', { headers: { appKey, token: ui.server.project.token } })).body.total).toBe(0)
    expect(problems).toEqual([])
  })

  it('shows records that named no known project, by appid, and clears them', async () => {
    const appKey = ui.server.project.appKey
    const rec = (appid: string | undefined, xwho: string) => ({ ...(appid ? { appid } : {}), xwho, xwhat: 'open', xwhen: 1717200000000, xcontext: PRESETS })
    const res = await upload([rec('shpo', 'a1'), rec('shpo', 'a2'), rec(undefined, 'a3')])
    expect(res.body).toMatchObject({ received: 3, stored: 0, rejected: 3 })

    const { page, problems } = await openView(ui.browser, ui.server, 'Import')
    await page.getByTestId('nav-quality-badge').filter({ hasText: '3' }).waitFor()
    const card = page.getByTestId('data-quality')
    await card.getByTestId('data-quality-badge').filter({ hasText: '3 problems' }).waitFor()
    const unknown = card.getByTestId('data-quality-unknown')
    await unknown.getByText('3 records named an appid that no project here has').waitFor()
    const appids = unknown.getByTestId('data-quality-unknown-appids')
    await appids.getByText('shpo', { exact: true }).waitFor()
    await appids.getByText('2 records in 1 upload').waitFor()
    await appids.getByText('(none named)').waitFor()
    expect(await appids.getByText('4.5.1', { exact: true }).count()).toBe(2)
    await appids.getByText('"xwho":"a2"', { exact: false }).waitFor()
    // no project's own problems: their tables are not shown
    expect(await card.getByTestId('data-quality-counts').count()).toBe(0)
    await card.scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(RESULTS, 'import-data-quality-unknown.png'), fullPage: true })
    await page.screenshot({ path: '/tmp/import-data-quality-unknown.png', fullPage: true })

    await card.getByTestId('data-quality-clear').click()
    await page.getByTestId('data-quality-clear-dialog').getByTestId('confirm-button').click()
    await card.getByText('Nothing refused or left out').waitFor()
    await page.waitForFunction(`!document.querySelector('[data-testid="nav-quality-badge"]')`)
    expect((await ui.server.call('GET', '/uba/api/ingest/problems', { headers: { appKey, token: ui.server.project.token } })).body.unknownProjects).toBeUndefined()
    expect(problems).toEqual([])
  })
  it('shows uploads refused while the collector was busy, by SDK, with their bytes', async () => {
    const appKey = ui.server.project.appKey
    await stream(appKey, true)
    const rec = (xwho: string, lib = PRESETS) => ({ appid: appKey, xwho, xwhat: 'open', xwhen: 1717200000000, xcontext: lib })
    const post = (body: string, query = '') => rawRequest(ui.server.app.port, 'POST', `/up${query}`, { host: `127.0.0.1:${ui.server.app.port}`, 'content-type': 'text/plain' }, body)
    // the decoders held (test seam): two uploads decoding, one waiting fills the bound
    const release = holdDecodersForTest(WAITING_FLOOR_BYTES)
    const landing: Promise<{ status: number; body: any }>[] = []
    const refusedBodies: string[] = []
    try {
      landing.push(upload([rec('h1')]), upload([rec('h2')]))
      await eventually(async () => decodeQueue().decoding === 2)
      landing.push(upload([rec('h3')]))
      await eventually(async () => decodeQueue().waiting === 1)
      // the browser SDK's beacon names the appid in the address; the Java SDK's only in its records
      refusedBodies.push(JSON.stringify([{ xwho: 'b1', xwhat: 'open', xwhen: 1717200000000, xcontext: { ...PRESETS, $lib: 'JS', $lib_version: '4.1.0' } }]))
      expect((await post(refusedBodies[0], `?appid=${appKey}`)).status).toBe(503)
      for (const who of ['j1', 'j2']) {
        refusedBodies.push(JSON.stringify([rec(who, { ...PRESETS, $lib: 'Java', $lib_version: '3.6.0' })]))
        expect((await post(refusedBodies[refusedBodies.length - 1])).status).toBe(503)
      }
    } finally {
      release()
    }
    expect((await Promise.all(landing)).map((r) => r.body.stored)).toEqual([1, 1, 1])

    const { page, problems } = await openView(ui.browser, ui.server, 'Import')
    await page.getByTestId('nav-quality-badge').filter({ hasText: '3' }).waitFor()
    const card = page.getByTestId('data-quality')
    await card.getByTestId('data-quality-badge').filter({ hasText: '3 problems' }).waitFor()
    const busy = card.getByTestId('data-quality-busy')
    const total = refusedBodies.reduce((sum, b) => sum + Buffer.byteLength(b), 0)
    await busy.getByText(`3 uploads (${total} B) were answered 503 "send again"`).waitFor()
    const rows = busy.getByTestId('data-quality-busy-refusals')
    await rows.getByText(`2 uploads, ${Buffer.byteLength(refusedBodies[1]) + Buffer.byteLength(refusedBodies[2])} B`).waitFor()
    await rows.getByText(`1 upload, ${Buffer.byteLength(refusedBodies[0])} B`).waitFor()
    expect(await rows.getByText('Decoders busy (too many uploads waiting)').count()).toBe(2)
    // the SDK: its $lib, then its version
    await rows.getByRole('row').filter({ hasText: 'Java' }).getByText('3.6.0', { exact: true }).waitFor()
    await rows.getByRole('row').filter({ hasText: 'JS' }).getByText('4.1.0', { exact: true }).waitFor()
    await card.scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(RESULTS, 'import-data-quality-busy.png'), fullPage: true })
    await page.screenshot({ path: '/tmp/import-data-quality-busy.png', fullPage: true })

    await card.getByTestId('data-quality-clear').click()
    await page.getByTestId('data-quality-clear-dialog').getByTestId('confirm-button').click()
    await card.getByText('Nothing refused or left out').waitFor()
    expect((await ui.server.call('GET', '/uba/api/ingest/problems', { headers: { appKey, token: ui.server.project.token } })).body.busyRefusals).toBeUndefined()
    expect(problems).toEqual([])
  })
})
