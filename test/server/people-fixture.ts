import type { EngineHost, Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'
import type { TestServer } from '../helpers/server'

/** Local Shanghai time (UTC+8, no daylight saving) as epoch ms; `local` is yyyy-MM-dd HH:mm[:ss]. */
export const sh = (local: string) => Date.parse(`${local.replace(' ', 'T')}${local.length === 16 ? ':00' : ''}+08:00`)

const rec = (xwho: string, xwhat: string, local: string, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen: sh(local), xcontext })

/**
 * The data of the single-user tests, in an Asia/Shanghai project:
 *
 *   u1  profile: name Ann, age 30, vip true, $phone 13800000000, $city Beijing, tags_list [a, b],
 *               $signup_time 2024-01-02 09:30:00.250 (local)
 *       events (local times):
 *         e6  2024-02-29 23:59  view  $os ios              (the day before the range)
 *         e1  2024-03-01 07:00  view  $os ios, price 3, $is_login true   (23:00 UTC the day before)
 *         e2  2024-03-01 12:00  buy   price 9.5, coupon X1, paid_at 2024-03-01 12:00:05
 *         e5  2024-03-01 12:00  add   price 1               (same moment as e2)
 *         e3  2024-03-02 23:30  view  $os ios               (last local hour of toDate)
 *         e4  2024-03-03 00:10  view  $os android          (the next local day, same UTC day as e3)
 *   u2  no profile; one event 2024-03-01 08:00 view
 *   u3  profile only: name Bo
 *   bulk  5000 events tick at 2024-03-10 00:00 + i seconds, n = i
 */
export const BULK = 5000

export interface PeopleData {
  s: TestServer
  p: Project
  /** distinct_id by xwho. */
  ids: Record<string, number>
}

/** Loads the data into a new project on the engine of `host` (its block's server). */
export async function loadPeople(host: EngineHost, appKey: string): Promise<PeopleData> {
  const s = host.server
  const p = await host.project(appKey, 'Asia/Shanghai')
  const lines = [
    rec('u1', '$profile_set', '2024-01-02 09:30', {
      name: 'Ann', age: 30, vip: true, $phone: '13800000000', $city: 'Beijing', tags_list: ['a', 'b'], $signup_time: '2024-01-02 09:30:00.250',
    }),
    rec('u3', '$profile_set', '2024-01-05 10:00', { name: 'Bo' }),
    rec('u1', 'view', '2024-02-29 23:59', { $os: 'ios' }),
    rec('u1', 'view', '2024-03-01 07:00', { $os: 'ios', price: 3, $is_login: true }),
    rec('u1', 'buy', '2024-03-01 12:00', { price: 9.5, coupon: 'X1', paid_at: '2024-03-01 12:00:05' }),
    rec('u1', 'add', '2024-03-01 12:00', { price: 1 }),
    rec('u1', 'view', '2024-03-02 23:30', { $os: 'ios' }),
    rec('u1', 'view', '2024-03-03 00:10', { $os: 'android' }),
    rec('u2', 'view', '2024-03-01 08:00'),
  ]
  const start = sh('2024-03-10 00:00')
  for (let i = 0; i < BULK; i++) lines.push(JSON.stringify({ xwho: 'bulk', xwhat: 'tick', xwhen: start + i * 1000, xcontext: { n: i } }))
  const job = await importAndWait(s, p, { path: fixture('people.jsonl', lines.join('\n')) })
  if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
  const rows = await host.rows(p, 'SELECT xwho, distinct_id FROM user_ids')
  const ids = Object.fromEntries(rows.map((r) => [String(r.xwho), Number(r.distinct_id)]))
  return { s, p, ids }
}

/** Masks or unmasks a property through the schema API (PUT with `masking`). */
export async function setMasking(s: TestServer, project: { appKey: string; token: string }, table: 'plan_user_properties' | 'plan_event_properties', id: string, masking: 0 | 1): Promise<void> {
  const appKey = project.appKey
  let path = `/uba/api/schema/userProperties?id=${encodeURIComponent(id)}`
  if (table === 'plan_event_properties') {
    const eventId = s.app.ctx.meta.prepare('SELECT event_id FROM plan_event_property_links WHERE app_key = ? AND property_id = ? LIMIT 1').pluck().get(appKey, id)
    if (typeof eventId !== 'string') throw new Error(`no event carries ${id}`)
    path = `/uba/api/schema/eventProperties?eventId=${encodeURIComponent(eventId)}&propertyId=${encodeURIComponent(id)}`
  }
  const res = await s.call('PUT', path, { headers: project, body: { masking } })
  if (res.status !== 200) throw new Error(`masking ${id}: ${res.status} ${JSON.stringify(res.body)}`)
}
