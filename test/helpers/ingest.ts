import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eventually, type TestServer } from './server'

/** A project with its own credentials and time zone, ready for imports. */
export async function newProject(s: TestServer, appKey: string, timeZone: string): Promise<{ appKey: string; token: string }> {
  const x = { xtoken: s.creds.xtoken }
  const res = await s.call('POST', '/uba/manage/enterprise/projects', { headers: x, body: { appKey, name: appKey, timeZone } })
  if (res.status !== 200) throw new Error(`project ${appKey}: ${JSON.stringify(res.body)}`)
  await eventually(async () => (await s.call('GET', `/uba/manage/enterprise/projects/${appKey}`, { headers: x })).body.finish === true)
  const list = await s.call('GET', '/uba/manage/enterprise/projects', { headers: x })
  return { appKey, token: list.body.find((p: any) => p.appKey === appKey).normalToken }
}

/** Writes a file into a fresh temp folder and returns its absolute path. */
export function fixture(name: string, content: string | Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'uba-import-'))
  const file = join(dir, name)
  writeFileSync(file, content)
  return file
}

/** Starts an import job and waits for it to end; resolves to the finished job. */
export async function importAndWait(s: TestServer, headers: Record<string, string>, body: Record<string, unknown>): Promise<any> {
  const started = await s.call('POST', '/uba/api/import/jobs', { headers, body })
  if (started.status !== 200) throw new Error(`import refused: ${started.status} ${JSON.stringify(started.body)}`)
  let job: any
  await eventually(async () => {
    job = (await s.call('GET', `/uba/api/import/jobs/${started.body.id}`, { headers })).body
    return !['queued', 'running'].includes(job.state)
  }, 60_000)
  return job
}

/** Rows of a query on the project's warehouse, with BIGINTs as numbers. */
export async function warehouseRows(s: TestServer, appKey: string, sql: string): Promise<Record<string, unknown>[]> {
  const zone = s.app.ctx.meta.prepare('SELECT time_zone FROM projects WHERE app_key = ?').pluck().get(appKey) as string
  return s.app.ctx.warehouse.withConnection(appKey, zone, async (conn) =>
    (await conn.runAndReadAll(sql)).getRowObjectsJS().map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v]))),
  )
}

/** Everything an import could leave behind: counts, columns, user ids, plan items. */
export async function footprint(s: TestServer, appKey: string) {
  const [counts] = await warehouseRows(
    s,
    appKey,
    `SELECT (SELECT count(*) FROM event_vd) AS events, (SELECT count(*) FROM profile_vd) AS profiles,
            (SELECT count(*) FROM information_schema.columns WHERE table_name IN ('event_vd', 'profile_vd')) AS columns,
            (SELECT count(*) FROM information_schema.tables WHERE table_name = 'user_ids') AS has_ids`,
  )
  const ids = counts.has_ids ? (await warehouseRows(s, appKey, 'SELECT count(*) AS n FROM user_ids'))[0].n : 0
  const meta = s.app.ctx.meta
  return {
    ...counts,
    ids,
    reportedEvents: meta.prepare('SELECT count(*) FROM plan_events WHERE app_key = ? AND data_status = 1').pluck().get(appKey),
    eventProperties: meta.prepare('SELECT count(*) FROM plan_event_properties WHERE app_key = ?').pluck().get(appKey),
    userProperties: meta.prepare('SELECT count(*) FROM plan_user_properties WHERE app_key = ?').pluck().get(appKey),
  }
}
