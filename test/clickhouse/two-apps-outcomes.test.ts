import Database from 'better-sqlite3'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { callJson, credentialsOf, killAll, serveProcess, type ServerProcess } from '../helpers/child'
import { clickhouseAvailable, startClickHouse, type TestClickHouse } from '../helpers/clickhouse'

/**
 * Two UBA Desks (two data folders) with projects on one ClickHouse database, each killed (SIGKILL)
 * right after a load committed and before its metadata knew: each folder's sealed outcomes are its
 * own (`uba_outcomes_<folder>`), so one app's start-up settles its own work and leaves the other's
 * record untouched, and the other app, started later, settles its work from it.
 */

const DATABASE = 'uba_outcomes_two'
const T = Date.UTC(2024, 0, 1, 10)
const rec = (xwho: string, xwhat: string, i: number, xcontext: Record<string, unknown>) => JSON.stringify({ xwho, xwhat, xwhen: T + i * 1000, xcontext: { $lib: 'js', ...xcontext } })
const sdk = (appid: string, xwho: string, xwhat: string, i: number, props: Record<string, unknown>) => ({ appid, xwho, xwhat, xwhen: T + i * 1000, xcontext: { $lib: 'js', $platform: 'js', $debug: 0, $is_login: false, $lib_version: '4', ...props } })

interface App {
  name: string
  dir: string
  server: ServerProcess
  project: { appKey: string; token: string }
  folder: string
}

describe.skipIf(!clickhouseAvailable())('two apps on one ClickHouse database, each killed after a commit (real clickhouse-server, real processes)', () => {
  let ch: TestClickHouse
  const apps: App[] = []
  const house = async (sql: string) => {
    const res = await fetch(`${ch.url}/?database=${DATABASE}`, { method: 'POST', body: sql })
    const text = (await res.text()).trim()
    if (!res.ok) throw new Error(text)
    return text
  }
  const api = (app: App, path: string, method = 'GET', body?: unknown) => callJson(app.server.url + path, method, app.project, body)
  const start = async (app: App, pause?: string) => (app.server = await serveProcess(app.dir, pause ? { UBA_DESK_TEST_PAUSE: pause } : {}))
  /** The keys of a folder's sealed outcomes, as a query sees them (a forgotten one is gone once its mutation ran). */
  const recordsOf = (app: App) => house(`SELECT key FROM uba_outcomes_${app.folder} ORDER BY key`)
  /** The deletes (mutations) ever asked of a folder's outcomes table. */
  const mutationsOf = (app: App) => house(`SELECT count() FROM system.mutations WHERE database = '${DATABASE}' AND table = 'uba_outcomes_${app.folder}'`)
  /** Waits until a folder's sealed outcomes are all gone (the delete is a mutation, applied in the background). */
  const outcomesSettle = (app: App) => expect.poll(() => recordsOf(app), { timeout: 60_000 }).toBe('')
  const startImport = async (app: App, records: string) => {
    const body = new FormData()
    body.append('file', new Blob([records]), 'records.jsonl')
    const res = await fetch(`${app.server.url}/uba/api/import/jobs`, { method: 'POST', headers: app.project, body }).catch((e: unknown) => {
      throw new Error(`the import request failed (${String(e)}); the server printed: ${app.server.output()}`)
    })
    expect(res.status, await res.clone().text()).toBe(200)
    return ((await res.json()) as { id: string }).id
  }
  const upload = (app: App, batch: object[]) =>
    fetch(`${app.server.url}/up?appid=${app.project.appKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) }).catch(() => undefined)

  beforeAll(async () => {
    ch = await startClickHouse()
    for (const name of ['alpha', 'beta']) {
      const dir = mkdtempSync(join(tmpdir(), `uba-two-outcomes-${name}-`))
      const server = await serveProcess(dir, { UBA_DESK_TEST_PAUSE: 'after-commit' })
      const x = { xtoken: credentialsOf(dir).xtoken }
      const made = await callJson(`${server.url}/uba/manage/enterprise/projects`, 'POST', x, { appKey: name, name, timeZone: 'UTC', warehouse: { engine: 'clickhouse', url: ch.url, database: DATABASE } })
      expect(made.status, JSON.stringify(made.body)).toBe(200)
      while ((await callJson(`${server.url}/uba/manage/enterprise/projects/${name}`, 'GET', x)).body.finish !== true) await new Promise((r) => setTimeout(r, 50))
      await callJson(`${server.url}/uba/manage/enterprise/projects/${name}/stream`, 'POST', x, { streamSwitch: true })
      while ((await callJson(`${server.url}/uba/manage/enterprise/projects/${name}`, 'GET', x)).body.stream !== 2) await new Promise((r) => setTimeout(r, 50))
      const meta = new Database(join(dir, 'meta.sqlite'), { readonly: true })
      const folder = String(meta.prepare("SELECT value FROM settings WHERE key = 'platform.folderId'").pluck().get())
      meta.close()
      apps.push({ name, dir, server, project: credentialsOf(dir).projects.find((p) => p.appKey === name)!, folder })
    }
    expect(apps[0].folder).not.toBe(apps[1].folder)
    // each test starts the servers it needs
    for (const app of apps) await app.server.kill()
  }, 300_000)

  // a test that fails half-way leaves no server of its folders to the next
  afterEach(async () => {
    for (const { server } of apps) if (server.child.exitCode === null && server.child.signalCode === null) await server.kill()
  })

  afterAll(async () => {
    killAll()
    await ch?.stop()
    for (const app of apps) rmSync(app.dir, { recursive: true, force: true })
  })

  it("an import of each app killed after its commit: the second app's start-up settles its own job and leaves the first's record; the first, restarted, settles its job from it", async () => {
    const [a, b] = apps
    await start(a, 'after-commit')
    await start(b, 'after-commit')
    const aJob = await startImport(a, [rec('a1', 'buy', 0, { price: 10 }), rec('a2', 'buy', 1, { price: 20 }), rec('a1', 'browse', 2, { city: 'Paris' }), rec('a1', '$profile_set', 3, { tier: 'gold' })].join('\n'))
    await a.server.printed(new RegExp(`test pause: after-commit job ${aJob}`))
    await a.server.kill()
    expect(await recordsOf(a)).toBe(`job:${aJob}`)
    const bJob = await startImport(b, [rec('b1', 'visit', 4, {}), rec('b2', 'visit', 5, {})].join('\n'))
    await b.server.printed(new RegExp(`test pause: after-commit job ${bJob}`))
    await b.server.kill()
    expect(await recordsOf(b)).toBe(`job:${bJob}`)
    const aMutations = await mutationsOf(a)

    // the second app starts while the first is down with its job unsettled
    await start(b)
    expect((await api(b, `/uba/api/import/jobs/${bJob}`)).body).toMatchObject({ state: 'succeeded', rowsRead: 2, rowsWritten: 2, result: { eventsWritten: 2 } })
    await outcomesSettle(b)
    expect(await recordsOf(a)).toBe(`job:${aJob}`)
    expect(await mutationsOf(a)).toBe(aMutations)

    // the first app starts: its job succeeded with its counts, its rows are there once
    await start(a)
    expect((await api(a, `/uba/api/import/jobs/${aJob}`)).body).toMatchObject({ state: 'succeeded', rowsRead: 4, rowsWritten: 4, result: { eventsWritten: 3, profilesChanged: 1 } })
    await outcomesSettle(a)
    expect(await house("SELECT xwho, count() FROM event_vd WHERE xwho IN ('a1', 'a2', 'b1', 'b2') GROUP BY xwho ORDER BY xwho")).toBe('a1\t2\na2\t1\nb1\t1\nb2\t1')
    expect(await house("SELECT xwho, tier FROM profile_vd WHERE xwho = 'a1'")).toBe('a1\tgold')
    expect((await api(a, '/uba/api/schema/event')).body.map((e: { id: string }) => e.id)).toEqual(expect.arrayContaining(['buy', 'browse']))
    for (const app of apps) await app.server.kill()
  }, 500_000)

  it("a collector batch of each app killed after its commit: each app's plan learns its own batch (platform included), never the other's", async () => {
    const [a, b] = apps
    await start(a, 'after-commit')
    await start(b, 'after-commit')
    upload(a, [sdk('alpha', 'ca1', 'tap', 10, { screen: 'home' }), sdk('alpha', 'ca2', 'tap', 11, { screen: 'cart' })])
    await a.server.printed(/test pause: after-commit upload alpha/)
    await a.server.kill()
    expect(await recordsOf(a)).toMatch(/^collect:[0-9a-f-]{36}$/)
    const aRecord = await recordsOf(a)
    upload(b, [sdk('beta', 'cb1', 'pay', 12, { amount: 5 })])
    await b.server.printed(/test pause: after-commit upload beta/)
    await b.server.kill()
    expect(await recordsOf(b)).toMatch(/^collect:[0-9a-f-]{36}$/)
    const aMutations = await mutationsOf(a)

    await start(b)
    await outcomesSettle(b)
    expect(await recordsOf(a)).toBe(aRecord)
    expect(await mutationsOf(a)).toBe(aMutations)
    const platformOf = async (app: App, id: string) => ((await api(app, '/uba/api/meta/event')).body.find((e: { id: string }) => e.id === id)?.platform ?? null) as string | null
    expect(await platformOf(b, 'pay')).toMatch(/^js$/i)
    // the rows of the first app's batch are in the shared tables (the start-up's reconciliation names the event), but what it reported is not the second's
    expect(await platformOf(b, 'tap')).toBeFalsy()

    await start(a)
    await outcomesSettle(a)
    expect(await platformOf(a, 'tap')).toMatch(/^js$/i)
    const props = (await api(a, '/uba/api/schema/eventProperties?eventId=tap')).body
    expect(props.find((p: { id: string }) => p.id === 'screen')).toMatchObject({ dataType: 'string', dataStatus: 1 })
    expect(await house("SELECT xwho, screen FROM event_vd WHERE xwhat = 'tap' ORDER BY xwho")).toBe('ca1\thome\nca2\tcart')
    for (const app of apps) await app.server.kill()
  }, 500_000)

  it("upgrading: this folder's job record in the shared uba_outcomes of an earlier version is settled from there, and only it is deleted; records it cannot tell its own stay", async () => {
    const [a] = apps
    await start(a, 'after-commit')
    const id = await startImport(a, [rec('g1', 'open', 20, {}), rec('g2', 'open', 21, {})].join('\n'))
    await a.server.printed(new RegExp(`test pause: after-commit job ${id}`))
    await a.server.kill()
    // as an earlier version sealed it: one table for every app, beside other apps' records
    await house('CREATE TABLE uba_outcomes (key String, outcome String, sealed_at DateTime DEFAULT now()) ENGINE = ReplacingMergeTree(sealed_at) ORDER BY key')
    await house(`INSERT INTO uba_outcomes (key, outcome) SELECT key, argMax(outcome, sealed_at) FROM uba_outcomes_${a.folder} GROUP BY key`)
    await house(`DROP TABLE uba_outcomes_${a.folder}`)
    const others = [`collect:${randomUUID()}`, 'cohort:1:1', `job:${randomUUID()}`].sort()
    await house(`INSERT INTO uba_outcomes (key, outcome) VALUES ${others.map((k) => `('${k}', '{"userNumber":1,"now":1}')`).join(', ')}`)
    const shared = () => house('SELECT key FROM uba_outcomes FINAL ORDER BY key')
    expect(await shared()).toBe([`job:${id}`, ...others].sort().join('\n'))

    await start(a)
    expect((await api(a, `/uba/api/import/jobs/${id}`)).body).toMatchObject({ state: 'succeeded', rowsRead: 2, rowsWritten: 2, result: { eventsWritten: 2 } })
    await expect.poll(shared, { timeout: 60_000 }).toBe(others.join('\n'))
    expect(await house("SELECT count() FROM event_vd WHERE xwho IN ('g1', 'g2')")).toBe('2')
    await a.server.kill()
  }, 500_000)
})
