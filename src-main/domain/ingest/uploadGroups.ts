import type { Warehouse } from '../../warehouse'
import type { ProblemField } from '../../warehouse/parts/loads'
import type { DomainContext } from '../context'
import type { ProjectScope } from '../project/scope'
import { eventPropertyTypes, type Reported } from '../schema/plan'
import type { DataType } from '../schema/types'
import { ensureUserIds } from './identity'
import { normalize } from './importer'
import { inferJson } from './infer'
import { loadNorm, REJECTED_SAMPLE, type LoadOptions, type LoadResult } from './load'
import { propertyIdOf, RESERVED_IDS } from './norm'
import { batchProblems, type BatchProblems } from './problems'

/**
 * Several uploads of a batch (uploadBatches.ts) loaded as one: one staging, one check, one write,
 * where each upload loaded alone in a row costs about as much again as the commit it shares. Only
 * uploads for which that stores exactly what their loads one by one would store are grouped:
 * - events only: a profile operation or an `$alias` depends on the order of the loads (a set then
 *   an unset of two uploads; the merges), so such an upload loads alone;
 * - a property new to the project is brought by the group's first upload only, all its values of
 *   one type, and the later uploads' values of it are of that type too: the type inferred from the
 *   group is then the first upload's, and the new columns are added in the same order;
 * - new users get their distinct ids in arrival order (by upload, then xwho), as their loads would.
 * Each upload's counts and problems are read back from its rows.
 */

type NewTypes = Map<string, DataType>

/** An event record's xwhat that makes a record order-dependent (profile operations, `$alias`). */
const ORDERED = /profile|alias/i

/** The types of the properties an upload brings that `known` does not have; null when it must load alone. */
export function newPropertiesOf(texts: string[], known: (id: string) => boolean): NewTypes | null {
  const types: NewTypes = new Map()
  for (const text of texts) {
    let record: unknown
    try {
      record = JSON.parse(text)
    } catch {
      return null
    }
    if (typeof record !== 'object' || record === null) return null
    const { xwhat, xcontext } = record as { xwhat?: unknown; xcontext?: unknown }
    if (typeof xwhat !== 'string' || ORDERED.test(xwhat)) return null
    if (typeof xcontext !== 'object' || xcontext === null) continue
    for (const [key, value] of Object.entries(xcontext)) {
      const id = propertyIdOf(key)
      if (id === null || RESERVED_IDS.includes(id) || known(id)) continue
      const type = value === null ? null : inferJson([JSON.stringify(value)])
      if (type === null || (types.has(id) && types.get(id) !== type)) return null
      types.set(id, type)
    }
  }
  return types
}

/**
 * The uploads cut into runs to load together (indexes into `uploads`, in order). `pending`: what
 * earlier loads of the transaction brought.
 */
export function groupUploads(ctx: DomainContext, appKey: string, uploads: string[][], pending: Reported[]): number[][] {
  const plan = eventPropertyTypes(ctx.meta, appKey)
  const seen = new Set([...plan.keys(), ...pending.flatMap((r) => [...r.eventProperties.keys()])])
  const groups: number[][] = []
  let current: { members: number[]; types: NewTypes | null } | null = null
  uploads.forEach((texts, i) => {
    const types = newPropertiesOf(texts, (id) => seen.has(id))
    const joins = current?.types && types && [...types].every(([id, t]) => current!.types!.get(id) === t)
    if (current && joins) {
      current.members.push(i)
      return
    }
    // the closed group's first upload typed its new properties: later groups know them. Until it
    // closes they stay new, so that every member's values of them are checked against their type.
    for (const id of current?.types?.keys() ?? []) seen.add(id)
    current = { members: [i], types }
    groups.push(current.members)
  })
  return groups
}

export type UploadWritten = LoadResult & { found: BatchProblems }

/**
 * Loads `uploads` (two or more, grouped by groupUploads, staged together as `stage_records`) into
 * the open transaction as one load.
 * Resolves to each upload's own result (rows numbered within the upload) and the load's (for the
 * plan and the seal); throws if the rows do not add up, so that the caller loads them one by one.
 */
export async function loadGroup(ctx: DomainContext, scope: ProjectScope, conn: Warehouse, uploads: string[][], pending: Reported[], options: Pick<LoadOptions, 'beforeCommit'>): Promise<{ load: LoadResult; each: UploadWritten[] }> {
  const plan = await normalize(ctx, scope, conn, 'stage_records', { kind: 'events', mapping: {}, lenient: true, pending })
  const ranges: { i: number; first: number; last: number }[] = []
  let next = 1
  for (const [i, texts] of uploads.entries()) {
    ranges.push({ i, first: next, last: next + texts.length - 1 })
    next += texts.length
  }
  const d = conn.dialect
  await conn.run(d.tempTableAs('upload_ranges', `SELECT * FROM (VALUES ${ranges.map((r) => `(${r.i}, ${r.first}, ${r.last})`).join(', ')}) t(i, first_row, last_row)`))
  const rangeOf = 'JOIN upload_ranges u ON n._row BETWEEN u.first_row AND u.last_row'
  // new users numbered as the uploads' own loads would: by upload, then xwho (identity.ts)
  await ensureUserIds(conn)
  await conn.storedRowsFor?.('SELECT xwho FROM norm n WHERE n._problem IS NULL AND NOT n.debug', null)
  await conn.run(`INSERT INTO user_ids
    SELECT n.xwho, (SELECT COALESCE(max(distinct_id), 0) FROM user_ids) + row_number() OVER (ORDER BY min(u.i), n.xwho)
    FROM norm n ${rangeOf}
    WHERE n._problem IS NULL AND NOT n.debug AND NOT EXISTS (SELECT 1 FROM user_ids x WHERE x.xwho = n.xwho)
    GROUP BY n.xwho`)
  const load = await loadNorm(conn, plan.events, plan.users, plan.unsetIds, { onError: 'skip', dedupe: false, inOpenTransaction: true, beforeCommit: options.beforeCommit })
  const counts = await conn.query(`SELECT u.i, count(*) AS total, count(*) FILTER (WHERE n._problem IS NOT NULL) AS rejected,
      count(*) FILTER (WHERE n._problem IS NULL AND n.debug) AS debug, count(*) FILTER (WHERE n._problem IS NULL AND NOT n.debug AND NOT n.is_profile) AS events
    FROM norm n ${rangeOf} GROUP BY u.i`)
  const by = new Map(counts.map((c) => [Number(c.i), c]))
  const written = counts.reduce((sum, c) => sum + Number(c.events), 0)
  if (written !== load.eventsWritten || load.profilesChanged !== 0 || load.aliasesMerged + load.aliasesIgnored > 0) {
    throw new Error(`a group of uploads does not split: ${written} events counted, ${load.eventsWritten} written`)
  }
  const field = (f: ProblemField) => `${d.problemField('n._problem', f)} AS ${f}`
  const rejected = load.rowsRejected === 0 ? [] : await conn.query(`SELECT i, r, property, value, reason FROM (
      SELECT u.i, n._row, n._row - u.first_row + 1 AS r, ${field('property')}, ${field('value')}, ${field('reason')}, row_number() OVER (PARTITION BY u.i ORDER BY n._row) AS k
      FROM norm n ${rangeOf} WHERE n._problem IS NOT NULL) AS p WHERE k <= ${REJECTED_SAMPLE} ORDER BY _row`)
  const anyProblem = (await batchProblems(conn, 0)).counts.length > 0
  const each: UploadWritten[] = []
  for (const r of ranges) {
    const c = by.get(r.i)
    const found = anyProblem ? withinUpload(await batchProblems(conn, 20, { first: r.first, last: r.last }), r.first - 1) : { counts: [], examples: [], valuesDropped: 0, dropped: [] }
    each.push({
      ...load,
      rowsRead: Number(c?.total ?? 0),
      rowsRejected: Number(c?.rejected ?? 0),
      debugSkipped: Number(c?.debug ?? 0),
      eventsWritten: Number(c?.events ?? 0),
      rejected: rejected.filter((x) => Number(x.i) === r.i).map((x) => ({ row: Number(x.r), property: String(x.property), value: x.value === null ? null : String(x.value), reason: String(x.reason) })),
      found,
    })
  }
  return { load, each }
}

/** A range's problems with their rows numbered within its upload. */
function withinUpload(found: BatchProblems, offset: number): BatchProblems {
  return { ...found, examples: found.examples.map((e) => ({ ...e, row: e.row - offset })), dropped: found.dropped.map((d) => ({ ...d, row: d.row - offset })) }
}
