import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { PRODUCTS } from '../../src-main/domain/ingest/sample/products'
import { callJson, credentialsOf, killAll, serveProcess, type ServerProcess } from '../helpers/child'

/**
 * A crash at each instant of a job: the server runs as a child process with UBA_DESK_TEST_PAUSE
 * set, so that its jobs stop at that point and say so; it is SIGKILLed there and started again on
 * the same folder. The job must then say exactly what the data holds. One folder goes through the
 * whole chain: each start checks the jobs the previous one was killed in, then starts the next.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'uba-crash-'))
let server: ServerProcess
let creds: { xtoken: string; projects: { appKey: string; token: string }[] }
let shop: { appKey: string; token: string }
const projects: Record<string, { appKey: string; token: string }> = {}

afterAll(() => {
  killAll()
  rmSync(dataDir, { recursive: true, force: true })
})

const rec = (xwho: string, xwhat: string, xcontext: Record<string, unknown>) =>
  JSON.stringify({ xwho, xwhat, xwhen: Date.UTC(2024, 0, 1, 10), xcontext: { $lib: 'js', $platform: 'js', ...xcontext } })
// 3 events of new ids with new properties, one profile operation with a new user property
const RECORDS = [
  rec('u1', 'buy', { price: 10, city: 'Berlin' }),
  rec('u2', 'buy', { price: 20 }),
  rec('u1', 'browse', { city: 'Paris' }),
  rec('u1', '$profile_set', { tier: 'gold' }),
].join('\n')

const api = (path: string, headers: Record<string, string>, method = 'GET', body?: unknown) => callJson(server.url + path, method, headers, body)
const sql = (headers: Record<string, string>, text: string) => api('/uba/api/sql/query', headers, 'POST', { sql: text, format: 'json' })

async function start(pause?: string): Promise<void> {
  server = await serveProcess(dataDir, pause ? { UBA_DESK_TEST_PAUSE: pause } : {})
}

/** Uploads the records as a file (multipart), so that an uploaded copy is in play too. */
async function startImport(headers: Record<string, string>): Promise<string> {
  const body = new FormData()
  body.append('file', new Blob([RECORDS]), 'records.jsonl')
  const res = await fetch(`${server.url}/uba/api/import/jobs`, { method: 'POST', headers, body })
  const job = (await res.json()) as { id: string }
  expect(res.status).toBe(200)
  return job.id
}

async function startSample(headers: Record<string, string>): Promise<string> {
  const res = await api('/uba/api/import/sample', headers, 'POST', { users: 200, days: 3, seed: 7 })
  expect(res.status).toBe(200)
  return res.body.id
}

async function newProject(appKey: string): Promise<{ appKey: string; token: string }> {
  const x = { xtoken: creds.xtoken }
  expect((await api('/uba/manage/enterprise/projects', x, 'POST', { appKey, name: appKey, timeZone: 'UTC' })).status).toBe(200)
  for (;;) {
    const p = await api(`/uba/manage/enterprise/projects/${appKey}`, x)
    if (p.body.finish === true) break
    await new Promise((r) => setTimeout(r, 50))
  }
  const list = await api('/uba/manage/enterprise/projects', x)
  return { appKey, token: list.body.find((p: any) => p.appKey === appKey).normalToken }
}

const job = async (headers: Record<string, string>, id: string) => (await api(`/uba/api/import/jobs/${id}`, headers)).body
const count = async (headers: Record<string, string>, table: string) => Number((await sql(headers, `SELECT count(*) AS n FROM ${table}`)).body[0].n)
const planEvent = async (headers: Record<string, string>, id: string) => (await api('/uba/api/schema/event', headers)).body.find((e: any) => e.id === id)
const files = (dir: string) => {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

/** The import left nothing: a failed job, no rows, columns or plan items, no files. */
async function expectNothingImported(id: string): Promise<void> {
  expect(await job(shop, id)).toMatchObject({ state: 'failed', rowsWritten: 0, result: null, error: expect.stringContaining('nothing was imported') })
  expect(await count(shop, 'event_vd')).toBe(0)
  expect(await count(shop, 'profile_vd')).toBe(0)
  expect((await sql(shop, 'SELECT price FROM event_vd')).status).toBe(400)
  expect((await sql(shop, 'SELECT tier FROM profile_vd')).status).toBe(400)
  expect(await planEvent(shop, 'buy')).toBeUndefined()
  expect(files(join(dataDir, 'uploads'))).toEqual([])
}

const pending: Record<string, string> = {}

describe('a crash during an import or a sample', () => {
  it('at reading: the next start says nothing was imported, and removes the uploaded copy and staging files', async () => {
    await start('reading')
    creds = credentialsOf(dataDir)
    shop = creds.projects[0]
    projects.early = await newProject('early')
    projects.late = await newProject('late')
    pending.reading = await startImport(shop)
    await server.printed(new RegExp(`test pause: reading job ${pending.reading}`))
    expect(files(join(dataDir, 'uploads'))).toHaveLength(1)
    await server.kill()
    // what a kill in the middle of DuckDB's read leaves: the file placed for it
    const staging = join(dataDir, 'projects', shop.appKey, 'staging')
    mkdirSync(staging, { recursive: true })
    writeFileSync(join(staging, 'left-by-a-crash.jsonl'), RECORDS)

    await start('checking')
    await expectNothingImported(pending.reading)
    expect(files(staging)).toEqual([])
  }, 120_000)

  it('at checking: nothing was imported', async () => {
    pending.checking = await startImport(shop)
    await server.printed(new RegExp(`test pause: checking job ${pending.checking}`))
    await server.kill()
    await start('writing')
    await expectNothingImported(pending.checking)
  }, 120_000)

  it('at writing: nothing was imported', async () => {
    pending.writing = await startImport(shop)
    await server.printed(new RegExp(`test pause: writing job ${pending.writing}`))
    await server.kill()
    await start('before-commit')
    await expectNothingImported(pending.writing)
  }, 120_000)

  it('with every row written but not committed: nothing was imported, by the import or the sample', async () => {
    pending.beforeCommit = await startImport(shop)
    pending.sampleBefore = await startSample(projects.early)
    await server.printed(new RegExp(`test pause: before-commit job ${pending.beforeCommit}`))
    await server.printed(new RegExp(`test pause: before-commit job ${pending.sampleBefore}`))
    await server.kill()
    await start('after-commit')
    await expectNothingImported(pending.beforeCommit)
    const early = projects.early
    expect(await job(early, pending.sampleBefore)).toMatchObject({ state: 'failed', rowsWritten: 0, error: expect.stringContaining('nothing was imported') })
    expect(await count(early, 'event_vd')).toBe(0)
    expect(await count(early, 'profile_vd')).toBe(0)
    expect((await sql(early, 'SELECT count(*) FROM products')).status).toBe(400)
    expect(await planEvent(early, 'pay')).toBeUndefined()
  }, 120_000)

  it('just after the commit: the job succeeded with the counts of the rows stored, and the plan knows what reported', async () => {
    pending.afterCommit = await startImport(shop)
    pending.sampleAfter = await startSample(projects.late)
    await server.printed(new RegExp(`test pause: after-commit job ${pending.afterCommit}`))
    await server.printed(new RegExp(`test pause: after-commit job ${pending.sampleAfter}`))
    await server.kill()
    await start()

    const done = await job(shop, pending.afterCommit)
    expect(done).toMatchObject({ state: 'succeeded', percent: 100, rowsRead: 4, rowsWritten: 4, rowsRejected: 0, error: null })
    expect(done.result).toEqual({ eventsWritten: 3, profilesChanged: 1, debugSkipped: 0, duplicatesSkipped: 0 })
    expect((await sql(shop, 'SELECT xwho, xwhat, price, city FROM event_vd ORDER BY xwho, xwhat')).body).toEqual([
      { xwho: 'u1', xwhat: 'browse', price: null, city: 'Paris' },
      { xwho: 'u1', xwhat: 'buy', price: 10, city: 'Berlin' },
      { xwho: 'u2', xwhat: 'buy', price: 20, city: null },
    ])
    expect((await sql(shop, 'SELECT xwho, tier FROM profile_vd')).body).toEqual([{ xwho: 'u1', tier: 'gold' }])
    expect(await planEvent(shop, 'buy')).toMatchObject({ dataStatus: 1, platform: 'js' })
    const props = (await api('/uba/api/schema/eventProperties?eventId=buy', shop)).body
    expect(props.find((p: any) => p.id === 'price')).toMatchObject({ dataType: 'number', dataStatus: 1 })
    expect(props.find((p: any) => p.id === 'city')).toMatchObject({ dataType: 'string', dataStatus: 1 })
    const users = (await api('/uba/api/schema/userProperties', shop)).body
    expect(users.find((p: any) => p.id === 'tier')).toMatchObject({ dataType: 'string', dataStatus: 1 })
    expect(files(join(dataDir, 'uploads'))).toEqual([])

    const late = projects.late
    const sample = await job(late, pending.sampleAfter)
    const events = await count(late, 'event_vd')
    const profiles = await count(late, 'profile_vd')
    expect(profiles).toBe(200)
    expect(sample).toMatchObject({ state: 'succeeded', rowsWritten: events + profiles, result: { eventsWritten: events, profilesChanged: 200, debugSkipped: 0, duplicatesSkipped: 0 } })
    // the plan side of the sample and its products table, done at the start
    expect(await count(late, 'products')).toBe(PRODUCTS.length)
    expect(await planEvent(late, 'pay')).toMatchObject({ name: 'Pay', plan: 1, dataStatus: 1 })
  }, 120_000)
})
