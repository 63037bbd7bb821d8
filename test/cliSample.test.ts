import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const BIN = resolve(import.meta.dirname, '..', 'bin', 'uba-desk.mjs')
let dataDir: string

function cli(...args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000 })
}

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'uba-cli-sample-'))
})
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

describe('uba-desk sample', () => {
  it('loads the sample into an empty project with a summary, and refuses a project that has data', () => {
    const { projects } = JSON.parse(cli('credentials', '--data-dir', dataDir).stdout) as { projects: { appKey: string }[] }
    const appKey = projects[0].appKey

    const loaded = cli('sample', '--data-dir', dataDir, '--project', appKey, '--users', '300', '--days', '7', '--end-date', '2024-01-31')
    expect(loaded.stderr).toBe('')
    expect(loaded.status).toBe(0)
    expect(loaded.stdout).toMatch(/sample e-commerce data: [\d,]+ events and 300 user profiles in [\d.]+ s \([\d,]+ events\/s\)/)

    const again = cli('sample', '--data-dir', dataDir, '--project', appKey, '--users', '300')
    expect(again.status).toBe(1)
    expect(again.stderr).toContain('create a new project for the sample')
  })

  it('names a bad number and an unknown project', () => {
    const bad = cli('sample', '--data-dir', dataDir, '--project', 'x', '--users', 'many')
    expect(bad.status).toBe(1)
    expect(bad.stderr).toContain('--users must be a whole number, not many')
    const unknown = cli('sample', '--data-dir', dataDir, '--project', 'nosuch')
    expect(unknown.status).toBe(1)
    expect(unknown.stderr).toContain('no project nosuch')
  })

  it('goes through the running server when one holds the data folder', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'uba-cli-sample-'))
    const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', fresh, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
    try {
      await new Promise<void>((ok, fail) => {
        let out = ''
        child.stdout.on('data', (d: Buffer) => (out += d.toString()).includes('listening on') && ok())
        child.on('exit', (code) => fail(new Error(`serve exited with ${code}: ${out}`)))
      })
      const { projects } = JSON.parse(cli('credentials', '--data-dir', fresh).stdout) as { projects: { appKey: string }[] }
      const loaded = cli('sample', '--data-dir', fresh, '--project', projects[0].appKey, '--users', '200', '--days', '5', '--end-date', '2024-01-31')
      expect(loaded.status).toBe(0)
      expect(loaded.stdout).toContain('using the running server at http://127.0.0.1:')
      expect(loaded.stdout).toContain('events and 200 user profiles')
    } finally {
      child.kill('SIGTERM')
      await new Promise((r) => child.once('exit', r))
      rmSync(fresh, { recursive: true, force: true })
    }
  })
})
