import { join } from 'node:path'
import type { Browser, Page, Request } from 'playwright-core'
import { expect } from 'vitest'
import { openView, RESULTS } from '../helpers/browser'
import type { TestServer } from '../helpers/server'

/** Driving the Charts view in the browser tests: opening it, picking, reading its table. */

export interface Charts {
  page: Page
  problems: string[]
  /** The analysis requests the page sent, oldest first. */
  requests: Request[]
}

/** Opens the Charts view through the connect link; `page` reuses a context (its saved reports). */
export async function openCharts(browser: Browser, server: TestServer, colorScheme: 'light' | 'dark', reuse?: Page): Promise<Charts> {
  const requests: Request[] = []
  const watch = (page: Page) =>
    page.on('request', (r) => {
      if (r.url().includes('/analyze')) requests.push(r)
    })
  const { page, problems } = await openView(browser, server, 'Charts', { colorScheme, reuse, watch })
  await page.getByRole('tab', { name: 'Events' }).waitFor()
  return { page, problems, requests }
}

/** Picks in a searchable list: open it, type, Enter (the best match); `shownIn` shows the choice. */
export async function pick(page: Page, testid: string, text: string, expected: string, shownIn = testid): Promise<void> {
  await page.getByTestId(testid).first().click()
  await page.keyboard.type(text)
  await page.keyboard.press('Enter')
  await expect.poll(() => page.getByTestId(shownIn).first().textContent()).toContain(expected)
}

export async function ready(page: Page): Promise<void> {
  await page.locator('[data-testid=chart-card][data-status=ready]').waitFor({ timeout: 30_000 })
}

/** The request behind the chart on screen (the last one sent to that path) and the API's own answer to it. */
export async function answerOf(server: TestServer, c: Charts, path: string): Promise<{ body: any; api: any }> {
  const sent = c.requests.filter((r) => r.url().includes(path)).at(-1)
  if (!sent) throw new Error(`no request to ${path}`)
  const body = JSON.parse(sent.postData() ?? '{}')
  const api = await server.call('POST', path, { headers: server.project, body })
  expect(api.status).toBe(200)
  return { body, api: api.body }
}

/** The table beneath the chart: each cell's raw value ('' for none). */
export function tableValues(page: Page): Promise<string[][]> {
  return page.evaluate<string[][]>(
    `[...document.querySelectorAll('[data-testid=result-table] tbody tr')].map((tr) => [...tr.children].map((c) => c.getAttribute('data-value')))`,
  )
}

export function tableHeader(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`[...document.querySelectorAll('[data-testid=result-table] thead th')].map((th) => th.textContent.trim())`)
}

/** The table's headers as an export writes them (full dates where the screen shortens them). */
export function exportHeader(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`[...document.querySelectorAll('[data-testid=result-table] thead th')].map((th) => th.getAttribute('data-value'))`)
}

export const raw = (v: number | null | undefined): string => (v === null || v === undefined ? '' : String(v))

export function today(timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date())
}

export function daysBefore(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() - n)
  return d.toISOString().slice(0, 10)
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(400) // the chart's entry animation
  await page.screenshot({ path: join(RESULTS, name), fullPage: true })
}

