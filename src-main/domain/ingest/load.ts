import type { Warehouse } from '../../warehouse'
import type { Answer } from '../../../src-shared/contract'
import { AppError } from '../errors'
import { testPause } from '../../testPause'
import { addColumns } from '../schema/columns'
import { emptyReported, type Reported } from '../schema/plan'
import { column, EVENT_BASE_COLUMNS, PROFILE_BASE_COLUMNS } from '../schema/types'
import { identifyUsers, namedUsers, settleMerges, type AliasOutcome, type AliasProblem } from './alias'
import { ensureUserIds } from './identity'
import { eventCol, userCol, type PropertyPlan } from './norm'
import { applyProfiles } from './profiles'
import { EVENT_ORDER, insertionOrder, unordered } from './sql'

/** A record that did not load, and why (line/row, property, value): as import jobs answer it. */
export type Rejection = Answer<'/uba/api/import/jobs/{id}'>['rejected'][number]

export interface LoadOptions {
  onError: 'abort' | 'skip'
  /**
   * Called just before the commit with what the load wrote, on its connection inside its
   * transaction: throwing there rolls the whole load back (a cancel); a job seals its outcome there.
   */
  beforeCommit?: (result: LoadResult) => void | Promise<void>
  /** Leave out records equal to one already stored (user, event, time and every property they carry). */
  dedupe: boolean
  /**
   * The caller has begun the transaction and commits it (the collector writes several uploads in
   * one, uploadBatches.ts): no BEGIN, COMMIT or ROLLBACK here, and merges to settle are left to it
   * (`mergesToSettle`).
   */
  inOpenTransaction?: boolean
}

export interface LoadResult {
  rowsRead: number
  rowsRejected: number
  /** Events written to event_vd. */
  eventsWritten: number
  /** Profile rows created, changed or deleted. */
  profilesChanged: number
  /** `$debug` 1 records: checked, not stored. */
  debugSkipped: number
  duplicatesSkipped: number
  rejected: Rejection[]
  reported: Reported
  /** `$alias` records that merged an anonymous id into a login id (alias.ts). */
  aliasesMerged: number
  /** `$alias` records stored but ignored by the merge rules, and the first of them with reasons. */
  aliasesIgnored: number
  aliasProblems: AliasProblem[]
  /** With inOpenTransaction: the load rewrote stored rows for merges, to settle after the commit (settleMerges). */
  mergesToSettle?: boolean
}

/** Thrown when onError is abort and records were rejected: the job fails, nothing is written. */
export class RejectedRecords extends AppError {
  constructor(readonly result: LoadResult) {
    super(400, 400, `${result.rowsRejected} of ${result.rowsRead} records do not fit (first: row ${result.rejected[0]?.row}, ${result.rejected[0]?.property} ${result.rejected[0]?.reason}); nothing was imported`, ['file'])
  }
}

export const REJECTED_SAMPLE = 100
const VALID = 'n._problem IS NULL AND NOT n.debug'

async function one(conn: Warehouse, sql: string): Promise<Record<string, unknown>> {
  return (await conn.query(sql))[0] ?? {}
}

/**
 * One pass over `norm` for everything the load reports: counts, which properties valid records
 * carry, and per event its platforms. Grouped by the record's state instead of a FILTER per count,
 * which costs a pass of its own per count (a file of wide records has hundreds).
 */
async function survey(conn: Warehouse, events: PropertyPlan[], users: PropertyPlan[]) {
  const cols = [...events.map((p) => eventCol(p.id)), ...users.map((p) => userCol(p.id))]
  // the SDK of each record (its $lib, an event or a user property as the record is) for the project's sdkBack
  const libCols = [...events.filter((p) => p.id === '$lib').map((p) => eventCol(p.id)), ...users.filter((p) => p.id === '$lib').map((p) => userCol(p.id))]
  const { dialect } = conn
  const lib = libCols.length > 0 ? dialect.cast(`COALESCE(${libCols.map((c) => `n.${c}`).join(', ')})`, 'string') : dialect.nullOf('string')
  const groups = (await conn.query(`SELECT CASE WHEN n._problem IS NOT NULL THEN 'rejected' WHEN n.debug THEN 'debug' ELSE 'valid' END AS state,
      n.is_profile, n.xwhat, count(*) AS n, ${dialect.collectDistinct('n.platform', 'n.platform IS NOT NULL')} AS platforms,
      ${dialect.collectDistinct(lib, `${lib} IS NOT NULL`)} AS libs
      ${cols.map((c, i) => `, count(${c}) AS "c${i}"`).join('')}
      FROM norm n ${dialect.groupByAll(['state', 'n.is_profile', 'n.xwhat'])}`))
  const count = (state: string) => groups.filter((g) => g.state === state).reduce((sum, g) => sum + Number(g.n), 0)
  const valid = (profile: boolean) => groups.filter((g) => g.state === 'valid' && g.is_profile === profile)
  const carried = (profile: boolean, i: number) => valid(profile).some((g) => Number(g[`c${i}`]) > 0)
  const carriedEvents = events.filter((_, i) => carried(false, i))
  const carriedUsers = users.filter((_, i) => carried(true, events.length + i))
  const reported = emptyReported()
  for (const g of valid(false)) {
    reported.events.set(String(g.xwhat), {
      platforms: new Set((g.platforms as string[] | null) ?? []),
      properties: new Set(events.filter((_, i) => Number(g[`c${i}`]) > 0).map((p) => p.id)),
    })
  }
  for (const g of [...valid(false), ...valid(true)]) for (const l of (g.libs as string[] | null) ?? []) reported.libs.add(l)
  for (const p of carriedEvents) reported.eventProperties.set(p.id, p.type)
  for (const p of carriedUsers) reported.userProperties.set(p.id, p.type)
  const rejected = (await conn.query(`SELECT _row, _problem.property AS property, _problem.value AS value, _problem.reason AS reason
      FROM norm WHERE _problem IS NOT NULL ORDER BY _row LIMIT ${REJECTED_SAMPLE}`))
  return {
    total: groups.reduce((sum, g) => sum + Number(g.n), 0),
    rejected: count('rejected'),
    debug: count('debug'),
    profiles: valid(true).reduce((sum, g) => sum + Number(g.n), 0),
    events: carriedEvents,
    users: carriedUsers,
    reported,
    sample: rejected.map((r) => ({ row: Number(r._row), property: String(r.property), value: r.value === null ? null : String(r.value), reason: String(r.reason) })),
  }
}

/**
 * The property columns of both tables in one catalog read: information_schema.columns is a view
 * over every table, and read twice it cost a collector upload of 50 records about a tenth of its time.
 */
async function propertyColumnNames(conn: Warehouse): Promise<{ eventColumns: Set<string>; profileColumns: Set<string> }> {
  const rows = await conn.rows(conn.dialect.columnsOfTables(['event_vd', 'profile_vd']))
  const eventColumns = new Set<string>()
  const profileColumns = new Set<string>()
  for (const [table, name] of rows) {
    const isEvent = table === 'event_vd'
    const base: readonly string[] = isEvent ? EVENT_BASE_COLUMNS : PROFILE_BASE_COLUMNS
    if (!base.includes(String(name))) (isEvent ? eventColumns : profileColumns).add(String(name))
  }
  return { eventColumns, profileColumns }
}

/**
 * Writes the valid records of `norm` into the warehouse in one transaction: new columns, new
 * distinct ids, events, profile operations. Any failure (or an interrupt) rolls all of it back.
 */
export async function loadNorm(conn: Warehouse, events: PropertyPlan[], users: PropertyPlan[], unsetIds: string[], options: LoadOptions): Promise<LoadResult> {
  const s = await survey(conn, events, users)
  const result: LoadResult = {
    rowsRead: s.total,
    rowsRejected: s.rejected,
    eventsWritten: 0,
    profilesChanged: 0,
    debugSkipped: s.debug,
    duplicatesSkipped: 0,
    rejected: s.sample,
    reported: emptyReported(),
    aliasesMerged: 0,
    aliasesIgnored: 0,
    aliasProblems: [],
  }
  if (s.rejected > 0 && options.onError === 'abort') throw new RejectedRecords(result)

  const own = !options.inOpenTransaction
  const write = async (): Promise<AliasOutcome> => {
    // a ClickHouse project's load runs on a local DuckDB: the stored rows it reads are copied in first
    await conn.storedRowsFor?.(namedUsers(conn, s.events, VALID), options.dedupe ? `SELECT ds FROM norm n WHERE ${VALID} AND NOT n.is_profile` : null)
    // a column appears with its first data, known property or new
    const { eventColumns, profileColumns } = await propertyColumnNames(conn)
    await addColumns(conn, 'event_vd', s.events.filter((p) => !eventColumns.has(p.id)).map((p) => ({ id: p.id, dataType: p.type })))
    await addColumns(conn, 'profile_vd', s.users.filter((p) => !profileColumns.has(p.id)).map((p) => ({ id: p.id, dataType: p.type })))
    await ensureUserIds(conn)
    // ids, then the load's $alias merges, before its rows are written under those ids
    const aliases = await unordered(conn, () => identifyUsers(conn, s.events, VALID))
    Object.assign(result, { aliasesMerged: aliases.merged, aliasesIgnored: aliases.ignored, aliasProblems: aliases.problems })

    const cols = s.events.map((p) => `${eventCol(p.id)} AS ${column(p.id)}`)
    const valid = `SELECT n.xwho, n.xwhat, n.xwhen, n.ds ${cols.map((c) => `, ${c}`).join('')} FROM norm n WHERE ${VALID} AND NOT n.is_profile`
    const matches = ['xwho', 'xwhat', 'xwhen', ...s.events.map((p) => column(p.id))].map((c) => `e.${c} IS NOT DISTINCT FROM v.${c}`).join(' AND ')
    const candidates = options.dedupe ? `SELECT DISTINCT * FROM (${valid})` : valid
    const notStored = options.dedupe ? `WHERE NOT EXISTS (SELECT 1 FROM event_vd e WHERE ${matches})` : ''
    // stored by user, then time (EVENT_ORDER), the order kept as written
    const inserted = await insertionOrder(conn, true, () => conn.run(`${conn.dialect.insertByName('event_vd')}
      SELECT u.distinct_id, v.* FROM (${candidates}) v JOIN user_ids u USING (xwho) ${notStored} ORDER BY ${EVENT_ORDER}`))
    result.eventsWritten = inserted
    if (options.dedupe) {
      const candidates = await one(conn, `SELECT count(*) AS n FROM norm n WHERE ${VALID} AND NOT n.is_profile`)
      result.duplicatesSkipped = Number(candidates.n) - result.eventsWritten
    }
    // a file of events only has no profile operations to order
    if (s.profiles > 0) result.profilesChanged = await applyProfiles(conn, s.users, unsetIds)
    result.reported = s.reported
    await options.beforeCommit?.(result)
    if (own) await testPause('before-commit', 'load')
    return aliases
  }
  if (!own) {
    result.mergesToSettle = (await write()).rewrote
    return result
  }
  const aliases = await conn.transaction(write)
  if (aliases.rewrote) await settleMerges(conn)
  return result
}
