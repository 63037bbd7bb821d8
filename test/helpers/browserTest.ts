import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect } from 'vitest'
import { startBrowserTest } from './browser'
import { eventually, type TestServer } from './server'

export interface BrowserTest {
  /** The test server serving the built UI (after the file's first beforeAll). */
  readonly server: TestServer
  readonly browser: Browser
}

export interface SampleOptions {
  users: number
  days: number
  /** How long the sample job may take, in ms; default 60 s. */
  wait?: number
}

/** Loads the sample data into a project and waits until its job has succeeded. */
export async function loadSample(server: TestServer, headers: Record<string, string>, { users, days, wait = 60_000 }: SampleOptions): Promise<void> {
  const started = await server.call('POST', '/uba/api/import/sample', { headers, body: { users, days } })
  expect(started.status).toBe(200)
  await eventually(async () => (await server.call('GET', `/uba/api/import/jobs/${started.body.id}`, { headers })).body.state === 'succeeded', wait)
}

/**
 * Starts, for the enclosing file or describe block, a test server with the built UI and Chromium
 * (`startBrowserTest`); with `sample`, loads the sample data into the first project first. Both stop
 * after the block. Call it before the block's own beforeAll (hooks run in the order they are
 * declared); read `server` and `browser` inside a hook or a test.
 */
export function useBrowserTest(options: { sample?: SampleOptions } = {}): BrowserTest {
  const { sample } = options
  let started: Awaited<ReturnType<typeof startBrowserTest>> | undefined
  beforeAll(
    async () => {
      started = await startBrowserTest()
      if (sample) await loadSample(started.server, started.server.project, sample)
    },
    // the sample's wait and half a minute for the rest; without it vitest's hook timeout
    sample ? (sample.wait ?? 60_000) + 30_000 : undefined,
  )
  afterAll(() => started?.stop())
  const ready = () => {
    if (!started) throw new Error('useBrowserTest: the server and browser start in beforeAll; read them inside a hook or a test')
    return started
  }
  return {
    get server() {
      return ready().server
    },
    get browser() {
      return ready().browser
    },
  }
}
