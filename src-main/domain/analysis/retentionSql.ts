import { breakdownSql } from './breakdown'
import { addDays, dsOf, periodAfter, series } from '../time/calendar'
import { calendarSql } from './calendarSql'
import { eventSql } from '../expr/eventRefs'
import { filterSql, needsProfile } from '../expr/filterSql'
import { profileReads } from './profileReads'
import { crowdFilter, samplingSql } from './request'
import type { MeasureAggregator, RetentionRequest } from './retentionRequest'
import type { AnalysisEnv } from './runner'
import type { Dialect, SqlParams } from '../../warehouse/dialect'
import type { RetentionCellAt, RetentionShape } from '../../warehouse/parts/retention'

/**
 * The SQL of retention. One scan of event_vd marks each event row as an initial event (`f`, only
 * inside fromDate..toDate) and/or a return event (`r`, any day of the periods followed), with its
 * period index. Then, without a measure, each period's users become bitmaps over `distinct_id`
 * (cut in chunks), and a cell (period s, offset k) is `|F(s) & R(s + k)|`: no pairs of events are
 * formed, and `$ALL` is the popcount of the OR of the cells at k (where the engine hands bitmaps
 * over as bytes, DuckDB, JS counts them: retentionBitmaps.ts). A breakdown splits the bitmaps of
 * its side by label, while the labels are few enough for the bitmap budget (their count read from
 * the engine's statistics, userCounts.ts). A measure, or a breakdown with many or unbounded labels
 * (lists), needs per-user detail: (user, period) sets of initial and return events are joined on
 * the user within `duration` periods. None joins the event table with itself.
 *
 * onOrAfter (a user counts at k when back at any offset k..duration): the bitmap cells at k are
 * OR-ed with every later offset's; per user, the offsets up to their latest return are set. With
 * firstTime, initial events are only the rows at each user's first-ever instant of the initial event.
 *
 * Every statement answers rows `{s, d, k, n, m}`: s the initial period (null: all periods, users
 * de-duplicated), d the breakdown label (null: all values), k the offset (null: totalPeople), n the
 * users, m the measure.
 */

export interface RetentionWindow {
  /** The initial periods, yyyy-MM-dd: those that fromDate..toDate fall in. */
  periods: string[]
  /** Days read: whole periods, from the first initial period to `duration` periods after the last. */
  readFrom: string
  readTo: string
}

export function windowOf(req: RetentionRequest): RetentionWindow {
  const periods = series(req.fromDate, req.toDate, req.unit)
  const readTo = addDays(periodAfter(periods[periods.length - 1], req.unit, req.duration + 1), -1)
  return { periods, readFrom: periods[0], readTo }
}

/** What the bitmaps are sized from, and the latest day with data (later cells are not observed yet). */
export const STATS_SQL = 'SELECT max(ds) AS last_ds, max(distinct_id) AS max_id FROM event_vd'

export interface Cell {
  s: number | null
  d: string | null
  k: number | null
  n: number
  m: number | null
}

/**
 * With firstTime, each user's first-ever initial event (with its filter) up to toDate: only rows
 * at that instant are initial events (several at the same millisecond all are). Reading from the
 * start of the data is what puts a user who began before fromDate in no cohort.
 */
function firstEverSql(env: AnalysisEnv, req: RetentionRequest, profile: boolean, p: SqlParams): string {
  return `
          SELECT e.distinct_id, min(e.xwhen) AS first_at FROM event_vd e
          ${profile ? 'LEFT JOIN profile_vd u ON u.distinct_id = e.distinct_id' : ''}
          WHERE e.ds <= ${p.add(dsOf(req.toDate))} AND ${eventSql(req.firstEvent.event, env, p)} AND ${filterSql(req.firstEvent.filter, env, p)}
          GROUP BY e.distinct_id
        `
}

/**
 * The scan's rows (uid, period, f, r[, d][, v]); `byDay`: the day `ds` instead of the period, for
 * statements that group by day before they join the calendar (retentionBitmaps.ts).
 */
export function scanSql(env: AnalysisEnv, req: RetentionRequest, w: RetentionWindow, p: SqlParams, byDay = false): string {
  // a virtual event's member filters may read user properties too
  const filters = [req.firstEvent, req.secondEvent].flatMap((x) => [x.filter, ...x.event.members.map((m) => m.filter)])
  const profile = profileReads([...filters, req.filter], req.breakdown ? [req.breakdown.by] : [], env.columns)
  const firstProfile = [req.firstEvent.filter, ...req.firstEvent.event.members.map((m) => m.filter)].some(needsProfile)
  const firstEver = req.firstTime ? env.dialect.atFirstEver(firstEverSql(env, req, firstProfile, p)) : null
  const firstOnly = firstEver ? ` AND ${firstEver.condition}` : ''
  const first = `(e.ds BETWEEN ${p.add(dsOf(req.fromDate))} AND ${p.add(dsOf(req.toDate))} AND ${eventSql(req.firstEvent.event, env, p)} AND ${filterSql(req.firstEvent.filter, env, p)}${firstOnly})`
  const back = `(${eventSql(req.secondEvent.event, env, p)} AND ${filterSql(req.secondEvent.filter, env, p)})`
  const d = env.dialect
  const days = `e.ds BETWEEN ${p.add(dsOf(w.readFrom))} AND ${p.add(dsOf(w.readTo))}`
  // the calendar, then (DuckDB) the first-ever join; ClickHouse nests them with the profile's (one JOIN per SELECT)
  const joins = [
    ...(byDay ? [] : [{ sql: `JOIN ${calendarSql(w.readFrom, w.readTo, req.unit, p, d)} cal ON cal.ds = e.ds`, alias: 'cal', columns: ['period'] }]),
    ...(firstEver?.join ? [{ sql: firstEver.join, alias: 'fe', columns: ['first_at'] }] : []),
  ]
  const extra = [...(req.breakdown ? [`${breakdownSql(req.breakdown.by, d, p)} AS d`] : []), ...(req.measure ? [`${d.columnOf(req.measure.property.column)} AS v`] : [])]
  return `SELECT * FROM (
        SELECT e.distinct_id AS uid, ${byDay ? 'e.ds' : 'cal.period'}, ${first} AS f, ${back} AS r${extra.map((x) => `, ${x}`).join('')}
        FROM ${d.eventRows({ joins, profile, eventWhere: days })}
        WHERE ${days}
          AND ${samplingSql(req.sampling, d)}
          AND ${crowdFilter(req.crowds, d)}
          AND ${filterSql(req.filter, env, p)}
      ) WHERE f OR r`
}

/**
 * onOrAfter cells from `on` cells (`from`: rows of bitmaps `kept` per `by` keys and offset k): the
 * OR of the cells at k and every later offset, spread over the offsets without a row of their own
 * (no return event there in that chunk of ids).
 */
function onOrAfterCellsSql(from: string, by: string[], d: Dialect): string {
  const keys = by.join(', ')
  return `SELECT ${keys}, ${d.unnest(d.series('since + 1', 'upto + 1'))} AS k, kept FROM (
        SELECT ${keys}, k AS upto, lag(k, 1, -1) OVER (PARTITION BY ${keys} ORDER BY k) AS since,
          ${d.bitmapUnion('kept')} OVER (PARTITION BY ${keys} ORDER BY k DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS kept
        FROM ${from})`
}

/** The typed NULL columns of a result row {s, d, k, n, m}, e.g. `CAST(NULL AS VARCHAR) AS d`. */
const CELL_TYPES = { s: 'integer', d: 'string', k: 'integer', m: 'number' } as const

function nulls(d: Dialect, ...columns: (keyof typeof CELL_TYPES)[]): string {
  return columns.map((c) => `${d.cast('NULL', CELL_TYPES[c])} AS ${c}`).join(', ')
}

/** Bitmap memory one query may hold. */
const BITMAP_BUDGET = 256 * 2 ** 20
export const FULL_CHUNK = 4096

/**
 * Ids per bitmap chunk. A chunk of 4096 ids keeps the cell join small (dozens of chunks per period
 * for 200k users); when periods x chunks x 1 KB (two bitmaps) would pass the budget, 64-id chunks
 * are used, whose count is bounded by the rows read.
 */
export function chunkBits(periodCount: number, maxUserId: number): number {
  const chunks = Math.ceil((maxUserId + 1) / FULL_CHUNK)
  return periodCount * chunks * 1024 <= BITMAP_BUDGET ? FULL_CHUNK : 64
}

function bitmapSql(scan: string, req: RetentionRequest, bits: number, p: SqlParams, d: Dialect): string {
  const chunk = p.add(bits)
  const agg = d.bitmapIn(`uid % ${chunk}`, p.add(bits - 1))
  const count = (bitmap: string) => d.bitmapCount(bitmap)
  return `WITH scan AS (${scan}),
    marks AS MATERIALIZED (
      SELECT period, ${d.intDiv('uid', chunk)} AS w, ${agg} FILTER (WHERE f) AS fb, ${agg} FILTER (WHERE r) AS rb
      FROM scan GROUP BY period, w),
    ${req.mode === 'onOrAfter' ? 'exact' : 'cells'} AS MATERIALIZED (
      SELECT a.period AS s, b.period - a.period AS k, a.w, ${d.bitmapAnd('a.fb', 'b.rb')} AS kept
      FROM marks a JOIN marks b ON b.w = a.w AND b.period BETWEEN a.period AND a.period + ${p.add(req.duration)}
      WHERE a.fb IS NOT NULL AND b.rb IS NOT NULL)${req.mode === 'onOrAfter' ? `,
    cells AS MATERIALIZED (${onOrAfterCellsSql('exact', ['s', 'w'], d)})` : ''}
    SELECT period AS s, ${nulls(d, 'd', 'k')}, sum(${count('fb')}) AS n, ${nulls(d, 'm')}
      FROM marks WHERE fb IS NOT NULL GROUP BY period
    UNION ALL SELECT NULL, NULL, NULL, sum(c), NULL FROM (SELECT ${count(d.bitmapUnion('fb'))} AS c FROM marks WHERE fb IS NOT NULL GROUP BY w)
    UNION ALL SELECT s, NULL, k, sum(${count('kept')}), NULL FROM cells GROUP BY s, k
    UNION ALL SELECT NULL, NULL, k, sum(c), NULL FROM (SELECT k, ${count(d.bitmapUnion('kept'))} AS c FROM cells GROUP BY k, w) GROUP BY k`
}

/** (user, initial period) and (user, return period) sets, joined on the user within `duration` periods. */
function pairsSql(scan: string, req: RetentionRequest, p: SqlParams, d: Dialect, returns: { columns: string[]; names: string[]; groups: string[] }): string {
  return `WITH scan AS MATERIALIZED (${scan}),
    starts AS MATERIALIZED (SELECT DISTINCT uid, period AS s${req.breakdown && req.breakdown.side !== 'return' ? ', d' : ''} FROM scan WHERE f),
    rets AS (SELECT uid, period AS rp${returns.columns.map((c) => `, ${c}`).join('')} FROM scan WHERE r GROUP BY uid, period${returns.groups.map((g) => `, ${g}`).join('')}),
    pairs AS MATERIALIZED (
      SELECT st.*, ${d.allColumnsBut('rt', ['uid'], ['uid', 'rp', ...returns.names])}, rt.rp - st.s AS k
      FROM starts st JOIN rets rt ON rt.uid = st.uid AND rt.rp BETWEEN st.s AND st.s + ${p.add(req.duration)})`
}

/** The offsets a user returned at, as bits of words of 63 offsets: counting them needs no distinct (user, offset) set. */
const WORD = 63

/**
 * Breakdown rows by bitmaps, counting what byValueSql counts: the bitmaps of the breakdown's side
 * (initial events, or return events) per label; a user counts in d at k when a bit of d's cells
 * at k is set, and in the total at k when any label's is. These rows have no initial period, so
 * the cells are OR-ed over the periods first, per (d, k, chunk). onOrAfter then ORs each cell with
 * the later offsets' of its (d, chunk): back at some k' >= k from a period with d is the same as
 * being in d's cell at some k' >= k. The running OR (slow on bitmaps) then reads a row per (d,
 * chunk, k) instead of one per (period, d, chunk, k).
 */
function byValueBitmapSql(scan: string, req: RetentionRequest, bits: number, p: SqlParams, d: Dialect): string {
  const byReturn = req.breakdown!.side === 'return'
  const chunk = p.add(bits)
  const agg = d.bitmapIn(`uid % ${chunk}`, p.add(bits - 1))
  /** Users per group: the OR of a group's bitmaps in each chunk, counted and summed over the chunks. */
  const users = (bitmap: string, from: string, by: string[]) => chunkedUsersSql(from, by, 'w', d.bitmapUnion(bitmap), d)
  return `WITH scan AS MATERIALIZED (${scan}),
    fm AS MATERIALIZED (SELECT period, ${byReturn ? '' : 'd, '}${d.intDiv('uid', chunk)} AS w, ${agg} AS fb FROM scan WHERE f ${d.groupByAll(byReturn ? ['period', 'w'] : ['period', 'd', 'w'])}),
    rm AS MATERIALIZED (SELECT period, ${byReturn ? 'd, ' : ''}${d.intDiv('uid', chunk)} AS w, ${agg} AS rb FROM scan WHERE r ${d.groupByAll(byReturn ? ['period', 'd', 'w'] : ['period', 'w'])}),
    ${req.mode === 'onOrAfter' ? 'exact' : 'cells'} AS MATERIALIZED (
      SELECT d, k, w, ${d.bitmapUnion('kept')} AS kept FROM (
        SELECT b.period - a.period AS k, ${byReturn ? 'b' : 'a'}.d, a.w, ${d.bitmapAnd('a.fb', 'b.rb')} AS kept
        FROM fm a JOIN rm b ON b.w = a.w AND b.period BETWEEN a.period AND a.period + ${p.add(req.duration)})
      GROUP BY d, k, w)${req.mode === 'onOrAfter' ? `,
    cells AS MATERIALIZED (${onOrAfterCellsSql('exact', ['d', 'w'], d)})` : ''}
    SELECT ${nulls(d, 's', 'd', 'k')}, c AS n, ${nulls(d, 'm')} FROM (${users('fb', 'fm', [])})
    ${byReturn ? '' : `UNION ALL SELECT NULL, d, NULL, c, NULL FROM (${users('fb', 'fm', ['d'])})`}
    UNION ALL SELECT NULL, d, k, c, NULL FROM (${users('kept', 'cells', ['d', 'k'])})
    UNION ALL SELECT NULL, NULL, k, c, NULL FROM (${users('kept', 'cells', ['k'])})`
}

/**
 * onOrAfter masks: a user counts at every offset up to the last one they returned at (with d), so
 * the words of offsets 0..max(k) are all set (the last one up to max(k)).
 */
const ALL_BITS = '9223372036854775807' // bits 0..62 of a BIGINT: a whole word of offsets

function reachMasksSql(word: string, d: Dialect): string {
  const one = d.cast('1', 'bigint')
  return `
      SELECT uid, d, kw, CASE WHEN top - kw * ${word} >= ${word} - 1 THEN ${ALL_BITS} ELSE (${d.shiftLeft(one, d.cast(`top - kw * ${word} + 1`, 'bigint'))}) - 1 END AS km
      FROM (SELECT uid, d, top, ${d.unnest(d.series('0', `${d.intDiv('top', word)} + 1`))} AS kw FROM (SELECT uid, d, max(k) AS top FROM pairs GROUP BY uid, d))`
}

/**
 * Breakdown rows: a user counts in value d at k when they returned at +k from any period where
 * they had d (initial-event and user properties) or with a return event carrying d.
 */
function byValueSql(scan: string, req: RetentionRequest, p: SqlParams, d: Dialect): string {
  const byReturn = req.breakdown!.side === 'return'
  const word = p.add(WORD)
  const offsets = `${d.seriesTable('0', p.add(Math.min(WORD, req.duration + 1)), 't', 'b')} WHERE kw * ${word} + b <= ${p.add(req.duration)}`
  const present = `count(*) FILTER (WHERE ${d.bitAnd(`(${d.shiftRight('km', d.cast('b', 'bigint'))})`, 1)} = 1)`
  const one = d.cast('1', 'bigint')
  const users = d.distinctCount('uid')
  return `${pairsSql(scan, req, p, d, byReturn ? { columns: ['d'], names: ['d'], groups: ['d'] } : { columns: [], names: [], groups: [] })},
    masks AS MATERIALIZED (${req.mode === 'onOrAfter' ? reachMasksSql(word, d) : `
      SELECT uid, d, ${d.intDiv('k', word)} AS kw, ${d.bitOrAgg(d.shiftLeft(one, d.cast(`k % ${word}`, 'bigint')))} AS km FROM pairs GROUP BY uid, d, kw`})
    ${byReturn
      ? `SELECT ${nulls(d, 's', 'd', 'k')}, ${users} AS n, ${nulls(d, 'm')} FROM starts`
      : `SELECT ${nulls(d, 's')}, d, ${nulls(d, 'k')}, ${users} AS n, ${nulls(d, 'm')} FROM starts GROUP BY GROUPING SETS ((d), ())`}
    UNION ALL SELECT NULL, d, kw * ${word} + b, ${present}, NULL FROM masks, ${offsets} GROUP BY d, kw, b
    UNION ALL SELECT NULL, NULL, kw * ${word} + b, ${present}, NULL
      FROM (SELECT uid, kw, ${d.bitOrAgg('km')} AS km FROM masks GROUP BY uid, kw), ${offsets} GROUP BY kw, b`
}

/**
 * Per (user, return period) partial aggregates of the measure ([sql, column]), and how they combine:
 * `total` over any pairs, `cell` (when it differs) over the pairs of one (period, k), in which each
 * user appears once.
 */
const partials = (d: Dialect): Record<MeasureAggregator, { partial: [string, string][]; total: string; cell?: string }> => ({
  SUM: { partial: [['sum(v)', 'sv']], total: 'sum(sv)' },
  AVG: { partial: [['sum(v)', 'sv'], ['count(v)', 'cv']], total: 'sum(sv) / nullif(sum(cv), 0)' },
  MAX: { partial: [['max(v)', 'mx']], total: 'max(mx)' },
  MIN: { partial: [['min(v)', 'mn']], total: 'min(mn)' },
  // the sum per returning user who carried a value, as event analysis does
  AVG_PER: {
    partial: [['sum(v)', 'sv'], ['count(v)', 'cv']],
    total: `sum(sv) / nullif(${d.distinctCount('uid', 'cv > 0')}, 0)`,
    cell: 'sum(sv) / nullif(count(*) FILTER (WHERE cv > 0), 0)',
  },
  REMOVE_DUMPLICATE: {
    partial: [[d.collectDistinct('v', 'v IS NOT NULL'), 'vs']],
    total: d.length(d.distinctElements(d.concatLists('vs', 'vs IS NOT NULL'))),
  },
})

/**
 * Distinct users per `by`, counted by chunk of ids: `bitmap` aggregates the users of one chunk
 * (`chunk`: its key) as a bitmap; their bits are counted and summed over the chunks.
 */
function chunkedUsersSql(from: string, by: string[], chunk: string, bitmap: string, d: Dialect): string {
  const keys = by.map((b) => `${b}, `).join('')
  return `SELECT ${keys}COALESCE(sum(c), 0) AS c FROM (
      SELECT ${keys}${chunk} AS w, ${d.bitmapCount(bitmap)} AS c FROM ${from} GROUP BY ${keys}w
    )${by.length ? ` GROUP BY ${by.join(', ')}` : ''}`
}

/**
 * The distinct users of `from` (rows with `uid`) per `by`: bitmaps per chunk of ids, instead of
 * hashing every (group, user) pair as count(DISTINCT) does.
 */
function usersSql(from: string, by: string[], bits: number, p: SqlParams, d: Dialect): string {
  const chunk = p.add(bits)
  return chunkedUsersSql(from, by, d.intDiv('uid', chunk), d.bitmapIn(`uid % ${chunk}`, p.add(bits - 1)), d)
}

/**
 * Measure cells: the partials of each counted (user, return period) combined per (period, k) and,
 * for $ALL, per k (a user-period meets a given k from one initial period only, so none counts twice).
 * Users are distinct within a (period, k) already (starts and returns are sets of user-periods):
 * counted there by count(*); across periods by bitmaps (usersSql).
 */
function measureSql(scan: string, req: RetentionRequest, bits: number, p: SqlParams, d: Dialect): string {
  const { partial, total, cell } = partials(d)[req.measure!.aggregator]
  return `${pairsSql(scan, req, p, d, { columns: partial.map(([sql, name]) => `${sql} AS ${name}`), names: partial.map(([, name]) => name), groups: [] })}
    SELECT s, ${nulls(d, 'd', 'k')}, count(*) AS n, ${nulls(d, 'm')} FROM starts GROUP BY s
    UNION ALL SELECT NULL, NULL, NULL, c, NULL FROM (${usersSql('starts', [], bits, p, d)})
    UNION ALL SELECT s, NULL, k, count(*), ${cell ?? total} FROM pairs GROUP BY s, k
    UNION ALL SELECT NULL, NULL, k, c, m FROM (${usersSql('pairs', ['k'], bits, p, d)}) JOIN (SELECT k, ${total} AS m FROM pairs GROUP BY k) USING (k)`
}

/** What an engine counting retention its own way needs to know of the request (parts/retention.ts). */
function shapeOf(req: RetentionRequest): RetentionShape {
  return { duration: req.duration, onOrAfter: req.mode === 'onOrAfter', side: req.breakdown ? (req.breakdown.side === 'return' ? 'return' : 'first') : null, measure: req.measure?.aggregator ?? null }
}

/**
 * The statement for a request: the engine's own where it has one (ClickHouse: per-user lists of
 * periods, parts/retention.ts); else bitmaps for plain retention and for a breakdown with few labels
 * (`labels`: their bound, null when unknown), user-period pairs for a measure or other breakdowns.
 */
export function retentionSql(env: AnalysisEnv, req: RetentionRequest, w: RetentionWindow, maxUserId: number, labels: number | null, p: SqlParams): string {
  const d = env.dialect
  const scan = scanSql(env, req, w, p)
  const engine = d.retentionCells(scan, shapeOf(req), p)
  if (engine !== null) return engine
  const periods = w.periods.length + req.duration
  if (req.breakdown) {
    const bitmaps = labels !== null && chunkBits(periods * labels, maxUserId) === FULL_CHUNK
    return bitmaps ? byValueBitmapSql(scan, req, FULL_CHUNK, p, d) : byValueSql(scan, req, p, d)
  }
  if (req.measure) return measureSql(scan, req, chunkBits(req.duration + 1, maxUserId), p, d)
  return bitmapSql(scan, req, chunkBits(periods, maxUserId), p, d)
}

/** One cell of the answer: period s (null: the $ALL row), label d (null: all values), offset k (null: totalPeople). */
export type CellAt = RetentionCellAt

/**
 * The users (`uid`, each once) of one cell, from the same scan and the same user-period pairs as
 * the counts: the starters of the row (every starter for a return-event breakdown), and of them
 * those with a pair at k (returned) or without one (not returned).
 */
export function cellUsersSql(env: AnalysisEnv, req: RetentionRequest, w: RetentionWindow, cell: CellAt, p: SqlParams): string {
  const scan = scanSql(env, req, w, p)
  const engine = env.dialect.retentionCellUsers(scan, shapeOf(req), cell, p)
  if (engine !== null) return engine
  const byReturn = req.breakdown?.side === 'return'
  const base = pairsSql(scan, req, p, env.dialect, byReturn ? { columns: ['d'], names: ['d'], groups: ['d'] } : { columns: [], names: [], groups: [] })
  const where = (own: boolean) => [
    cell.s === null ? 'true' : `s = ${p.add(cell.s)}`,
    cell.d === null || !own ? 'true' : `d = ${p.add(cell.d)}`,
  ].join(' AND ')
  // built only when used: each bound value is numbered as it is added
  const starters = () => `SELECT DISTINCT uid FROM starts WHERE ${where(!byReturn)}`
  if (cell.k === null) return `${base} ${starters()}`
  // onOrAfter: back at +k or at any later offset the row follows (pairs stop at +duration)
  const at = req.mode === 'onOrAfter' ? '>=' : '='
  const returned = (k: number) => `SELECT DISTINCT uid FROM pairs WHERE k ${at} ${p.add(k)} AND ${where(true)}`
  return `${base} ${cell.returned ? returned(cell.k) : `${starters()} EXCEPT ${returned(cell.k)}`}`
}
