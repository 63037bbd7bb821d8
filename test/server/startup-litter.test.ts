import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { credentialsOf, exited, killAll, serveProcess } from '../helpers/child'
import { startTestServer } from '../helpers/server'

/** What a start makes of a server.json left by a crash, and what a clean stop leaves behind. */

const dirs: string[] = []
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'uba-start-'))
  dirs.push(d)
  return d
}
afterEach(() => {
  killAll()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** A loopback URL on which nothing listens (a port taken, then freed). */
async function unusedUrl(): Promise<string> {
  const probe = createServer()
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()))
  const port = (probe.address() as { port: number }).port
  await new Promise((r) => probe.close(r))
  return `http://127.0.0.1:${port}`
}

const serverJson = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8'))

describe('a server.json left by a crash', () => {
  it('names a live process that is not a server: the start replaces it, and /health names the folder served', async () => {
    const dataDir = tempDir()
    // this test's own pid is alive, and nothing answers at the URL
    writeFileSync(join(dataDir, 'server.json'), JSON.stringify({ url: await unusedUrl(), pid: process.pid }))
    const server = await serveProcess(dataDir)
    expect(serverJson(dataDir)).toEqual({ url: server.url, pid: server.child.pid })
    const health = await (await fetch(`${server.url}/health`)).json()
    expect(health).toEqual({ status: 'ok', version: expect.any(String), uptimeSeconds: expect.any(Number), dataDir })
  }, 60_000)

  it('names a live server of another data folder: the start goes ahead', async () => {
    const other = await startTestServer()
    try {
      const dataDir = tempDir()
      writeFileSync(join(dataDir, 'server.json'), JSON.stringify({ url: other.url, pid: process.pid }))
      const server = await serveProcess(dataDir)
      expect(serverJson(dataDir)).toEqual({ url: server.url, pid: server.child.pid })
    } finally {
      await other.stop()
    }
  }, 60_000)
})

describe('files only running work uses', () => {
  it('are removed by a clean stop: uploaded copies and staging files', async () => {
    const dataDir = tempDir()
    const server = await serveProcess(dataDir)
    const { appKey } = credentialsOf(dataDir).projects[0]
    const uploads = join(dataDir, 'uploads')
    const staging = join(dataDir, 'projects', appKey, 'staging')
    mkdirSync(uploads, { recursive: true })
    mkdirSync(staging, { recursive: true })
    // what a job that was killed left, found by a server that then stops cleanly
    writeFileSync(join(uploads, 'left.csv'), 'a,b\n1,2\n')
    writeFileSync(join(staging, 'left.csv'), 'a,b\n1,2\n')
    server.child.kill('SIGTERM')
    await exited(server.child)
    expect(server.child.exitCode).toBe(0)
    expect(readdirSync(uploads)).toEqual([])
    expect(readdirSync(staging)).toEqual([])
  }, 60_000)
})
