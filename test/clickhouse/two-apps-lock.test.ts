import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { folderId } from '../../src-main/domain/platform/settings'
import { callJson, credentialsOf, killAll, serveProcess } from '../helpers/child'
import { clickhouseAvailable, startClickHouse, type TestClickHouse } from '../helpers/clickhouse'
import { fixture, importAndWait } from '../helpers/ingest'
import { eventually, startTestServer, type TestServer } from '../helpers/server'

/**
 * Two UBA Desks (two data folders) on one ClickHouse database: the commit lock names its holder,
 * a lock left by this folder's own killed process is removed at once, another folder's lock is
 * never taken (the load fails naming it), and an app's start-up drops only its own leftovers.
 */

const T = Date.UTC(2024, 0, 2, 10)
const records = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => JSON.stringify({ xwho: `${prefix}${i}`, xwhat: 'view', xwhen: T + i, xcontext: { $lib: 'js' } })).join('\n')

describe.skipIf(!clickhouseAvailable())('two apps on one ClickHouse database: the commit lock and leftovers (real clickhouse-server)', () => {
  let ch: TestClickHouse
  const servers: TestServer[] = []
  const dirs: string[] = []
  const house = async (database: string, sql: string) => (await (await fetch(`${ch.url}/?database=${database}`, { method: 'POST', body: sql })).text()).trim()
  const uba = (database: string) => house(database, `SELECT name FROM system.tables WHERE database = '${database}' AND startsWith(name, '_uba_') ORDER BY name`)
  /** A lock as another process left it: its holder in the column's DEFAULT, as the app writes it. */
  const leaveLock = (database: string, h: { folder: string; pid: number; host: string; since: number }) =>
    house(database, `CREATE TABLE _uba_commit_lock (holder String DEFAULT 'folder=${h.folder};pid=${h.pid};host=${h.host};run=0badc0de;since=${h.since}') ENGINE = Memory`)

  async function clickhouseProject(s: TestServer, appKey: string, database: string) {
    const x = { xtoken: s.creds.xtoken }
    const made = await s.call('POST', '/uba/manage/enterprise/projects', { headers: x, body: { appKey, name: appKey, timeZone: 'UTC', warehouse: { engine: 'clickhouse', url: ch.url, database } } })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    await eventually(async () => (await s.call('GET', `/uba/manage/enterprise/projects/${appKey}`, { headers: x })).body.finish === true)
    const list = await s.call('GET', '/uba/manage/enterprise/projects', { headers: x })
    return { appKey, token: list.body.find((q: { appKey: string }) => q.appKey === appKey).normalToken as string }
  }

  beforeAll(async () => {
    ch = await startClickHouse()
  }, 60_000)

  afterAll(async () => {
    killAll()
    for (const s of servers) await s.stop()
    await ch?.stop()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  it('a lock left by a killed process of the same data folder is removed at once: the load succeeds', async () => {
    const s = await startTestServer()
    servers.push(s)
    const p = await clickhouseProject(s, 'own', 'uba_ownlock')
    // a process that ran and is gone: its pid is not alive
    const dead = spawnSync(process.execPath, ['-e', '']).pid!
    await leaveLock('uba_ownlock', { folder: folderId(s.app.ctx.meta), pid: dead, host: hostname().replace(/[^A-Za-z0-9._-]/g, '_'), since: Date.now() - 60_000 })
    const job = await importAndWait(s, p, { path: fixture('own.jsonl', records('own-', 3)) })
    // waited for instead, the lock would have failed the job after 10 s, naming its holder
    expect({ state: job.state, error: job.error, rowsWritten: job.rowsWritten }).toEqual({ state: 'succeeded', error: null, rowsWritten: 3 })
    expect(await house('uba_ownlock', 'SELECT count() FROM event_vd')).toBe('3')
    expect(await uba('uba_ownlock')).toBe('')
  }, 120_000)

  it("another folder's lock is never taken: the load fails naming its holder and how to clear it, nothing imported; start-up leaves it", async () => {
    const s = await startTestServer()
    servers.push(s)
    const p = await clickhouseProject(s, 'other', 'uba_otherlock')
    const since = Date.UTC(2026, 0, 5, 9, 30)
    await leaveLock('uba_otherlock', { folder: 'abcdef01', pid: 4242, host: 'analyst-2.example', since })
    const job = await importAndWait(s, p, { path: fixture('other.jsonl', records('other-', 3)) })
    expect({ state: job.state, error: job.error, rowsWritten: job.rowsWritten }).toEqual({
      state: 'failed',
      rowsWritten: 0,
      error:
        'the ClickHouse database uba_otherlock is locked by the UBA Desk of data folder abcdef01 (process 4242 on analyst-2.example) since 2026-01-05T09:30:00.000Z ' +
        '(a UBA Desk that stopped while loading?); nothing was imported. If that app is not loading now, drop the lock on the server (DROP TABLE uba_otherlock._uba_commit_lock) and try again',
    })
    expect(await house('uba_otherlock', 'SELECT count() FROM event_vd')).toBe('0')
    expect(await house('uba_otherlock', 'SELECT count() FROM user_ids')).toBe('0')
    // the app's next start leaves another folder's lock in place
    await s.app.close()
    const again = await startTestServer({ dataDir: s.dataDir })
    servers[servers.indexOf(s)] = again
    expect(await uba('uba_otherlock')).toBe('_uba_commit_lock')
    // cleared as the message says: the next load succeeds
    await house('uba_otherlock', 'DROP TABLE uba_otherlock._uba_commit_lock')
    const retried = await importAndWait(again, p, { path: fixture('other.jsonl', records('other-', 3)) })
    expect({ state: retried.state, rowsWritten: retried.rowsWritten }).toEqual({ state: 'succeeded', rowsWritten: 3 })
  }, 120_000)

  it("an app's start-up while another loads drops only its own leftovers; the other's load then succeeds", async () => {
    const database = 'uba_midload'
    const dirA = mkdtempSync(join(tmpdir(), 'uba-chown-a-'))
    dirs.push(dirA)
    const a = await serveProcess(dirA, { UBA_DESK_TEST_PAUSE: 'shipped' })
    const made = await callJson(`${a.url}/uba/manage/enterprise/projects`, 'POST', { xtoken: credentialsOf(dirA).xtoken }, { appKey: 'loader', name: 'loader', timeZone: 'UTC', warehouse: { engine: 'clickhouse', url: ch.url, database } })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    const project = credentialsOf(dirA).projects.find((q) => q.appKey === 'loader')!
    await eventually(async () => (await callJson(`${a.url}/uba/manage/enterprise/projects/loader`, 'GET', { xtoken: credentialsOf(dirA).xtoken })).body.finish === true, 30_000)
    const body = new FormData()
    body.append('file', new Blob([records('a-', 5)]), 'a.jsonl')
    const started = await fetch(`${a.url}/uba/api/import/jobs`, { method: 'POST', headers: project, body })
    expect(started.status).toBe(200)
    const { id } = (await started.json()) as { id: string }
    await a.printed(/test pause: shipped/)
    const staged = await uba(database)
    expect(staged).toMatch(/_uba_stage_[0-9a-f]{8}_[0-9a-f]{12}_event_vd/)

    // app B: a project on the same database (its creation drops leftovers), then a crash leftover of its own, then a restart
    const b = await startTestServer()
    await clickhouseProject(b, 'watcher', database)
    expect(await uba(database)).toBe(staged)
    const ownLeftover = `_uba_stage_${folderId(b.app.ctx.meta)}_0123456789ab_event_vd`
    await house(database, `CREATE TABLE ${ownLeftover} AS event_vd`)
    await b.app.close()
    servers.push(await startTestServer({ dataDir: b.dataDir }))
    expect(await uba(database)).toBe(staged)

    // A goes on: its staged rows are moved into place
    a.child.kill('SIGUSR2')
    await eventually(async () => (await callJson(`${a.url}/uba/api/import/jobs/${id}`, 'GET', project)).body.state === 'succeeded', 30_000)
    expect(await house(database, 'SELECT count() FROM event_vd')).toBe('5')
    expect(await uba(database)).toBe('')
    await a.kill()
  }, 180_000)
})
