import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { importCommand } from '../../src-main/cliImport'
import { startTestServer, type TestServer } from '../helpers/server'

let s: TestServer
let tmp: string
/** A folder outside the home and temp folders, allowed for this run only (like serve --import-root). */
let extra: string

const CSV = 'who,what,when\nr1,tap,2024-02-02 02:02:02\n'
const ROOTS = '/uba/manage/enterprise/settings/importRoots'

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'uba-roots-'))
  extra = mkdtempSync('/var/tmp/uba-roots-extra-')
  s = await startTestServer({ importRoots: [extra] })
})
afterAll(async () => {
  await s.stop()
  rmSync(tmp, { recursive: true, force: true })
  rmSync(extra, { recursive: true, force: true })
})

const preview = (path: string) => s.call('POST', '/uba/api/import/preview', { headers: s.project, body: { path } })
const jobs = async () => (await s.call('GET', '/uba/api/import/jobs', { headers: s.project })).body.length

describe('imports by path read only the allowed folders', () => {
  it('refuses /etc/passwd in preview and job with 400 naming path, and queues nothing', async () => {
    const before = await jobs()
    for (const endpoint of ['/uba/api/import/preview', '/uba/api/import/jobs']) {
      const res = await s.call('POST', endpoint, { headers: s.project, body: { path: '/etc/passwd', format: 'csv' } })
      expect(res.status).toBe(400)
      expect(res.body.data).toEqual(['path'])
      expect(res.body.msg).toMatch(/^path \/etc\/passwd is outside the folders imports may read \(/)
    }
    expect(await jobs()).toBe(before)
  })

  it('refuses a path outside them whether or not a file is there', async () => {
    const res = await preview('/etc/no-such-file.csv')
    expect(res.status).toBe(400)
    expect(res.body.msg).toMatch(/is outside the folders imports may read/)
  })

  it('accepts a file under the temp folder', async () => {
    const file = join(tmp, 'ok.csv')
    writeFileSync(file, CSV)
    const res = await preview(file)
    expect(res.status).toBe(200)
    expect(res.body.header).toEqual(['who', 'what', 'when'])
  })

  it('refuses a link in the temp folder that points at /etc/passwd, and one into /etc through a linked folder', async () => {
    symlinkSync('/etc/passwd', join(tmp, 'passwd.csv'))
    symlinkSync('/etc', join(tmp, 'etc'))
    for (const path of [join(tmp, 'passwd.csv'), join(tmp, 'etc', 'passwd')]) {
      const res = await preview(path)
      expect(res.status).toBe(400)
      expect(res.body.data).toEqual(['path'])
    }
  })

  it('the command line imports a file outside them through the running server by sending it', async () => {
    const outside = mkdtempSync('/var/tmp/uba-roots-cli-')
    try {
      const file = join(outside, 'cli.csv')
      writeFileSync(file, 'who,what,when\nc1,cli_tap,2024-02-02 02:02:02\n')
      // server.json names a live process other than this one (the server runs inside this test process)
      writeFileSync(join(s.dataDir, 'server.json'), JSON.stringify({ url: s.url, pid: process.ppid }))
      const code = await importCommand({ dataDir: s.dataDir, appKey: s.project.appKey, files: [file], fields: { mapping: { xwho: 'who', xwhat: 'what', xwhen: 'when' } } })
      expect(code).toBe(0)
      const rows = await s.call('POST', '/uba/api/sql/query', { headers: s.project, body: { sql: "SELECT xwho FROM event_vd WHERE xwhat = 'cli_tap'", format: 'json' } })
      expect(rows.body).toEqual([{ xwho: 'c1' }])
      // sent as an upload to this server (an import by path would name the whole path)
      const listed = (await s.call('GET', '/uba/api/import/jobs', { headers: s.project })).body as { source: string }[]
      expect(listed.map((j) => j.source)).toContain('cli.csv')
    } finally {
      rmSync(join(s.dataDir, 'server.json'), { force: true })
      rmSync(outside, { recursive: true, force: true })
    }
  })

  it('accepts a folder given for the run (serve --import-root) and one set in the settings; the settings need the xtoken', async () => {
    const file = join(extra, 'extra.csv')
    writeFileSync(file, CSV)
    expect((await preview(file)).status).toBe(200)

    const x = { xtoken: s.creds.xtoken }
    const initial = await s.call('GET', ROOTS, { headers: x })
    expect(initial.status).toBe(200)
    expect(initial.body).toEqual({ roots: [homedir(), tmpdir()], defaults: true, commandLine: [extra] })
    expect((await s.call('GET', ROOTS, { headers: s.project })).status).toBe(401)
    expect((await s.call('PUT', ROOTS, { headers: s.project, body: { roots: ['/'] } })).status).toBe(401)

    const bad = await s.call('PUT', ROOTS, { headers: x, body: { roots: ['relative/dir'] } })
    expect(bad.status).toBe(400)
    expect(bad.body.data).toEqual(['roots[0]'])

    const other = mkdtempSync('/var/tmp/uba-roots-set-')
    try {
      writeFileSync(join(other, 'set.csv'), CSV)
      writeFileSync(join(tmp, 'later.csv'), CSV)
      const set = await s.call('PUT', ROOTS, { headers: x, body: { roots: [other, other] } })
      expect(set.body).toEqual({ roots: [other], defaults: false, commandLine: [extra] })
      expect((await preview(join(other, 'set.csv'))).status).toBe(200)
      // the temp folder is no longer in the list
      expect((await preview(join(tmp, 'later.csv'))).status).toBe(400)
      expect((await s.call('PUT', ROOTS, { headers: x, body: { roots: [] } })).body.roots).toEqual([])
      expect((await preview(join(other, 'set.csv'))).status).toBe(400)
      expect((await preview(file)).status).toBe(200)
    } finally {
      rmSync(other, { recursive: true, force: true })
    }
  })
})
