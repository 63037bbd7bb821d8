import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { clickhouseAvailable, READER } from '../helpers/clickhouse'
import { openView, RESULTS } from '../helpers/browser'
import { fillServer, tryConnection, useClickHouseBrowser } from './settingsPage'

describe.skipIf(!clickhouseAvailable())('Settings: a new project on a ClickHouse server (real clickhouse-server 18.16)', () => {
  const ui = useClickHouseBrowser()
  const registered = () => ui.server.app.ctx.meta.prepare('SELECT count(*) FROM projects').pluck().get() as number

  async function openDialog(): Promise<{ page: Page; problems: string[] }> {
    const opened = await openView(ui.browser, ui.server, null, { allow400: true })
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
    await fillServer(dialog, { url: ui.clickhouse.url, database: 'uba_ui', ...READER })
    expect(await page.getByTestId('new-project-create').isDisabled()).toBe(false)

    await tryConnection(page, 'uba_ui')
    await dialog.screenshot({ path: join(RESULTS, 'settings-warehouse-connected.png') })

    // a changed field drops the result it no longer belongs to
    await dialog.getByLabel('Password', { exact: true }).fill('not-the-password')
    await result.filter({ hasText: 'The password is kept in the data folder' }).waitFor()
    await page.getByTestId('warehouse-test').click()
    await result.filter({ hasText: `The ClickHouse server at ${ui.clickhouse.url} refused the user ${READER.user}: wrong user or password` }).waitFor()
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
    const detail = await ui.server.call('GET', `/uba/manage/enterprise/projects/${ui.server.app.credentials().projects.at(-1)!.appKey}`, { headers: { xtoken: ui.server.creds.xtoken } })
    expect(detail.body).toMatchObject({ cname: 'StaysLocal', warehouse: { engine: 'duckdb' } })
    expect(problems).toEqual([])
    await page.context().close()
  })
})
