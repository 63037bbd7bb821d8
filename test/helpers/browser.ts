import { existsSync, mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { chromium, type Browser } from 'playwright-core'
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
