import { existsSync, mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { startTestServer, UI_DIR, type TestServer } from './server'

export const CHROMIUM = '/usr/bin/chromium'
export const RESULTS = resolve(import.meta.dirname, '..', '..', 'test-results')

/**
 * A headless server with the built UI, and Debian's Chromium driven by playwright-core. Fails
 * loudly rather than skipping: a missing browser or an unbuilt UI would hide every UI regression.
 */
export async function startBrowserTest(): Promise<{ server: TestServer; browser: Browser; stop: () => Promise<void> }> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`)
  if (!existsSync(join(UI_DIR, 'index.html'))) throw new Error(`${UI_DIR} is not built: npm run build`)
  mkdirSync(RESULTS, { recursive: true })
  const server = await startTestServer({ uiDir: UI_DIR })
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  })
  return {
    server,
    browser,
    stop: async () => {
      await browser.close()
      await server.stop()
    },
  }
}

export interface OpenOptions {
  colorScheme?: 'light' | 'dark'
  /** Default 1280 × 800. */
  viewport?: { width: number; height: number }
  timezoneId?: string
  /** Opens the page in this page's context (its storage, e.g. saved reports) instead of a new one. */
  reuse?: Page
  /** Goes to this address (e.g. '#/people?xwho=u1') instead of clicking the view's sidebar link. */
  hash?: string
  /** The level-1 heading that shows the view is open; default the view's name. */
  heading?: string
  /** The server's deliberate 400s (refused input) show as console errors; they are not problems then. */
  allow400?: boolean
  /** Runs before the app loads, e.g. to listen to the page's requests from the start. */
  watch?: (page: Page) => void
}

/**
 * Connects through the link the server prints, waits for Settings, then opens `view` (a sidebar
 * link name; null stays on Settings). Uncaught page errors and console errors land in `problems`.
 */
export async function openView(browser: Browser, server: TestServer, view: string | null, options: OpenOptions = {}): Promise<{ page: Page; problems: string[] }> {
  const { colorScheme = 'light', viewport = { width: 1280, height: 800 }, timezoneId } = options
  const context = options.reuse?.context() ?? (await browser.newContext({ viewport, colorScheme, acceptDownloads: true, ...(timezoneId ? { timezoneId } : {}) }))
  const page = await context.newPage()
  const problems: string[] = []
  page.on('pageerror', (err) => problems.push(err.message))
  page.on('console', (message) => {
    if (message.type() === 'error' && !(options.allow400 && message.text().includes('status of 400'))) problems.push(message.text())
  })
  options.watch?.(page)
  await page.goto(`${server.url}/#/connect?xtoken=${server.creds.xtoken}`)
  await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor()
  if (view === null) return { page, problems }
  if (options.hash) await page.goto(`${server.url}/${options.hash}`)
  else await page.getByRole('link', { name: view }).click()
  await page.getByRole('heading', { name: options.heading ?? view, level: 1 }).waitFor()
  return { page, problems }
}
