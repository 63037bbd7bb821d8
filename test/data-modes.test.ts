import { spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { eventually, startTestServer } from './helpers/server'

const BIN = resolve(import.meta.dirname, '..', 'bin', 'uba-desk.mjs')
const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8)

describe.skipIf(process.platform === 'win32')('the data folder is its user\'s alone', () => {
  it('creates folders 0700 and the databases 0600, and tightens a folder an older version made 0755', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'uba-modes-'))
    chmodSync(dataDir, 0o755)
    const s = await startTestServer({ dataDir })
    try {
      const form = new FormData()
      form.append('file', new Blob(['who,what,when\nm1,tap,2024-02-02 02:02:02\n']), 'taps.csv')
      form.append('mapping', JSON.stringify({ xwho: 'who', xwhat: 'what', xwhen: 'when' }))
      const res = await fetch(`${s.url}/uba/api/import/jobs`, { method: 'POST', headers: s.project, body: form })
      expect(res.status).toBe(200)
      const { id } = (await res.json()) as { id: string }
      await eventually(async () => (await s.call('GET', `/uba/api/import/jobs/${id}`, { headers: s.project })).body.state === 'succeeded')
      const project = join(dataDir, 'projects', s.project.appKey)
      for (const dir of [dataDir, join(dataDir, 'projects'), project, join(project, 'staging'), join(dataDir, 'uploads')]) expect([dir, modeOf(dir)]).toEqual([dir, '700'])
      const files = [join(dataDir, 'meta.sqlite'), join(dataDir, 'meta.sqlite-wal'), join(dataDir, 'meta.sqlite-shm'), join(project, 'warehouse.duckdb')]
      for (const file of files) expect([file, modeOf(file)]).toEqual([file, '600'])
    } finally {
      await s.stop()
    }
  })

  it('serve writes server.json and its log 0600 in 0700 folders', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'uba-modes-')), 'fresh')
    dirs.push(resolve(dataDir, '..'))
    mkdirSync(join(dataDir, 'logs'), { recursive: true, mode: 0o755 })
    writeFileSync(join(dataDir, 'meta.sqlite'), '', { mode: 0o644 })
    const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', dataDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
    try {
      await new Promise<void>((ok, fail) => {
        let out = ''
        child.stdout!.on('data', (d: Buffer) => {
          out += d.toString()
          if (out.includes('listening on')) ok()
        })
        child.on('exit', (code) => fail(new Error(`serve exited with ${code}`)))
      })
      await eventually(async () => existsSync(join(dataDir, 'logs', 'server.log')))
      expect(modeOf(dataDir)).toBe('700')
      expect(modeOf(join(dataDir, 'logs'))).toBe('700')
      expect(modeOf(join(dataDir, 'logs', 'server.log'))).toBe('600')
      expect(modeOf(join(dataDir, 'server.json'))).toBe('600')
      expect(modeOf(join(dataDir, 'meta.sqlite'))).toBe('600')
    } finally {
      const gone = new Promise((r) => child.on('exit', r))
      child.kill('SIGTERM')
      await gone
    }
  })
})
