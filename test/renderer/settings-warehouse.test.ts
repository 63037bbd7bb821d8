import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clickhouseAvailable, READER, startClickHouse, type TestClickHouse } from '../helpers/clickhouse'
import { openView, RESULTS, startBrowserTest } from '../helpers/browser'
import type { TestServer } from '../helpers/server'

let server: TestServer
let browser: Browser
let stop: () => Promise<void>
let ch: TestClickHouse

const registered = () => server.app.ctx.meta.prepare('SELECT count(*) FROM projects').pluck().get() as number

describe.skipIf(!clickhouseAvailable())('Settings: a new project on a ClickHouse server (real clickhouse-server 18.16)', () => {
  beforeAll(async () => {
    ch = await startClickHouse()
    ;({ server, browser, stop } = await startBrowserTest())
  }, 60_000)

  afterAll(async () => {
    await stop?.()
    await ch?.stop()
  })

  async function openDialog(): Promise<{ page: Page; problems: string[] }> {
    const opened = await openView(browser, server, null, { allow400: true })
    await opened.page.getByTestId('project-engine').filter({ hasText: 'Embedded (DuckDB)' }).waitFor()
    await opened.page.getByTestId('new-project').click()
    await opened.page.getByRole('dialog', { name: 'New project' }).waitFor()
    return opened
  }

  it('tests the connection: the server version, then a wrong password\'s refusal; creating with it registers nothing', async () => {
    const { page, problems } = await openDialog()
    const dialog = page.getByRole('dialog', { name: 'New project' })
    const result = page.getByTestId('warehouse-test-result')
    await page.getByTestId('new-project-name').fill('OnClickHouse')
    expect(await page.getByTestId('warehouse-duckdb').isChecked()).toBe(true)

    await page.getByText('ClickHouse server', { exact: true }).click()
    // nothing to try nor to create before the address and the database are given
    await result.filter({ hasText: 'Give the server address' }).waitFor()
    expect(await page.getByTestId('warehouse-test').isDisabled()).toBe(true)
    expect(await page.getByTestId('new-project-create').isDisabled()).toBe(true)
    await dialog.getByLabel('Server address', { exact: true }).fill(ch.url)
    await dialog.getByLabel('Database', { exact: true }).fill('uba_ui')
    await dialog.getByLabel('User', { exact: true }).fill(READER.user)
    await dialog.getByLabel('Password', { exact: true }).fill(READER.password)
    expect(await page.getByTestId('new-project-create').isDisabled()).toBe(false)

    await page.getByTestId('warehouse-test').click()
    await result.filter({ hasText: /^Connected: ClickHouse 18\.16\.\d+/ }).waitFor()
    expect(await result.textContent()).toContain('database uba_ui will be created')
    await dialog.screenshot({ path: join(RESULTS, 'settings-warehouse-connected.png') })

    // a changed field drops the result it no longer belongs to
    await dialog.getByLabel('Password', { exact: true }).fill('not-the-password')
    await result.filter({ hasText: 'The password is kept in the data folder' }).waitFor()
    await page.getByTestId('warehouse-test').click()
    await result.filter({ hasText: `The ClickHouse server at ${ch.url} refused the user ${READER.user}: wrong user or password` }).waitFor()
    expect(await result.getAttribute('class')).toContain('bad')
    await dialog.screenshot({ path: join(RESULTS, 'settings-warehouse-refused.png') })

    const before = registered()
    await page.getByTestId('new-project-create').click()
    await page.getByTestId('new-project-error').filter({ hasText: 'The project was not created' }).waitFor()
    expect(await page.getByTestId('new-project-error').textContent()).toContain('wrong user or password')
    expect(registered()).toBe(before)
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('keeps the embedded DuckDB as the choice of a new project, and says where a project\'s events are stored', async () => {
    const { page, problems } = await openDialog()
    await page.getByTestId('new-project-name').fill('StaysLocal')
    await page.getByTestId('new-project-create').click()
    await page.getByRole('dialog', { name: 'New project' }).waitFor({ state: 'hidden' })
    await page.getByTestId('project-name').filter({ hasText: 'StaysLocal' }).waitFor()
    expect(await page.getByTestId('project-engine').textContent()).toBe('Embedded (DuckDB)')
    await page.getByTestId('project-details').screenshot({ path: join(RESULTS, 'settings-warehouse-engine.png') })
    const detail = await server.call('GET', `/uba/manage/enterprise/projects/${server.app.credentials().projects.at(-1)!.appKey}`, { headers: { xtoken: server.creds.xtoken } })
    expect(detail.body).toMatchObject({ cname: 'StaysLocal', warehouse: { engine: 'duckdb' } })
    expect(problems).toEqual([])
    await page.context().close()
  })
})
