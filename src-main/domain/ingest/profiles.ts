import type { Warehouse } from '../../warehouse'
import { USERS } from './identity'
import { unsetCol, userCol, type PropertyPlan } from './norm'
import { literal } from './sql'

/**
 * Applies profile operations to profile_vd, set-based. A user's operations run in time order; to
 * keep that order without a row-by-row loop, each user's records are cut into runs of the same
 * operation ("levels"), and level k of every user is applied before level k + 1. Within a run:
 * set keeps the last value, set_once the first, increment sums, append concatenates in order,
 * unset clears, delete removes the row. A user's operations are those of all its ids (merged by
 * `$alias`): runs and rows go by distinct_id.
 */
export async function applyProfiles(conn: Warehouse, props: PropertyPlan[], unsetIds: string[]): Promise<number> {
  const d = conn.dialect
  const column = (id: string) => d.ident(id)
  await conn.run(d.tempTableAs('prof', `SELECT *, sum(CASE WHEN op IS DISTINCT FROM prev_op THEN 1 ELSE 0 END) OVER (PARTITION BY distinct_id ORDER BY xwhen, _row) AS level
    FROM (SELECT n.*, u.distinct_id, lag(op) OVER (PARTITION BY u.distinct_id ORDER BY n.xwhen, n._row) AS prev_op
          FROM norm n JOIN user_ids u USING (xwho)
          WHERE n.is_profile AND n._problem IS NULL AND NOT n.debug)`))
  const levels = (await conn.rows('SELECT DISTINCT level, op FROM prof ORDER BY level, op')).map((r) => ({ level: Number(r[0]), op: String(r[1]) }))
  let changed = 0
  for (const { level, op } of levels) {
    const batch = `(SELECT * FROM prof WHERE level = ${level} AND op = ${literal(op)})`
    if (op === '$profile_delete') {
      changed += await conn.run(`DELETE FROM profile_vd WHERE distinct_id IN (SELECT distinct_id FROM ${batch})`)
      continue
    }
    if (op === '$profile_unset') {
      if (unsetIds.length === 0) continue
      const aggs = unsetIds.map((id) => `${d.anyTrue(unsetCol(id))} AS ${unsetCol(id)}`).join(', ')
      const sets = unsetIds.map((id) => `${column(id)} = CASE WHEN a.${unsetCol(id)} THEN NULL ELSE profile_vd.${column(id)} END`).join(', ')
      changed += await conn.run(`UPDATE profile_vd SET ${sets} FROM (SELECT distinct_id, ${aggs} FROM ${batch} GROUP BY distinct_id) a WHERE profile_vd.distinct_id = a.distinct_id`)
      continue
    }
    // the value operations create the user's row when there is none, named by its login id
    await conn.run(`INSERT INTO profile_vd (distinct_id, xwho)
      SELECT r.distinct_id, r.xwho FROM ${USERS} r WHERE r.distinct_id IN (SELECT distinct_id FROM ${batch})
        AND NOT EXISTS (SELECT 1 FROM profile_vd p WHERE p.distinct_id = r.distinct_id)`)
    const usable = props.filter((p) => (op === '$profile_increment' ? p.type === 'number' : op === '$profile_append' ? p.type === 'array<string>' : true))
    if (usable.length === 0) continue
    const agg = (p: PropertyPlan) => {
      const v = userCol(p.id)
      if (op === '$profile_set') return `${d.lastPresent(v, ['xwhen', '_row'])} AS ${v}`
      if (op === '$profile_set_once') return `${d.firstPresent(v, ['xwhen', '_row'])} AS ${v}`
      if (op === '$profile_increment') return `sum(${v}) AS ${v}`
      return `${d.joinListsInOrder(v, ['xwhen', '_row'])} AS ${v}`
    }
    const set = (p: PropertyPlan) => {
      const v = `a.${userCol(p.id)}`
      const cur = `profile_vd.${column(p.id)}`
      if (op === '$profile_set') return `${column(p.id)} = COALESCE(${v}, ${cur})`
      if (op === '$profile_set_once') return `${column(p.id)} = COALESCE(${cur}, ${v})`
      if (op === '$profile_increment') return `${column(p.id)} = CASE WHEN ${v} IS NULL THEN ${cur} ELSE COALESCE(${cur}, 0) + ${v} END`
      return `${column(p.id)} = CASE WHEN ${v} IS NULL OR ${d.length(v)} = 0 THEN ${cur} ELSE ${d.appendList(`COALESCE(${cur}, ${d.emptyList()})`, v)} END`
    }
    const result = await conn.run(`UPDATE profile_vd SET ${usable.map(set).join(', ')}
      FROM (SELECT distinct_id, ${usable.map(agg).join(', ')} FROM ${batch} GROUP BY distinct_id) a
      WHERE profile_vd.distinct_id = a.distinct_id`)
    changed += result
  }
  return changed
}
