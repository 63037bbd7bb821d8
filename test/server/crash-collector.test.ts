import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { callJson, credentialsOf, killAll, serveProcess } from '../helpers/child'

/** A collector upload cut by a crash mid-write (see crash-jobs.test.ts for the method). */

const dataDir = mkdtempSync(join(tmpdir(), 'uba-crash-up-'))
const committedDir = mkdtempSync(join(tmpdir(), 'uba-crash-up-'))
afterAll(() => {
  killAll()
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(committedDir, { recursive: true, force: true })
})

it('a collector upload killed with every row written but not committed stores nothing; sent again, it stores the whole batch once', async () => {
  let server = await serveProcess(dataDir, { UBA_DESK_TEST_PAUSE: 'before-commit' })
  const creds = credentialsOf(dataDir)
  const project = creds.projects[0]
  const x = { xtoken: creds.xtoken }
  await callJson(`${server.url}/uba/manage/enterprise/projects/${project.appKey}/stream`, 'POST', x, { streamSwitch: true })
  while ((await callJson(`${server.url}/uba/manage/enterprise/projects/${project.appKey}`, 'GET', x)).body.stream !== 2) await new Promise((r) => setTimeout(r, 50))
  const batch = ['u1', 'u2', 'u3'].map((xwho, i) => ({ appid: project.appKey, xwho, xwhat: 'tap', xwhen: Date.UTC(2024, 0, 1, i), xcontext: { $lib: 'js', $platform: 'js', $debug: 0, $is_login: false, $lib_version: '4', weight: i + 0.5 } }))
  const send = (url: string) => fetch(`${url}/up?appid=${project.appKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) })
  // the SDK never gets its answer: it keeps the batch and sends it again later
  send(server.url).catch(() => undefined)
  await server.printed(/test pause: before-commit load/)
  await server.kill()

  server = await serveProcess(dataDir)
  const sql = async (text: string) => callJson(`${server.url}/uba/api/sql/query`, 'POST', project, { sql: text, format: 'json' })
  expect((await sql('SELECT count(*) AS n FROM event_vd')).body).toEqual([{ n: 0 }])
  expect((await sql('SELECT weight FROM event_vd')).status).toBe(400)

  const again = await send(server.url)
  expect(again.status).toBe(200)
  expect(await again.json()).toMatchObject({ code: 200, received: 3, stored: 3, rejected: 0 })
  expect((await sql('SELECT xwho, weight FROM event_vd ORDER BY xwho')).body).toEqual([
    { xwho: 'u1', weight: 0.5 },
    { xwho: 'u2', weight: 1.5 },
    { xwho: 'u3', weight: 2.5 },
  ])
}, 180_000)

it('a collector upload killed just after its commit, before the plan knew it: after the restart the rows are there once and the plan knows the event, its properties and their types', async () => {
  let server = await serveProcess(committedDir, { UBA_DESK_TEST_PAUSE: 'after-commit' })
  const creds = credentialsOf(committedDir)
  const project = creds.projects[0]
  const x = { xtoken: creds.xtoken }
  await callJson(`${server.url}/uba/manage/enterprise/projects/${project.appKey}/stream`, 'POST', x, { streamSwitch: true })
  while ((await callJson(`${server.url}/uba/manage/enterprise/projects/${project.appKey}`, 'GET', x)).body.stream !== 2) await new Promise((r) => setTimeout(r, 50))
  const batch = ['u1', 'u2'].map((xwho, i) => ({ appid: project.appKey, xwho, xwhat: 'pay', xwhen: Date.UTC(2024, 0, 2, i), xcontext: { $lib: 'js', $platform: 'js', $debug: 0, $is_login: false, $lib_version: '4', amount: 10 * (i + 1), coupon: `c${i}` } }))
  fetch(`${server.url}/up?appid=${project.appKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) }).catch(() => undefined)
  await server.printed(new RegExp(`test pause: after-commit upload ${project.appKey}`))
  await server.kill()

  server = await serveProcess(committedDir)
  const api = (path: string) => callJson(server.url + path, 'GET', project)
  const sql = async (text: string) => callJson(`${server.url}/uba/api/sql/query`, 'POST', project, { sql: text, format: 'json' })
  expect((await sql('SELECT xwho, xwhat, amount, coupon FROM event_vd ORDER BY xwho')).body).toEqual([
    { xwho: 'u1', xwhat: 'pay', amount: 10, coupon: 'c0' },
    { xwho: 'u2', xwhat: 'pay', amount: 20, coupon: 'c1' },
  ])
  const events = (await api('/uba/api/meta/event')).body
  expect(events.find((e: any) => e.id === 'pay')).toMatchObject({ id: 'pay', type: 'event', platform: expect.stringMatching(/^js$/i) })
  const props = (await api('/uba/api/schema/eventProperties?eventId=pay')).body
  expect(props.find((p: any) => p.id === 'amount')).toMatchObject({ dataType: 'number', dataStatus: 1 })
  expect(props.find((p: any) => p.id === 'coupon')).toMatchObject({ dataType: 'string', dataStatus: 1 })
  const metaProps = (await api('/uba/api/meta/eventProperties?eventId=pay')).body.map((p: any) => p.id)
  expect(metaProps).toEqual(expect.arrayContaining(['amount', 'coupon']))

  // settled once: a further start finds nothing left to replay, and nothing was stored twice
  await server.kill()
  server = await serveProcess(committedDir)
  expect((await sql('SELECT count(*) AS n FROM event_vd')).body).toEqual([{ n: 2 }])
  expect((await api('/uba/api/schema/eventProperties?eventId=pay')).body.find((p: any) => p.id === 'amount')).toMatchObject({ dataType: 'number', dataStatus: 1 })
}, 180_000)
