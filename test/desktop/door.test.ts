import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openDesktopDoor, type DesktopDoor } from '../../src-main/desktop/door'
import { BIN, killAll, serveProcess } from '../helpers/child'

/**
 * The desktop app's server as its main process starts it (desktop/door.ts, Electron's side left
 * out): the stable port and its fallback, server.json, and one server per data folder, whichever
 * door opened it. The CLI runs as a child process that finds the door through server.json.
 */

const dirs: string[] = []
const doors: DesktopDoor[] = []
const blockers: Server[] = []
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'uba-door-'))
  dirs.push(d)
  return d
}
afterEach(async () => {
  killAll()
  for (const door of doors.splice(0)) await door.close()
  for (const b of blockers.splice(0)) await new Promise((r) => b.close(r))
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

async function open(dataDir: string, port?: number): Promise<DesktopDoor> {
  const door = await openDesktopDoor({ dataDir, uiDir: null, port })
  doors.push(door)
  return door
}

/** A loopback port held by a plain TCP listener for the test's length (or freed at once). */
async function holdPort(keep: boolean): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const port = (server.address() as { port: number }).port
  if (keep) blockers.push(server)
  else await new Promise((r) => server.close(r))
  return port
}

/** The CLI as a child, asynchronously: the door answers from this very process meanwhile. */
function cli(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  return new Promise((r) => child.on('close', (status) => r({ status, stdout, stderr })))
}

const serverJson = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8'))

describe('the desktop door', () => {
  it('serves on the port asked for, announces itself in server.json as serve does, and withdraws it on close', async () => {
    const dataDir = tempDir()
    const port = await holdPort(false)
    const door = await open(dataDir, port)
    expect(door.running.url).toBe(`http://127.0.0.1:${port}`)
    expect(serverJson(dataDir)).toEqual({ url: door.running.url, pid: process.pid })
    const health = (await (await fetch(`${door.running.url}/health`)).json()) as { status: string; dataDir: string }
    expect(health).toMatchObject({ status: 'ok', dataDir })
    // the preload's session: the same credentials the CLI prints
    const creds = await cli('credentials', '--data-dir', dataDir)
    const printed = JSON.parse(creds.stdout)
    expect(door.session).toEqual({ apiBase: door.running.url, xtoken: printed.xtoken, appKey: printed.projects[0].appKey, token: printed.projects[0].token })
    await door.close()
    expect(existsSync(join(dataDir, 'server.json'))).toBe(false)
  })

  it('takes a free port when its port is in use', async () => {
    const dataDir = tempDir()
    const taken = await holdPort(true)
    const door = await open(dataDir, taken)
    expect(door.running.port).not.toBe(taken)
    expect(door.running.port).toBeGreaterThan(0)
    expect(serverJson(dataDir).url).toBe(`http://127.0.0.1:${door.running.port}`)
    expect((await fetch(`${door.running.url}/health`)).status).toBe(200)
  })

  it('is refused on a folder a headless server serves, naming it, and leaves its server.json alone', async () => {
    const dataDir = tempDir()
    const served = await serveProcess(dataDir)
    await expect(open(dataDir, 0)).rejects.toThrow(`another UBA Desk server (pid ${served.child.pid}) already serves this data folder at ${served.url}`)
    expect(serverJson(dataDir)).toEqual({ url: served.url, pid: served.child.pid })
    expect((await fetch(`${served.url}/health`)).status).toBe(200)
  })

  it('refuses a headless server on its folder, naming the desktop app', async () => {
    const dataDir = tempDir()
    const door = await open(dataDir, 0)
    const second = await cli('serve', '--data-dir', dataDir, '--port', '0')
    expect(second.status).toBe(1)
    expect(second.stderr).toContain(`another UBA Desk server (pid ${process.pid}) already serves this data folder at ${door.running.url}`)
    expect(serverJson(dataDir)).toEqual({ url: door.running.url, pid: process.pid })
  })

  it('replaces a server.json left by a crash: a dead pid, or a live one with no server behind it', async () => {
    const dataDir = tempDir()
    const dead = spawnSync(process.execPath, ['-e', '']).pid
    writeFileSync(join(dataDir, 'server.json'), JSON.stringify({ url: `http://127.0.0.1:${await holdPort(false)}`, pid: dead }))
    const first = await open(dataDir, 0)
    expect(serverJson(dataDir)).toEqual({ url: first.running.url, pid: process.pid })
    await first.close()
    // the parent process (the test runner) is alive and nothing answers at the URL
    writeFileSync(join(dataDir, 'server.json'), JSON.stringify({ url: `http://127.0.0.1:${await holdPort(false)}`, pid: process.ppid }))
    const second = await open(dataDir, 0)
    expect(serverJson(dataDir)).toEqual({ url: second.running.url, pid: process.pid })
  })

  it('serves the CLI: import and sample go through it', async () => {
    const dataDir = tempDir()
    const door = await open(dataDir, 0)
    const sampled = await cli('sample', '--data-dir', dataDir, '--project', door.session.appKey, '--users', '50', '--days', '3', '--end-date', '2024-01-31')
    expect(sampled.stderr).toBe('')
    expect(sampled.stdout).toContain(`using the running server at ${door.running.url}`)
    expect(sampled.stdout).toContain('events and 50 user profiles')
    expect(sampled.status).toBe(0)

    const file = join(dataDir, 'events.jsonl')
    writeFileSync(file, `${JSON.stringify({ xwho: 's1', xwhat: 'go', xwhen: 1717200000000 })}\n`)
    const imported = await cli('import', '--data-dir', dataDir, '--project', door.session.appKey, file)
    expect(imported.stdout).toContain(`using the running server at ${door.running.url}`)
    expect(imported.stdout).toContain('events.jsonl: imported 1 events and 0 profile changes from 1 records; 0 rejected')
    expect(imported.status).toBe(0)
    // both wrote through the door's own databases: its API sees the data at once
    const jobs = await fetch(`${door.running.url}/uba/api/import/jobs`, { headers: { appKey: door.session.appKey, token: door.session.token } })
    expect(((await jobs.json()) as { state: string }[]).map((j) => j.state)).toEqual(['succeeded', 'succeeded'])
  })
})
