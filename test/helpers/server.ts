import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { startApp, type AppOptions, type Credentials, type RunningApp } from '../../src-main/app'

export interface TestServer {
  app: RunningApp
  url: string
  dataDir: string
  creds: Credentials
  /** Headers of the first project (project auth). */
  project: { appKey: string; token: string }
  /** fetch against the server, JSON in and out. */
  call(method: string, path: string, init?: { headers?: Record<string, string>; body?: unknown; rawBody?: string }): Promise<{ status: number; body: any; headers: Headers }>
  stop(): Promise<void>
}

export const UI_DIR = resolve(import.meta.dirname, '..', '..', 'out', 'renderer')

/** A real server on an ephemeral loopback port over a fresh temp data folder. */
export async function startTestServer(options: Partial<AppOptions> = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'uba-desk-test-'))
  const app = await startApp({ port: 0, threads: 1, memoryLimit: '512MB', uiDir: null, ...options, dataDir })
  await app.ctx.background.idle()
  const creds = app.credentials()
  const project = { appKey: creds.projects[0].appKey, token: creds.projects[0].token }
  return {
    app,
    url: app.url,
    dataDir,
    creds,
    project,
    async call(method, path, init = {}) {
      const headers: Record<string, string> = { ...init.headers }
      let body: string | undefined = init.rawBody
      if (init.body !== undefined) {
        body = JSON.stringify(init.body)
        headers['content-type'] ??= 'application/json'
      }
      const res = await fetch(app.url + path, { method, headers, body })
      const text = await res.text()
      let parsed: unknown = text
      try {
        parsed = JSON.parse(text)
      } catch {
        // not JSON: keep the text
      }
      return { status: res.status, body: parsed, headers: res.headers }
    },
    async stop() {
      await app.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Polls `check` until it returns true (background work is asynchronous by contract). */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const start = Date.now()
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not reached in time')
    await new Promise((r) => setTimeout(r, 20))
  }
}
