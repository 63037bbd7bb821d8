import type { AnalysisAnswer } from '../../../src-shared/contract'
import { UNKNOWN } from './breakdown'
import { dayOfDs, periodAfter } from '../time/calendar'
import { validateRetention, type RetentionRequest } from './retentionRequest'
import { bitmapMarksSql, countBitmaps } from './retentionBitmaps'
import { retentionSql, STATS_SQL, windowOf, type Cell, type RetentionWindow } from './retentionSql'
import type { AnalysisModule } from './runner'
import { factsSql, readFacts } from './userCounts'

/**
 * Retention (spec 4.10). For each period of the range, the users who did the initial event in it
 * (`totalPeople`); `retentionPeoples[k]` counts those of them who did the return event in period
 * +k (k = 0: the same period, at any time in it, before or after the initial event). Return events
 * after toDate count. `$ALL` de-duplicates users across periods: a user counts once in its
 * totalPeople, and at k when they returned at +k from any period where they did the initial event.
 * A cell whose period starts after the latest day with data is null: not observed yet, which is
 * not the same as nobody returning. Options (retentionRequest.ts): `onOrAfter` counts at k the users
 * back at +k or any later offset followed; `firstTime` keeps only each user's first-ever initial event.
 */

/** The answer, as its route schema describes it (schemas/analysis/retention.ts). */
export type RetentionResponse = AnalysisAnswer<'/uba/api/retentions/analyze'>
export type RetentionRow = RetentionResponse['rows'][number]

/** The label of the row of all users (and, with a breakdown, of all values). */
export const ALL = '$ALL'

/** "2024-01-08" -> "2024/01/08 00:00:00", the period row label (spec-notes). */
function periodLabel(day: string): string {
  return `${day.replaceAll('-', '/')} 00:00:00`
}

function rounded(value: number): number {
  return Math.round(value * 1e6) / 1e6
}

/** What a measure reads where nobody returned: sums and distinct counts are 0, the others have no value. */
function emptyMeasure(req: RetentionRequest): number | null {
  return req.measure?.aggregator === 'SUM' || req.measure?.aggregator === 'REMOVE_DUMPLICATE' ? 0 : null
}

function cellsOf(rows: Record<string, unknown>[]): Map<string, Cell> {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v))
  const cells = new Map<string, Cell>()
  for (const r of rows) {
    const cell: Cell = { s: num(r.s), d: r.d === null ? null : String(r.d), k: num(r.k), n: num(r.n) ?? 0, m: num(r.m) }
    cells.set(`${cell.s}|${cell.d}|${cell.k}`, cell)
  }
  return cells
}

/** Biggest first: totalPeople, then retained users at k = 0, 1, ...; unknown after known; then by label. */
function compareRows(a: RetentionRow, b: RetentionRow): number {
  if (a.totalPeople !== b.totalPeople) return b.totalPeople - a.totalPeople
  for (let k = 0; k < a.retentionPeoples.length; k++) {
    const diff = (b.retentionPeoples[k] ?? -1) - (a.retentionPeoples[k] ?? -1)
    if (diff !== 0) return diff
  }
  return Number(a.byValue === UNKNOWN) - Number(b.byValue === UNKNOWN) || a.byValue.localeCompare(b.byValue)
}

function shape(req: RetentionRequest, w: RetentionWindow, cells: Map<string, Cell>, lastDay: string | null): RetentionRow[] {
  const offsets = Array.from({ length: req.duration + 1 }, (_, k) => k)
  const observed = (start: string, k: number) => lastDay !== null && periodAfter(start, req.unit, k) <= lastDay
  const cell = (s: number | null, d: string | null, k: number | null) => cells.get(`${s}|${d}|${k}`)
  const measureAt = (c: Cell | undefined) => (c?.m === null || c?.m === undefined ? emptyMeasure(req) : rounded(c.m))
  const row = (byValue: string, start: string, s: number | null, d: string | null, totalPeople: number): RetentionRow => ({
    byValue,
    totalPeople,
    retentionPeoples: offsets.map((k) => (observed(start, k) ? (cell(s, d, k)?.n ?? 0) : null)),
    measures: req.measure ? offsets.map((k) => (observed(start, k) ? measureAt(cell(s, d, k)) : null)) : null,
  })
  const first = w.periods[0]
  const everyone = cell(null, null, null)?.n ?? 0
  const total = row(ALL, first, null, null, everyone)
  if (!req.breakdown) return [total, ...w.periods.map((start, s) => row(periodLabel(start), start, s, null, cell(s, null, null)?.n ?? 0))]

  // initial-event and user breakdowns list the values the starters had; a return-event breakdown,
  // the values the counted return events had, each row against all starters
  const byReturn = req.breakdown.side === 'return'
  const labels = new Set<string>()
  for (const c of cells.values()) if (c.d !== null && (byReturn || c.k === null)) labels.add(c.d)
  const rows = [...labels].map((d) => row(d, first, null, d, byReturn ? everyone : (cell(null, d, null)?.n ?? 0)))
  return [total, ...rows.sort(compareRows).slice(0, req.limit)]
}

export const retentionAnalysis: AnalysisModule<RetentionRequest, RetentionResponse> = {
  kind: 'retention',
  validate: validateRetention,

  async run(env, req) {
    const w = windowOf(req)
    const [stats] = await env.query(STATS_SQL)
    const lastDay = stats.last_ds === null ? null : dayOfDs(Number(stats.last_ds))
    const labels = req.breakdown ? readFacts((await env.query(factsSql([req.breakdown.by], env.dialect)))[0], [req.breakdown.by], env.dialect).labels[0] : null
    const p = env.params()
    const maxId = Number(stats.max_id ?? 0)
    const marks = bitmapMarksSql(env, req, w, maxId, labels, p)
    const cells = marks ? await countBitmaps(req, marks.bits, await env.query(marks.sql, p)) : cellsOf(await env.query(retentionSql(env, req, w, maxId, labels, p), p))
    return {
      byField: req.breakdown?.by.property.expression ?? null,
      rows: shape(req, w, cells, lastDay),
      samplingFactor: req.sampling,
    }
  },
}
