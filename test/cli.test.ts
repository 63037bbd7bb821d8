import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'

const BIN = resolve(import.meta.dirname, '..', 'bin', 'uba-desk.mjs')
const dirs: string[] = []
const children: ChildProcess[] = []

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'uba-cli-'))
  dirs.push(d)
  return d
}
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL')
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** Starts `uba-desk serve` and resolves with its URL once it says it is listening. */
function serve(dataDir: string, ...extra: string[]): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', dataDir, '--port', '0', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  let out = ''
  return new Promise((resolvePromise, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString()
      const m = out.match(/listening on (http:\/\/\S+)/)
      if (m) resolvePromise({ child, url: m[1], output: () => out })
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', (d) => (out += d.toString()))
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)))
  })
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((r) => (child.exitCode !== null ? r(child.exitCode) : child.on('exit', (code) => r(code))))
}

function cli(...args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 })
}

describe('uba-desk serve and credentials', () => {
  it('serves on a free loopback port, announces itself in server.json, and cleans up on SIGTERM', async () => {
    const dataDir = tempDir()
    const { child, url } = await serve(dataDir)
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const info = JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8'))
    expect(info).toEqual({ url, pid: child.pid })

    const creds = cli('credentials', '--data-dir', dataDir)
    expect(creds.status).toBe(0)
    const parsed = JSON.parse(creds.stdout)
    expect(parsed.xtoken).toMatch(/^[0-9a-f]{48}$/)
    expect(parsed.projects).toEqual([{ appKey: expect.stringMatching(/^[a-z0-9]+$/), token: expect.stringMatching(/^[0-9a-f]{40}$/), name: 'Default' }])

    const res = await fetch(`${url}/uba/manage/enterprise/projects`, { headers: { xtoken: parsed.xtoken } })
    expect(res.status).toBe(200)
    expect(((await res.json()) as any)[0].normalToken).toBe(parsed.projects[0].token)

    child.kill('SIGTERM')
    expect(await exited(child)).toBe(0)
    expect(existsSync(join(dataDir, 'server.json'))).toBe(false)
    // both databases were closed: the folder opens again at once
    const again = await serve(dataDir)
    again.child.kill('SIGINT')
    expect(await exited(again.child)).toBe(0)
  })

  it('refuses a second server on a data folder that one already serves', async () => {
    const dataDir = tempDir()
    const first = await serve(dataDir)
    const second = cli('serve', '--data-dir', dataDir, '--port', '0')
    expect(second.status).toBe(1)
    expect(second.stderr).toContain(`another UBA Desk server (pid ${first.child.pid}) already serves this data folder at ${first.url}`)
    first.child.kill('SIGTERM')
    await exited(first.child)
  })

  it('refuses a non-loopback host and a bad port', () => {
    const dataDir = tempDir()
    const host = cli('serve', '--data-dir', dataDir, '--host', '0.0.0.0', '--port', '0')
    expect(host.status).toBe(1)
    expect(host.stderr).toContain('only loopback addresses')
    const port = cli('serve', '--data-dir', dataDir, '--port', 'eighty')
    expect(port.status).toBe(1)
    expect(port.stderr).toContain('--port must be a whole number')
  })

  it('prints usage for an unknown command and exits non-zero', () => {
    const res = cli('frobnicate')
    expect(res.status).toBe(2)
    expect(res.stdout).toContain('usage: uba-desk')
  })
})
