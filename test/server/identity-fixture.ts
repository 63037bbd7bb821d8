import type { EngineHost } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'
import { rawRequest } from '../helpers/raw'
import { eventually, type TestServer } from '../helpers/server'

/**
 * Users who browse anonymously, log in (`$alias`) and buy, over 2024-01-01..03 (UTC):
 *   anon-1 -> alice: view 01-01 10:00 (anon-1); $alias + login 11:00, pay 12:00 (alice)
 *   anon-2 -> bob:   view 01-02 08:00 (anon-2); $alias + login 09:00 (bob); view 01-03 10:00, pay 11:00 (bob)
 *   anon-3:          view 01-01 15:00, never logs in
 *   carol:           logged in throughout: view 01-02 10:00, login 10:10, pay 10:20; a view 01-06 (after the range)
 * Merged, these are 4 users (anon-1+alice, anon-2+bob, anon-3, carol); unmerged they would be 6.
 */

export type Rec = { xwho: string; xwhat: string; xwhen: number; xcontext: Record<string, unknown> }

const at = (utc: string) => Date.parse(`${utc.replace(' ', 'T')}:00Z`)
export const rec = (xwho: string, xwhat: string, utc: string, xcontext: Record<string, unknown> = {}): Rec => ({
  xwho,
  xwhat,
  xwhen: at(utc),
  xcontext: { $lib: 'JS', $lib_version: '4.1.0', $platform: 'JS', $debug: 0, $is_login: false, ...xcontext },
})
export const alias = (login: string, anonymous: string | undefined, utc: string) => rec(login, '$alias', utc, anonymous === undefined ? {} : { $original_id: anonymous })

export const early = [
  rec('anon-1', 'view', '2024-01-01 10:00'),
  rec('anon-2', 'view', '2024-01-02 08:00'),
  rec('anon-3', 'view', '2024-01-01 15:00'),
  rec('carol', 'view', '2024-01-02 10:00'),
  rec('carol', 'login', '2024-01-02 10:10'),
  rec('carol', 'pay', '2024-01-02 10:20'),
]
export const aliceLogin = [alias('alice', 'anon-1', '2024-01-01 11:00'), rec('alice', 'login', '2024-01-01 11:00'), rec('alice', 'pay', '2024-01-01 12:00')]
export const bobAlias = alias('bob', 'anon-2', '2024-01-02 09:00')
export const bobLater = [rec('bob', 'login', '2024-01-02 09:00'), rec('bob', 'view', '2024-01-03 10:00'), rec('bob', 'pay', '2024-01-03 11:00')]
export const late = [rec('carol', 'view', '2024-01-06 09:00')]
export const all = [...early, ...aliceLogin, bobAlias, ...bobLater, ...late]

/** The three ways the same records arrive: one imported file, and two orders of collector uploads; projects on the engine of `host`. */
export async function loadAll(host: EngineHost): Promise<{ imported: Project; streamed: Project; aliasFirst: Project; job: any; replies: any[] }> {
  const s = host.server
  const imported = await host.project('imported', 'UTC')
  // the file in time order, the aliases in the middle
  const sorted = [...all].sort((a, b) => a.xwhen - b.xwhen)
  const job = await importAndWait(s, imported, { path: fixture('identity.jsonl', sorted.map((r) => JSON.stringify(r)).join('\n')) })
  if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
  // streamed: alice's alias comes with her later events; bob's alias after his later events are stored
  const streamed = await host.project('streamed', 'UTC')
  await startStream(s, streamed.appKey)
  const replies = []
  for (const batch of [early, aliceLogin, bobLater, [bobAlias], late]) replies.push(await upload(s, streamed.appKey, batch))
  // the aliases first, before any event of either id
  const aliasFirst = await host.project('aliasfirst', 'UTC')
  await startStream(s, aliasFirst.appKey)
  for (const batch of [[aliceLogin[0], bobAlias], early, aliceLogin.slice(1), bobLater, late]) await upload(s, aliasFirst.appKey, batch)
  return { imported, streamed, aliasFirst, job, replies }
}

export type Project = { appKey: string; token: string }

export async function startStream(s: TestServer, appKey: string): Promise<void> {
  await s.call('POST', `/uba/manage/enterprise/projects/${appKey}/stream`, { headers: { xtoken: s.creds.xtoken }, body: { streamSwitch: true } })
  await eventually(async () => (await s.call('GET', `/uba/manage/enterprise/projects/${appKey}`, { headers: { xtoken: s.creds.xtoken } })).body.stream === 2)
}

/** One collector upload of records for a project; resolves to the reply. */
export async function upload(s: TestServer, appKey: string, records: Rec[]): Promise<any> {
  const res = await rawRequest(s.app.port, 'POST', '/up', { host: `127.0.0.1:${s.app.port}`, 'content-type': 'application/json' }, JSON.stringify(records.map((r) => ({ appid: appKey, ...r }))))
  if (res.status !== 200) throw new Error(`upload: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

/** Every event with the ids of its user (all xwho sharing its distinct_id), independent of the numbers given. */
export async function eventUsers(host: EngineHost, p: Project): Promise<unknown[]> {
  if (host.engine === 'clickhouse') {
    // xwhen is already epoch ms there; 18.16 needs a join's strictness
    return host.rows(p, `SELECT e.xwho AS xwho, e.xwhat AS xwhat, e.xwhen AS t, g.ids AS ids
      FROM event_vd e ALL INNER JOIN (SELECT distinct_id, arraySort(groupArray(xwho)) AS ids FROM user_ids GROUP BY distinct_id) g USING (distinct_id)
      ORDER BY t, xwho, xwhat`)
  }
  return host.rows(p, `SELECT e.xwho, e.xwhat, epoch_ms(e.xwhen) AS t, g.ids
    FROM event_vd e JOIN (SELECT distinct_id, list(xwho ORDER BY xwho) AS ids FROM user_ids GROUP BY distinct_id) g USING (distinct_id)
    ORDER BY t, e.xwho, e.xwhat`)
}
