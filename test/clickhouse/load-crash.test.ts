import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { callJson, credentialsOf, killAll, serveProcess, type ServerProcess } from '../helpers/child'
import { clickhouseAvailable, startClickHouse, type TestClickHouse } from '../helpers/clickhouse'

/**
 * A crash during an import into a ClickHouse project: the server runs as a child process with
 * UBA_DESK_TEST_PAUSE set, is SIGKILLed where its job stops, and starts again on the same folder.
 * The job must then say what ClickHouse holds: none of its rows (no staging left either) when the
 * kill came before the staged rows were moved into place, all of them and its counts after.
 */

const DATABASE = 'uba_crashhouse'
const rec = (xwho: string, xwhat: string, xcontext: Record<string, unknown>) => JSON.stringify({ xwho, xwhat, xwhen: Date.UTC(2024, 0, 1, 10), xcontext: { $lib: 'js', ...xcontext } })
const RECORDS = [rec('u1', 'buy', { price: 10, city: 'Berlin' }), rec('u2', 'buy', { price: 20 }), rec('u1', 'browse', { city: 'Paris' }), rec('u1', '$profile_set', { tier: 'gold' })].join('\n')

describe.skipIf(!clickhouseAvailable())('a crash during an import into a ClickHouse project (real clickhouse-server)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'uba-chcrash-'))
  let ch: TestClickHouse
  let server: ServerProcess
  let project: { appKey: string; token: string }
  const api = (path: string, headers: Record<string, string>, method = 'GET', body?: unknown) => callJson(server.url + path, method, headers, body)
  /** A query on the project's database, straight to the server (not through the app). */
  const house = async (sql: string) => (await (await fetch(`${ch.url}/?database=${DATABASE}`, { method: 'POST', body: sql })).text()).trim()
  const start = async (pause?: string) => (server = await serveProcess(dataDir, pause ? { UBA_DESK_TEST_PAUSE: pause } : {}))
  const job = async (id: string) => (await api(`/uba/api/import/jobs/${id}`, project)).body
  const startImport = async () => {
    const body = new FormData()
    body.append('file', new Blob([RECORDS]), 'records.jsonl')
    const res = await fetch(`${server.url}/uba/api/import/jobs`, { method: 'POST', headers: project, body })
    expect(res.status).toBe(200)
    return ((await res.json()) as { id: string }).id
  }
  const leftovers = () => house(`SELECT name FROM system.tables WHERE database = '${DATABASE}' AND startsWith(name, '_uba_') ORDER BY name`)
  const expectNothing = async (id: string) => {
    expect(await job(id)).toMatchObject({ state: 'failed', rowsWritten: 0, result: null, error: expect.stringContaining('nothing was imported') })
    expect(await house('SELECT count() FROM event_vd')).toBe('0')
    expect(await house('SELECT count() FROM user_ids')).toBe('0')
    expect(await leftovers()).toBe('')
  }

  beforeAll(async () => {
    ch = await startClickHouse()
    await start('before-commit')
    const x = { xtoken: credentialsOf(dataDir).xtoken }
    const made = await api('/uba/manage/enterprise/projects', x, 'POST', { appKey: 'crashhouse', name: 'crashhouse', timeZone: 'UTC', warehouse: { engine: 'clickhouse', url: ch.url, database: DATABASE } })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    for (;;) {
      if ((await api('/uba/manage/enterprise/projects/crashhouse', x)).body.finish === true) break
      await new Promise((r) => setTimeout(r, 50))
    }
    project = credentialsOf(dataDir).projects.find((p) => p.appKey === 'crashhouse')!
  }, 120_000)

  afterAll(async () => {
    killAll()
    await ch?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('killed with the outcome sealed but nothing shipped: the next start says nothing was imported', async () => {
    const id = await startImport()
    await server.printed(new RegExp(`test pause: before-commit job ${id}`))
    await server.kill()
    // the sealed outcome waits in a staging table: a crash leaves it there, never in uba_outcomes
    expect(await leftovers()).toMatch(/_uba_stage_\w+_uba_outcomes/)
    await start('shipped')
    await expectNothing(id)
  }, 120_000)

  it('killed with every row staged in ClickHouse but not moved into place: nothing was imported, the staging is dropped', async () => {
    const id = await startImport()
    await server.printed(/test pause: shipped/)
    expect(await leftovers()).toMatch(/_uba_stage_\w+_event_vd/)
    expect(await house('SELECT count() FROM event_vd')).toBe('0')
    await server.kill()
    await start('after-commit')
    await expectNothing(id)
  }, 120_000)

  it('killed right after the rows were moved into place: the job succeeded with its counts, and ClickHouse holds all of them', async () => {
    const id = await startImport()
    await server.printed(new RegExp(`test pause: after-commit job ${id}`))
    await server.kill()
    expect(await house('SELECT count() FROM event_vd')).toBe('3')
    await start()
    expect(await job(id)).toMatchObject({ state: 'succeeded', rowsRead: 4, rowsWritten: 4, result: { eventsWritten: 3, profilesChanged: 1 } })
    expect(await house('SELECT xwho, tier FROM profile_vd')).toBe('u1\tgold')
    expect(await house("SELECT count() FROM user_ids")).toBe('2')
    expect((await api('/uba/api/schema/event', project)).body.map((e: { id: string }) => e.id)).toContain('buy')
    expect(await leftovers()).toBe('')
  }, 120_000)
})
