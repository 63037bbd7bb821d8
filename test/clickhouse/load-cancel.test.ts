import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { callJson, credentialsOf, killAll, serveProcess, type ServerProcess } from '../helpers/child'
import { clickhouseAvailable, startClickHouse, type TestClickHouse } from '../helpers/clickhouse'

/**
 * A cancel in the middle of shipping: the import job of a ClickHouse project is cancelled while
 * its rows sit staged in ClickHouse, not yet moved into place (the server runs with
 * UBA_DESK_TEST_PAUSE=shipped, a pause that a cancel ends). The job says cancelled, and
 * ClickHouse holds none of the load's rows and no `_uba_*` table.
 */

const DATABASE = 'uba_cancelhouse'
const rec = (xwho: string, xwhat: string) => JSON.stringify({ xwho, xwhat, xwhen: Date.UTC(2024, 0, 1, 10), xcontext: { $lib: 'js', price: 1 } })
const RECORDS = [rec('u1', 'buy'), rec('u2', 'buy'), rec('u1', '$profile_set')].join('\n')

describe.skipIf(!clickhouseAvailable())('a cancel while an import ships into a ClickHouse project (real clickhouse-server)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'uba-chcancel-'))
  let ch: TestClickHouse
  let server: ServerProcess
  let project: { appKey: string; token: string }
  const api = (path: string, headers: Record<string, string>, method = 'GET', body?: unknown) => callJson(server.url + path, method, headers, body)
  const house = async (sql: string) => (await (await fetch(`${ch.url}/?database=${DATABASE}`, { method: 'POST', body: sql })).text()).trim()

  beforeAll(async () => {
    ch = await startClickHouse()
    server = await serveProcess(dataDir, { UBA_DESK_TEST_PAUSE: 'shipped' })
    const x = { xtoken: credentialsOf(dataDir).xtoken }
    const made = await api('/uba/manage/enterprise/projects', x, 'POST', { appKey: 'cancelhouse', name: 'cancelhouse', timeZone: 'UTC', warehouse: { engine: 'clickhouse', url: ch.url, database: DATABASE } })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    for (;;) {
      if ((await api('/uba/manage/enterprise/projects/cancelhouse', x)).body.finish === true) break
      await new Promise((r) => setTimeout(r, 50))
    }
    project = credentialsOf(dataDir).projects.find((p) => p.appKey === 'cancelhouse')!
  }, 120_000)

  afterAll(async () => {
    killAll()
    await ch?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('the job says cancelled; ClickHouse holds none of its rows and no staging', async () => {
    const body = new FormData()
    body.append('file', new Blob([RECORDS]), 'records.jsonl')
    const res = await fetch(`${server.url}/uba/api/import/jobs`, { method: 'POST', headers: project, body })
    expect(res.status).toBe(200)
    const { id } = (await res.json()) as { id: string }
    await server.printed(/test pause: shipped/)
    // every row is staged in ClickHouse at this point
    expect(await house(`SELECT count() FROM system.tables WHERE database = '${DATABASE}' AND startsWith(name, '_uba_stage_') AND endsWith(name, '_event_vd')`)).toBe('1')
    const cancelled = await api(`/uba/api/import/jobs/${id}`, project, 'DELETE')
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200)
    let job: any
    for (;;) {
      job = (await api(`/uba/api/import/jobs/${id}`, project)).body
      if (!['queued', 'running'].includes(job.state)) break
      await new Promise((r) => setTimeout(r, 50))
    }
    expect({ state: job.state, error: job.error, rowsWritten: job.rowsWritten }).toEqual({ state: 'cancelled', error: 'cancelled; nothing was imported', rowsWritten: 0 })
    expect(await house('SELECT count() FROM event_vd')).toBe('0')
    expect(await house('SELECT count() FROM user_ids')).toBe('0')
    expect(await house('SELECT count() FROM profile_vd')).toBe('0')
    expect(await house(`SELECT count() FROM system.tables WHERE database = '${DATABASE}' AND startsWith(name, '_uba_')`)).toBe('0')
    // the project loads again
    expect((await api('/uba/api/import/jobs', project)).status).toBe(200)
  }, 120_000)
})
