import type { Warehouse } from '../../warehouse'
import { propertyColumns } from '../schema/columns'
import { assignDistinctIds } from './identity'
import { eventCol, type PropertyPlan } from './norm'

/**
 * Identity merge (`$alias`): the SDKs' alias(loginId) sends `$alias` with `xwho` = the login id and
 * `$original_id` = the anonymous id; from then on both are one user, one distinct_id, in events
 * before and after the alias. `user_ids` maps every xwho to its user's distinct_id (several xwho
 * may share one); `user_aliases` keeps the merges that were accepted. Rules, in xwhen order:
 * - an `$original_id` equal to xwho, or two ids already of one user: nothing to do;
 * - an anonymous id merges into one login id: a later alias of it to another user is ignored
 *   (the first wins) and reported;
 * - a login id (one that anonymous ids were merged into) is never merged as someone's anonymous
 *   id: that would join two accounts' histories; ignored and reported;
 * - an `$alias` without `$original_id` changes nothing and is reported.
 * The anonymous id is always alone in its user when it merges (it is neither merged nor a login),
 * so a merge moves one xwho: the anonymous id to the login's distinct_id, or, when the login id is
 * new in this load, the login id to the anonymous id's (its events are not written yet: nothing to
 * rewrite). Only an anonymous id that had ids before this load has stored rows to rewrite: its
 * events (an UPDATE of event_vd by its old distinct_id) and its profile, merged into the login's
 * (the login's values win, the anonymous one fills gaps) and then deleted, so that the user is
 * counted once. Aliases run after the load's ids are assigned and before its rows are written, so
 * an import with `$alias` in the middle ends as the same users as the live stream.
 */

/** An alias that did not merge, and why (the record's row, the anonymous id). */
export interface AliasProblem {
  row: number
  property: string
  value: string | null
  reason: string
}

export interface AliasOutcome {
  merged: number
  ignored: number
  /** The first ignored aliases, with reasons. */
  problems: AliasProblem[]
  /** Stored rows were rewritten: see settleMerges. */
  rewrote: boolean
}

const PROBLEM_SAMPLE = 100
const ALIAS = "n.xwhat = '$alias' AND NOT n.is_profile"

/** The anonymous id of an alias record in `norm` (NULL when absent or empty). */
function originalSql(conn: Warehouse, events: PropertyPlan[]): string {
  const d = conn.dialect
  return events.some((p) => p.id === '$original_id') ? `NULLIF(${d.cast(`n.${eventCol('$original_id')}`, 'string')}, '')` : d.cast('NULL', 'string')
}

/**
 * The users a load of `norm` names (a relation with an `xwho` column): its records' ids and the
 * anonymous ids its aliases merge (what a loading warehouse copies in first: Warehouse.storedRowsFor).
 */
export function namedUsers(conn: Warehouse, events: PropertyPlan[], valid: string): string {
  return `SELECT xwho FROM norm n WHERE ${valid} UNION ALL SELECT ${originalSql(conn, events)} AS xwho FROM norm n WHERE ${valid} AND ${ALIAS}`
}

async function rows(conn: Warehouse, sql: string): Promise<Record<string, unknown>[]> {
  return (await conn.query(sql))
}

interface Move {
  xwho: string
  from: number
  to: number
  /** The id had rows stored before this load: its events and profile are rewritten. */
  rewrite: boolean
}

/**
 * Gives distinct ids to the users of the valid records of `norm` (and to the anonymous ids their
 * aliases name), then applies the aliases, before the load writes its rows (inside its transaction).
 */
export async function identifyUsers(conn: Warehouse, events: PropertyPlan[], valid: string): Promise<AliasOutcome> {
  const original = originalSql(conn, events)
  const before = Number((await rows(conn, 'SELECT COALESCE(max(distinct_id), 0) AS m FROM user_ids'))[0].m)
  const outcome: AliasOutcome = { merged: 0, ignored: 0, problems: [], rewrote: false }
  await conn.run(conn.dialect.tempTableAs('alias_in', `SELECT n._row, n.xwho, ${original} AS original, n.xwhen FROM norm n WHERE ${valid} AND ${ALIAS}`))
  await assignDistinctIds(conn, `(SELECT xwho FROM norm n WHERE ${valid} UNION ALL SELECT original FROM alias_in WHERE original IS NOT NULL) n`)
  const aliases = await rows(conn, 'SELECT _row, xwho, original FROM alias_in ORDER BY xwhen, _row')
  if (aliases.length > 0) await applyAliases(conn, aliases, before, outcome)
  return outcome
}

async function applyAliases(conn: Warehouse, aliases: Record<string, unknown>[], before: number, outcome: AliasOutcome): Promise<void> {
  // the state of every id the aliases name: its user, whether it was merged, whether it is a login
  const named = '(SELECT xwho FROM alias_in UNION SELECT original FROM alias_in WHERE original IS NOT NULL)'
  const idOf = new Map<string, number>()
  for (const r of await rows(conn, `SELECT u.xwho, u.distinct_id FROM user_ids u JOIN ${named} i(id) ON i.id = u.xwho`)) idOf.set(String(r.xwho), Number(r.distinct_id))
  const mergedInto = new Map<string, string>()
  const isLogin = new Set<string>()
  for (const r of await rows(conn, `SELECT original_id, login_id FROM user_aliases WHERE original_id IN ${named} OR login_id IN ${named}`)) {
    mergedInto.set(String(r.original_id), String(r.login_id))
    isLogin.add(String(r.login_id))
  }
  const moves: Move[] = []
  const accepted: number[] = []
  const ignore = (row: number, value: string | null, reason: string) => {
    outcome.ignored++
    if (outcome.problems.length < PROBLEM_SAMPLE) outcome.problems.push({ row, property: '$original_id', value, reason })
  }
  for (const a of aliases) {
    const row = Number(a._row)
    const login = String(a.xwho)
    if (a.original === null) {
      ignore(row, null, 'is missing: an $alias names the anonymous id to merge into its xwho; nothing was merged')
      continue
    }
    const anon = String(a.original)
    const from = idOf.get(anon)!
    const to = idOf.get(login)!
    if (from === to) continue
    if (mergedInto.has(anon)) {
      ignore(row, anon, `was merged into ${mergedInto.get(anon)} before: an anonymous id merges into one login id (the first alias wins); this alias to ${login} was ignored`)
      continue
    }
    if (isLogin.has(anon)) {
      ignore(row, anon, `is a login id (anonymous ids were merged into it): two login ids are not merged; this alias to ${login} was ignored`)
      continue
    }
    if (to > before && !isLogin.has(login) && !mergedInto.has(login)) {
      // a login id new in this load joins the anonymous id's user: no stored row changes
      moves.push({ xwho: login, from: to, to: from, rewrite: false })
      idOf.set(login, from)
    } else {
      moves.push({ xwho: anon, from, to, rewrite: from <= before })
      idOf.set(anon, to)
    }
    mergedInto.set(anon, login)
    isLogin.add(login)
    accepted.push(row)
  }
  outcome.merged = accepted.length
  outcome.rewrote = moves.some((m) => m.rewrite)
  if (accepted.length > 0) await merge(conn, moves, accepted)
}

/**
 * After the commit of a load that rewrote stored rows: until a checkpoint folds the updates into
 * the table, scans read them through DuckDB's update records (a funnel on 1M events with 20% of
 * users just merged ran about 70% slower, 20% after a CHECKPOINT, which took about 50 ms). A
 * checkpoint is refused while another connection has a transaction open; DuckDB's own automatic
 * checkpoint comes later then.
 */
export async function settleMerges(conn: Warehouse): Promise<void> {
  await conn.run(conn.dialect.compact()).catch(() => undefined)
}

/** Writes the merges: user_ids, the stored rows of the ids that move, and user_aliases. */
async function merge(conn: Warehouse, moves: Move[], accepted: number[]): Promise<void> {
  // several anonymous ids can merge into one user in a load: their profiles merge one round each
  const rounds = new Map<number, number>()
  const d = conn.dialect
  await conn.run(d.tempTable('alias_moves', [['xwho', 'string'], ['from_id', 'bigint'], ['to_id', 'bigint'], ['rewrite', 'boolean'], ['round', 'integer']]))
  const rows = moves.map((m) => {
    const round = m.rewrite ? (rounds.get(m.to) ?? 0) + 1 : 0
    if (m.rewrite) rounds.set(m.to, round)
    return [m.xwho, m.from, m.to, m.rewrite, round]
  })
  await conn.appendRows('alias_moves', ['string', 'bigint', 'bigint', 'boolean', 'integer'], rows, { temp: true })
  await conn.run(d.tempTable('alias_ok', [['_row', 'bigint']]))
  await conn.appendRows('alias_ok', ['bigint'], accepted.map((row) => [row]), { temp: true })
  await conn.run('INSERT INTO user_aliases SELECT a.original, a.xwho, a.xwhen FROM alias_in a JOIN alias_ok USING (_row) ORDER BY a.xwhen, a._row')
  await conn.run('UPDATE user_ids SET distinct_id = m.to_id FROM alias_moves m WHERE user_ids.xwho = m.xwho')
  // a merged user's profile is named by its login id (the one of its ids that is not merged)
  await conn.run(`UPDATE profile_vd SET xwho = r.xwho
    FROM (SELECT distinct_id, xwho FROM user_ids WHERE distinct_id IN (SELECT to_id FROM alias_moves) AND xwho NOT IN (SELECT original_id FROM user_aliases)) r
    WHERE profile_vd.distinct_id = r.distinct_id AND profile_vd.xwho <> r.xwho`)
  if (moves.some((m) => m.rewrite)) await rewrite(conn, rounds)
}

/** The stored rows of the anonymous ids that move: events take the login's id, profiles merge into the login's. */
async function rewrite(conn: Warehouse, rounds: Map<number, number>): Promise<void> {
  await conn.run('UPDATE event_vd SET distinct_id = m.to_id FROM alias_moves m WHERE m.rewrite AND event_vd.distinct_id = m.from_id')
  const columns = [...(await propertyColumns(conn, 'profile_vd')).keys()].map((id) => conn.dialect.ident(id))
  const last = Math.max(...rounds.values())
  for (let round = 1; round <= last; round++) {
    const moving = `(SELECT from_id, to_id FROM alias_moves WHERE rewrite AND round = ${round})`
    if (columns.length > 0) {
      // "alias:to" cannot be a property's column name (no property id holds a colon)
      await conn.run(`UPDATE profile_vd SET ${columns.map((c) => `${c} = COALESCE(profile_vd.${c}, a.${c})`).join(', ')}
        FROM (SELECT m.to_id AS "alias:to", p.* FROM profile_vd p JOIN ${moving} m ON p.distinct_id = m.from_id) a WHERE profile_vd.distinct_id = a."alias:to"`)
    }
    await conn.run(`DELETE FROM profile_vd WHERE distinct_id IN (SELECT m.from_id FROM ${moving} m WHERE EXISTS (SELECT 1 FROM profile_vd t WHERE t.distinct_id = m.to_id))`)
    await conn.run(`UPDATE profile_vd SET distinct_id = m.to_id, xwho = u.xwho FROM ${moving} m, user_ids u
      WHERE profile_vd.distinct_id = m.from_id AND u.distinct_id = m.to_id AND u.xwho NOT IN (SELECT original_id FROM user_aliases)`)
  }
}
