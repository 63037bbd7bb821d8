import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startTestServer } from './helpers/server'
import { footprint } from './helpers/ingest'

const BIN = resolve(import.meta.dirname, '..', 'bin', 'uba-desk.mjs')
const dirs: string[] = []
const children: ChildProcess[] = []
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL')
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function temp(): string {
  const d = mkdtempSync(join(tmpdir(), 'uba-cli-import-'))
  dirs.push(d)
  return d
}
const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000 })
const appKeyOf = (dataDir: string) => JSON.parse(cli('credentials', '--data-dir', dataDir).stdout).projects[0].appKey as string

function serve(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', dataDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  let out = ''
  return new Promise((ok, fail) => {
    child.stdout!.on('data', (d) => {
      out += d
      const m = out.match(/listening on (\S+)/)
      if (m) ok({ child, url: m[1] })
    })
    child.on('exit', (code) => fail(new Error(`serve exited ${code}`)))
  })
}

describe('uba-desk import', () => {
  it('imports files by opening the data folder when no server runs, with a summary per file', () => {
    const dataDir = temp()
    const key = appKeyOf(dataDir)
    const good = join(dataDir, 'good.csv')
    writeFileSync(good, 'u,e,t,n\na,open,2024-01-01 10:00:00,1\nb,open,2024-01-01 11:00:00,x\n')
    const res = cli('import', '--data-dir', dataDir, '--project', key, '--mapping', '{"xwho":"u","xwhat":"e","xwhen":"t"}', '--on-error', 'skip', good)
    expect(res.status).toBe(0)
    expect(res.stdout).toContain('good.csv: imported 2 events and 0 profile changes from 2 records; 0 rejected')
    const again = cli('import', '--data-dir', dataDir, '--project', key, '--mapping', '{"xwho":"u","xwhat":"e","xwhen":"t"}', '--dedupe', good)
    expect(again.status).toBe(0)
    expect(again.stdout).toContain('good.csv: imported 0 events and 0 profile changes from 2 records; 0 rejected')
    const missing = cli('import', '--data-dir', dataDir, '--project', 'nosuch', good)
    expect(missing.status).toBe(1)
    expect(missing.stderr).toContain('no project nosuch')
  })

  it('goes through the running server when one serves the folder', async () => {
    const dataDir = temp()
    const key = appKeyOf(dataDir)
    const { child } = await serve(dataDir)
    const file = join(dataDir, 'events.jsonl')
    writeFileSync(file, `${JSON.stringify({ xwho: 's1', xwhat: 'go', xwhen: 1717200000000 })}\nnot json\n`)
    const res = cli('import', '--data-dir', dataDir, '--project', key, file)
    expect(res.stdout).toContain('using the running server at http://127.0.0.1:')
    expect(res.stdout).toContain('events.jsonl: failed: 1 of 2 records do not fit (first: row 2, record is not valid JSON); nothing was imported')
    expect(res.stdout).toContain('  row 2: record is not valid JSON (not json)')
    expect(res.status).toBe(1)
    child.kill('SIGTERM')
  })

  it('leaves nothing behind when the server dies mid-import, and marks the job failed at the next start', async () => {
    const dataDir = temp()
    const creds = JSON.parse(cli('credentials', '--data-dir', dataDir).stdout)
    const project = { appKey: creds.projects[0].appKey, token: creds.projects[0].token }
    const rows = Array.from({ length: 2_000_000 }, (_, i) => `k${i % 9000},step${i % 5},${1704067200 + i},${i}`)
    const file = join(dataDir, 'big.csv')
    writeFileSync(file, `u,e,t,n\n${rows.join('\n')}\n`)
    const { child, url } = await serve(dataDir)
    const started = await fetch(`${url}/uba/api/import/jobs`, {
      method: 'POST',
      headers: { ...project, 'content-type': 'application/json' },
      body: JSON.stringify({ path: file, mapping: { xwho: 'u', xwhat: 'e', xwhen: 't' } }),
    })
    const job = (await started.json()) as { id: string }
    for (;;) {
      const state = ((await (await fetch(`${url}/uba/api/import/jobs/${job.id}`, { headers: project })).json()) as { state: string }).state
      if (state === 'running') break
      await new Promise((r) => setTimeout(r, 20))
    }
    child.kill('SIGKILL')
    await new Promise((r) => child.on('exit', r))

    const s = await startTestServer({ dataDir })
    try {
      const after = (await s.call('GET', `/uba/api/import/jobs/${job.id}`, { headers: project })).body
      expect(after).toMatchObject({ state: 'failed', error: 'the app stopped before the import finished; nothing was imported' })
      const left = await footprint(s, project.appKey)
      expect(left).toMatchObject({ events: 0, ids: 0, reportedEvents: 0 })
      const columns = s.app.ctx.meta.prepare("SELECT count(*) FROM plan_event_properties WHERE app_key = ? AND id = 'n'").pluck().get(project.appKey)
      expect(columns).toBe(0)
    } finally {
      await s.app.close()
    }
  })
})
