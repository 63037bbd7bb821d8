import type { Warehouse } from '../../../warehouse'
import type { Dialect } from '../../../warehouse/dialect'
import { addColumns, propertyColumns } from '../../schema/columns'
import type { DataType } from '../../schema/types'
import { assignDistinctIds, ensureUserIds } from '../identity'
import type { Phase } from '../importer'
import { days, lookupTables, orders, sessions, signUps, users, type SampleWindow } from './generate'
import { SampleSql } from './sql'
import { EVENT_COLUMNS, USER_COLUMNS } from './plan'
import { writeEvents, writeProfiles } from './write'

const TEMP_TABLES = ['s_platforms', 's_devices', 's_cities', 's_channels', 's_hours', 's_days', 's_users', 's_sessions', 's_orders']

export interface SampleLoad {
  events: number
  profiles: number
  /** The events that occurred, each with the platforms it came from. */
  occurred: Map<string, Set<string>>
}

/**
 * Generates the sample and writes it in one transaction: columns, distinct ids, events and
 * profiles, and `beforeCommit` (the job's outcome) last. A failure or an interrupt rolls all of it
 * back. `step` is called between statements
 * with the phase that follows (a cancelled job stops there): reading while users, sessions and
 * orders are drawn, checking while the events are written (the long part, `usersPerWrite` users
 * a statement), writing for the rest.
 */
export async function loadSample(
  conn: Warehouse,
  dialect: Dialect,
  w: SampleWindow,
  types: { event: Map<string, DataType>; user: Map<string, DataType> },
  step: (phase: Phase) => void | Promise<void>,
  beforeCommit: (load: SampleLoad) => Promise<void>,
  usersPerWrite: number,
): Promise<SampleLoad> {
  const s = new SampleSql(dialect, w.seed)
  const bulk = dialect.bulkWrite()
  try {
    return await conn.transaction(async () => {
      await step('reading')
      await lookupTables(conn, s)
      await days(conn, s, w)
      await step('reading')
      await users(conn, s, w)
      await step('reading')
      await ensureUserIds(conn)
      await conn.storedRowsFor?.('SELECT xwho FROM s_users', null)
      await assignDistinctIds(conn, 's_users')
      await conn.run(dialect.tempTableAs('s_users', 'SELECT s.*, i.distinct_id FROM s_users s JOIN user_ids i USING (xwho)'))
      await step('reading')
      await sessions(conn, s, w)
      await signUps(conn, s)
      await step('reading')
      await orders(conn, s)

      await step('checking')
      // a column appears with its data, typed as the plan says (the sample's own type when new)
      const eventColumns = await propertyColumns(conn, 'event_vd')
      const profileColumns = await propertyColumns(conn, 'profile_vd')
      await addColumns(conn, 'event_vd', EVENT_COLUMNS.filter((p) => !eventColumns.has(p.id)).map((p) => ({ id: p.id, dataType: types.event.get(p.id) ?? p.dataType })))
      await addColumns(conn, 'profile_vd', USER_COLUMNS.filter((p) => !profileColumns.has(p.id)).map((p) => ({ id: p.id, dataType: types.user.get(p.id) ?? p.dataType })))
      // the lock keeps other writers of this database out until the settings are reset
      for (const sql of bulk.before) await conn.run(sql)
      const events = await writeEvents(conn, s, usersPerWrite, async () => step('checking'))
      await step('writing')
      const profiles = await writeProfiles(conn, s)
      const load = { events, profiles, occurred: await occurredEvents(conn) }
      await beforeCommit(load)
      return load
    })
  } finally {
    for (const sql of bulk.after) await conn.run(sql).catch(() => undefined)
    for (const t of TEMP_TABLES) await conn.run(dialect.dropTempTable(t)).catch(() => undefined)
  }
}

/** Which events occurred on which platforms, read from the sessions rather than the events. */
async function occurredEvents(conn: Warehouse): Promise<Map<string, Set<string>>> {
  const rows = (await conn.query(`SELECT u.platform,
      ${['s.sign_up', 's.search', 's.n_views > 0', 'o.sid IS NOT NULL', 'o.checkout', 'o.pay'].map((c, i) => `max(CASE WHEN ${c} THEN 1 ELSE 0 END) AS e${i}`).join(', ')}
    FROM s_sessions s JOIN s_users u USING (uid) LEFT JOIN s_orders o USING (sid) GROUP BY u.platform`))
  const occurred = new Map<string, Set<string>>()
  const add = (event: string, platform: string) => occurred.set(event, (occurred.get(event) ?? new Set<string>()).add(platform))
  for (const r of rows) {
    const platform = String(r.platform)
    add(platform === 'Web' ? '$pageview' : '$startup', platform)
    add('$end', platform)
    for (const [i, event] of ['sign_up', 'search', 'view_product', 'add_to_cart', 'checkout', 'pay'].entries()) if (Number(r[`e${i}`]) === 1) add(event, platform)
  }
  return occurred
}
