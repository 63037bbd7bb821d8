import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, expect } from 'vitest'
import { startClickHouse, type TestClickHouse } from '../helpers/clickhouse'
import { startBrowserTest } from '../helpers/browser'
import type { TestServer } from '../helpers/server'

/** Settings' New project dialog on a ClickHouse server, in the browser tests. */

export interface ClickHouseBrowser {
  readonly server: TestServer
  readonly browser: Browser
  readonly clickhouse: TestClickHouse
}

/**
 * Starts, for the enclosing describe block, a clickhouse-server, a test server serving the UI and
 * Chromium; all stop after the block. Read them inside a hook or a test.
 */
export function useClickHouseBrowser(): ClickHouseBrowser {
  let started: { server: TestServer; browser: Browser; stop: () => Promise<void> } | undefined
  let clickhouse: TestClickHouse | undefined
  beforeAll(async () => {
    clickhouse = await startClickHouse()
    started = await startBrowserTest()
  }, 60_000)
  afterAll(async () => {
    await started?.stop()
    await clickhouse?.stop()
  })
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useClickHouseBrowser: the servers start in beforeAll; read them inside a hook or a test')
    return value
  }
  return {
    get server() {
      return ready(started).server
    },
    get browser() {
      return ready(started).browser
    },
    get clickhouse() {
      return ready(clickhouse)
    },
  }
}

/** Fills the ClickHouse server's fields of the New project dialog (the password only when given). */
export async function fillServer(dialog: Locator, server: { url: string; database: string; user: string; password?: string }): Promise<void> {
  await dialog.getByLabel('Server address', { exact: true }).fill(server.url)
  await dialog.getByLabel('Database', { exact: true }).fill(server.database)
  await dialog.getByLabel('User', { exact: true }).fill(server.user)
  if (server.password !== undefined) await dialog.getByLabel('Password', { exact: true }).fill(server.password)
}

/** Tries the connection: the answer names ClickHouse 18.16 and the database it will create. */
export async function tryConnection(page: Page, database: string): Promise<void> {
  await page.getByTestId('warehouse-test').click()
  const result = page.getByTestId('warehouse-test-result')
  await result.filter({ hasText: /^Connected: ClickHouse 18\.16\.\d+/ }).waitFor()
  expect(await result.textContent()).toContain(`database ${database} will be created`)
}
