import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { callJson, credentialsOf, killAll, serveProcess, type ServerProcess } from '../helpers/child'

/**
 * A crash during a cohort computation (see crash-jobs.test.ts for the method): killed just after
 * its members committed, the next start says success with those members without computing again;
 * killed before they committed, it is computed again, and says success only once it is.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'uba-crash-cohort-'))
let server: ServerProcess
let shop: { appKey: string; token: string }
const ids: Record<string, number> = {}

afterAll(() => {
  killAll()
  rmSync(dataDir, { recursive: true, force: true })
})

const api = (path: string, method = 'GET', body?: unknown) => callJson(server.url + path, method, shop, body)
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

describe('a crash during a cohort computation', () => {
  it('just after its members committed: the next start says success with them, without computing again', async () => {
    await start('after-commit')
    shop = credentialsOf(dataDir).projects[0]
    const file = join(dataDir, 'people.jsonl')
    writeFileSync(file, [profile('u1', 'Beijing'), profile('u2', 'Beijing'), profile('u3', 'Paris')].join('\n'))
    const started = await api('/uba/api/import/jobs', 'POST', { path: file })
    // the import itself pauses after its commit: kill there, the next start settles it
    await server.printed(new RegExp(`test pause: after-commit job ${started.body.id}`))
    await server.kill()
    await start('after-commit')
    expect((await api(`/uba/api/import/jobs/${started.body.id}`)).body).toMatchObject({ state: 'succeeded', rowsWritten: 3 })

    ids.committed = await createCohort('committed')
    await server.printed(new RegExp(`test pause: after-commit cohort ${ids.committed}`))
    expect(await cohort(ids.committed)).toMatchObject({ status: 'calculating', userNumber: null })
    await server.kill()

    // a computation started again would stop at before-commit and stay calculating
    await start('before-commit')
    const settled = await cohort(ids.committed)
    expect(settled).toMatchObject({ status: 'success', userNumber: 2, failReason: null, calculatedTime: expect.any(String) })
    expect(await members(settled.code)).toEqual(['u1', 'u2'])
  }, 180_000)

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
