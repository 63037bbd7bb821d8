import type { Warehouse } from '../../warehouse'
import type { Dialect } from '../../warehouse/dialect'
import type { MetaDb } from '../../store/meta'
import type { Rejection } from './load'

/**
 * The ingestion problem log of a project: what the collector refused (a record without a usable
 * identity, an upload while the data stream is stopped) or left out of a stored record (a value
 * that does not fit). The SDKs read none of the collector's answer, so this log is where a
 * developer sees it. Counts per problem are never cut; examples are, to the newest EXAMPLES_KEPT.
 */

export type ProblemKind = 'refused' | 'dropped' | 'upload'

/** Examples kept per project, newest first. */
export const EXAMPLES_KEPT = 1000
/** Examples taken from one upload per problem: a batch of the same mistake does not flush the others out. */
const EXAMPLES_PER_UPLOAD = 10
/** Characters of a record kept in an example. */
export const EXCERPT_CHARS = 500
export const STREAM_STOPPED = 'data stream not started: the whole upload was refused (503)'

export interface ProblemCount {
  kind: ProblemKind
  property: string
  reason: string
  /** Records (uploads, for kind `upload`) with this problem. */
  count: number
  /** Records concerned: for `upload`, the records the refused uploads held; else `count`. */
  records: number
  lastTime: number
}

export interface ProblemExample {
  time: number
  kind: 'refused' | 'dropped'
  property: string
  value: string | null
  reason: string
  /** The SDK that sent it (`$lib`, `$lib_version` of the record), when it says. */
  lib: string | null
  libVersion: string | null
  /** The record as received, cut to EXCERPT_CHARS characters. */
  record: string
}

/** What one batch's `norm` holds of problems: counts in full, a few examples each, the dropped values. */
export interface BatchProblems {
  counts: { kind: 'refused' | 'dropped'; property: string; reason: string; count: number }[]
  examples: (Omit<ProblemExample, 'time'> & { row: number })[]
  valuesDropped: number
  /** The first dropped values, by record (its position in the batch). */
  dropped: Rejection[]
}

/** Every problem of norm: the refused records, and the notes of the stored ones (lenient norm). */
function allRows(d: Dialect): string {
  const of = (problem: string) => `${d.problemField(problem, 'property')} AS property, ${d.problemField(problem, 'value')} AS value, ${d.problemField(problem, 'reason')} AS reason`
  return `(SELECT _row, 'refused' AS kind, ${of('_problem')} FROM norm WHERE _problem IS NOT NULL
  UNION ALL
  SELECT _row, 'dropped', ${of('n')} FROM (SELECT _row, ${d.unnest('_notes')} AS n FROM norm WHERE _problem IS NULL))`
}

/** Reads the problems of a lenient `norm`, with the records they came from (`stage_records`). */
export async function batchProblems(conn: Warehouse, droppedSample = 20, rows?: { first: number; last: number }): Promise<BatchProblems> {
  // a group of uploads loaded as one (uploadGroups.ts) reads each upload's rows
  const d = conn.dialect
  const ALL = rows ? `(SELECT * FROM ${allRows(d)} WHERE _row BETWEEN ${rows.first} AND ${rows.last})` : allRows(d)
  const counts = await conn.query(`SELECT kind, property, reason, count(*) AS n FROM ${ALL} ${d.groupByAll(['kind', 'property', 'reason'])} ORDER BY kind, property, reason`)
  // the usual upload has no problem: one query, not three
  if (counts.length === 0) return { counts: [], examples: [], valuesDropped: 0, dropped: [] }
  const examples = (await conn.query(`SELECT p._row, p.kind, p.property, p.value, p.reason, left(s.line, ${EXCERPT_CHARS}) AS record,
      ${d.jsonMemberString('s.line', ['xcontext', '$lib'])} AS lib, ${d.jsonMemberString('s.line', ['xcontext', '$lib_version'])} AS lib_version
    FROM (SELECT *, row_number() OVER (PARTITION BY kind, property, reason ORDER BY _row) AS k FROM ${ALL}) p
    JOIN stage_records s ON ${d.storedOrder('s')} + 1 = p._row
    WHERE p.k <= ${EXAMPLES_PER_UPLOAD} ORDER BY p._row, p.kind, p.property`))
  const text = (v: unknown) => (v === null || v === undefined ? null : String(v))
  const typed = examples.map((e) => ({
    row: Number(e._row),
    kind: e.kind as 'refused' | 'dropped',
    property: String(e.property),
    value: text(e.value),
    reason: String(e.reason),
    lib: text(e.lib),
    libVersion: text(e.lib_version),
    record: String(e.record),
  }))
  const dropped = (await conn.query(`SELECT _row, property, value, reason FROM ${ALL} WHERE kind = 'dropped' ORDER BY _row, property LIMIT ${droppedSample}`))
  return {
    counts: counts.map((c) => ({ kind: c.kind as 'refused' | 'dropped', property: String(c.property), reason: String(c.reason), count: Number(c.n) })),
    examples: typed,
    valuesDropped: counts.filter((c) => c.kind === 'dropped').reduce((sum, c) => sum + Number(c.n), 0),
    dropped: dropped.map((d) => ({ row: Number(d._row), property: String(d.property), value: text(d.value), reason: String(d.reason) })),
  }
}

const ADD_COUNT = `INSERT INTO ingest_problem_counts (app_key, kind, property, reason, count, records, last_time) VALUES (?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (app_key, kind, property, reason) DO UPDATE SET count = count + excluded.count, records = records + excluded.records, last_time = excluded.last_time`

/** Adds a batch's problems to the project's log, and keeps its newest EXAMPLES_KEPT examples. */
export function logBatchProblems(meta: MetaDb, appKey: string, found: Pick<BatchProblems, 'counts' | 'examples'>, time = Date.now()): void {
  if (found.counts.length === 0) return
  const addCount = meta.prepare(ADD_COUNT)
  const addExample = meta.prepare(`INSERT INTO ingest_problems (app_key, time, kind, property, value, reason, lib, lib_version, record)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  meta.transaction(() => {
    for (const c of found.counts) addCount.run(appKey, c.kind, c.property, c.reason, c.count, c.count, time)
    for (const e of found.examples) addExample.run(appKey, time, e.kind, e.property, e.value, e.reason, e.lib, e.libVersion, e.record)
    meta.prepare(`DELETE FROM ingest_problems WHERE app_key = ? AND id <= (SELECT id FROM ingest_problems WHERE app_key = ? ORDER BY id DESC LIMIT 1 OFFSET ${EXAMPLES_KEPT})`).run(appKey, appKey)
  })()
}

/** Counts an upload refused whole because the project's data stream is stopped. */
export function logRefusedUpload(meta: MetaDb, appKey: string, records: number, time = Date.now()): void {
  meta.prepare(ADD_COUNT).run(appKey, 'upload', 'appid', STREAM_STOPPED, 1, records, time)
}

export interface ProblemLog {
  /** All problems counted (records refused, values left out, uploads refused). */
  total: number
  lastTime: number | null
  counts: ProblemCount[]
  examples: ProblemExample[]
}

/** The project's log: every count (the latest first) and the newest `limit` examples. */
export function problemLog(meta: MetaDb, appKey: string, limit: number): ProblemLog {
  const counts = meta.prepare(`SELECT kind, property, reason, count, records, last_time AS lastTime FROM ingest_problem_counts
    WHERE app_key = ? ORDER BY last_time DESC, kind, property, reason`).all(appKey) as ProblemCount[]
  const examples = meta.prepare(`SELECT time, kind, property, value, reason, lib, lib_version AS libVersion, record FROM ingest_problems
    WHERE app_key = ? ORDER BY id DESC LIMIT ?`).all(appKey, limit) as ProblemExample[]
  return {
    total: counts.reduce((sum, c) => sum + c.count, 0),
    lastTime: counts.length === 0 ? null : Math.max(...counts.map((c) => c.lastTime)),
    counts,
    examples,
  }
}

/** Empties the project's log (after the developer has seen and fixed what it showed). */
export function clearProblemLog(meta: MetaDb, appKey: string): void {
  meta.transaction(() => {
    meta.prepare('DELETE FROM ingest_problem_counts WHERE app_key = ?').run(appKey)
    meta.prepare('DELETE FROM ingest_problems WHERE app_key = ?').run(appKey)
  })()
}
