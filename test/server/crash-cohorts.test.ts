import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { callJson, credentialsOf, killAll, serveProcess, type ServerProcess } from '../helpers/child'
import { startClickHouse, type TestClickHouse } from '../helpers/clickhouse'
import { ENGINES } from '../helpers/engines'

/**
 * A crash during a cohort computation (see crash-jobs.test.ts for the method): killed just after
 * its members committed, the next start says success with those members without computing again;
 * killed before they committed, it is computed again, and says success only once it is.
 * On ClickHouse both projects live in a clickhouse-server started for the block (the child
 * servers, killed and started again, reach it by its URL).
 */

describe.each(ENGINES)('a crash during a cohort or tag computation, on %s', (engine) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'uba-crash-cohort-'))
  let server: ServerProcess
  let shop: { appKey: string; token: string }
  const ids: Record<string, number> = {}
  let clickhouse: TestClickHouse | null = null

  beforeAll(async () => {
    if (engine === 'clickhouse') clickhouse = await startClickHouse()
  })
  afterAll(async () => {
    killAll()
    await clickhouse?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  let tagged: { appKey: string; token: string }
  const api = (path: string, method = 'GET', body?: unknown, headers: Record<string, string> = shop) => callJson(server.url + path, method, headers, body)

  /** A new project on the block's engine (ClickHouse: the database `uba_<appKey>`). */
  async function newProject(xtoken: string, appKey: string, timeZone = 'UTC'): Promise<{ appKey: string; token: string }> {
    const warehouse = clickhouse ? { warehouse: { engine: 'clickhouse', url: clickhouse.url, database: `uba_${appKey}` } } : {}
    expect((await api('/uba/manage/enterprise/projects', 'POST', { appKey, name: appKey, timeZone, ...warehouse }, { xtoken })).status).toBe(200)
    while ((await api(`/uba/manage/enterprise/projects/${appKey}`, 'GET', undefined, { xtoken })).body.finish !== true) await new Promise((r) => setTimeout(r, 50))
    const list = await api('/uba/manage/enterprise/projects', 'GET', undefined, { xtoken })
    return { appKey, token: list.body.find((p: any) => p.appKey === appKey).normalToken }
  }
  const profile = (xwho: string, city: string) => JSON.stringify({ xwho, xwhat: '$profile_set', xwhen: Date.UTC(2024, 0, 1), xcontext: { $lib: 'js', $platform: 'js', city } })
  const BEIJING = { ruleGroup: [{ relation: 'AND', rules: [{ type: 'user', expression: 'user.city', function: 'EQ', params: ['Beijing'] }] }], relations: [] }

  async function start(pause?: string): Promise<void> {
    server = await serveProcess(dataDir, pause ? { UBA_DESK_TEST_PAUSE: pause } : {})
  }

  async function createCohort(name: string): Promise<number> {
    const res = await api('/uba/api/cohort', 'POST', { name, dynamic: 0, content: BEIJING })
    expect(res.status).toBe(200)
    return res.body.id
  }

  const cohort = async (id: number) => (await api(`/uba/api/cohort/${id}?needMore=true`)).body
  const members = async (code: string) => (await api('/uba/api/cohort/users', 'POST', { cohortCode: code, properties: ['xwho'] })).body.users.map((u: any) => u.xwho).sort()

  it('just after its members committed: the next start says success with them (a cohort, a tag version), without computing again', async () => {
    await start('after-commit')
    const creds = credentialsOf(dataDir)
    // the first project (DuckDB, in the machine's zone); on ClickHouse one like it there
    shop = clickhouse ? await newProject(creds.xtoken, 'shop', Intl.DateTimeFormat().resolvedOptions().timeZone) : creds.projects[0]
    // tags in a project of their own: the paused cohort holds its project's write lock
    tagged = await newProject(creds.xtoken, 'tagged')
    const file = join(dataDir, 'people.jsonl')
    writeFileSync(file, [profile('u1', 'Beijing'), profile('u2', 'Beijing'), profile('u3', 'Paris')].join('\n'))
    const imports = [await api('/uba/api/import/jobs', 'POST', { path: file }), await api('/uba/api/import/jobs', 'POST', { path: file }, tagged)]
    // the imports themselves pause after their commit: killed there, the next start settles them
    for (const started of imports) await server.printed(new RegExp(`test pause: after-commit job ${started.body.id}`))
    await server.kill()
    await start('after-commit')
    expect((await api(`/uba/api/import/jobs/${imports[0].body.id}`)).body).toMatchObject({ state: 'succeeded', rowsWritten: 3 })
    expect((await api(`/uba/api/import/jobs/${imports[1].body.id}`, 'GET', undefined, tagged)).body).toMatchObject({ state: 'succeeded', rowsWritten: 3 })

    ids.committed = await createCohort('committed')
    const tag = await api('/uba/api/tags', 'POST', { name: 'City', rules: [{ value: 'bj', content: BEIJING }] }, tagged)
    expect(tag.status).toBe(200)
    await server.printed(new RegExp(`test pause: after-commit cohort ${ids.committed}`))
    await server.printed(new RegExp(`test pause: after-commit tag ${tag.body.id}`))
    expect(await cohort(ids.committed)).toMatchObject({ status: 'calculating', userNumber: null })
    await server.kill()

    // a computation started again would stop at before-commit and stay calculating
    await start('before-commit')
    const settled = await cohort(ids.committed)
    expect(settled).toMatchObject({ status: 'success', userNumber: 2, failReason: null, calculatedTime: expect.any(String) })
    expect(await members(settled.code)).toEqual(['u1', 'u2'])
    const tags = (await api('/uba/api/tags', 'GET', undefined, tagged)).body
    expect(tags.find((t: any) => t.id === tag.body.id)).toMatchObject({ status: 'success', versions: [{ version: 1, userNumber: 2, calculatedTime: expect.any(String) }] })
  }, 240_000)

  it('before its members committed: the next start computes it again, and it says success once it has', async () => {
    ids.rolledBack = await createCohort('rolled back')
    await server.printed(new RegExp(`test pause: before-commit cohort ${ids.rolledBack}`))
    await server.kill()

    await start()
    let found = await cohort(ids.rolledBack)
    while (found.status === 'calculating') {
      expect(found.userNumber).toBeNull()
      await new Promise((r) => setTimeout(r, 50))
      found = await cohort(ids.rolledBack)
    }
    expect(found).toMatchObject({ status: 'success', userNumber: 2 })
    expect(await members(found.code)).toEqual(['u1', 'u2'])
  }, 180_000)
})
