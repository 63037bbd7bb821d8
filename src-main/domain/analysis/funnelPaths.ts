import type { DuckDBDataChunk, DuckDBMaterializedResult } from '@duckdb/node-api'
import { UNKNOWN } from './breakdown'
import { chunksOf, doubleColumn, intColumn } from './columnar'
import { GroupTally, grown } from './funnelTally'

/**
 * Following the funnel's paths over the candidate events of funnelSql.ts, one user at a time.
 *
 * 1. Grouping: a counting sort on the dense user ids puts each user's events together (two passes
 *    over the rows, no comparison sort). A user's events arrive in time order, or nearly (a join
 *    may move a few); a user whose events do not is sorted on its own.
 * 2. Order within a user: by time; among events at the same moment the one that can be an earlier
 *    step first (so a step at the same time as the previous one counts), then by the set of steps
 *    it matches and its label: events still tied are alike in every way the result sees.
 * 3. Paths: from each entry (a first-step event inside the range), step k+1 is the next event
 *    after step k's (never itself) that matches step k+1: the earliest, hence deepest, path, found
 *    by one pointer per step that only moves forward (followUser). Steps later than the entry +
 *    window end the path.
 * 4. Per user and entry day, and per user over the range (column 0): the deepest path, the first
 *    entry among equals, counted at its depth under the total and under its label(s), with its
 *    step-to-step times kept for the medians (the middle two averaged).
 * Layout, for speed on millions of events: a user's events are pairs (time, day and steps) side by
 * side in one array, so placing an event touches one cache line; step times go to typed lists per
 * label, column and step, their medians found by selection.
 */

export interface FunnelPathsOptions {
  steps: number
  windowMicros: number
  /** The column of each entry day (column 0 is $ALL), at [its ds - fromDate's ds + 1] (0: not a day of the range). */
  columnOfDay: Int32Array
  /** With a breakdown: the step whose row labels the path (a path that stops before it is unknown). */
  labelStep: number | null
}

export interface FunnelTallyRow {
  column: number
  /** null: the total. */
  label: string | null
  /** counts[k]: the users who reached step k. */
  counts: number[]
  /** medians[k - 1]: step k-1 to step k, in seconds; null when nobody reached step k. */
  medians: (number | null)[]
}

const MICROS = 1_000_000
/**
 * `md` of the scan (funnelSql.ts): the steps in its low 20 bits, the entry day above them (ds -
 * fromDate's ds + 1; 0 past toDate). Placed events keep the day's column there instead (at most
 * MAX_RANGE_DAYS + 1 < 2^12), so that the pair's second value fits 32 bits and reads with integer
 * operations.
 */
export const STEP_BITS = 20
const STEP_SPAN = 2 ** STEP_BITS
const STEP_MASK = STEP_SPAN - 1

/** An event's place among events at the same moment: its lowest step first, then its steps. */
function tieKey(m: number): number {
  return ((31 - Math.clz32(m & -m)) << STEP_BITS) | m
}

function stepsOf(md: number): number {
  return md & STEP_MASK
}

/** Counts the events of each user (at start[uid + 1]); returns how many rows were events. */
function countUsers(uid: Int32Array, start: Int32Array): number {
  let events = 0
  for (let i = 0; i < uid.length; i++) {
    const u = uid[i]
    if (u < 0) continue
    start[u + 1]++
    events++
  }
  return events
}

/** Copies a chunk's events to their users' places (a counting sort's second pass), each day as its column. */
function placeEvents(uid: Int32Array, place: Int32Array, t: Float64Array, md: Float64Array, li: Int32Array | null, columnOfDay: Int32Array, events: Float64Array, labels: Int32Array): void {
  for (let i = 0; i < uid.length; i++) {
    const u = uid[i]
    if (u < 0) continue
    const at = place[u]++
    const day = (md[i] / STEP_SPAN) | 0
    events[2 * at] = t[i]
    events[2 * at + 1] = columnOfDay[day] * STEP_SPAN + (md[i] - day * STEP_SPAN)
    if (li !== null) labels[at] = li[i]
  }
}

export class FunnelPaths {
  private readonly s: number
  /** Per group: 0 the total, then one per label. */
  private readonly groups: GroupTally[] = []
  private readonly groupOf = new Map<string, number>()
  private readonly labels: (string | null)[] = [null]
  /** The current part's label dictionary: its li -> the groups of that label's elements. */
  private partGroups: number[][] = []

  /** One part's events grouped by user: (time, md) pairs. */
  private events = new Float64Array(0)
  /** Their label indexes (with a breakdown). */
  private li = new Int32Array(0)
  /** Room for merging a user's events (orderUser). */
  private scratch = new Float64Array(0)
  private scratchLabels = new Int32Array(0)
  /** The events of the path being followed, by step (indexes into the part's events). */
  private readonly path: Int32Array
  /** The deepest path of the current day, and of the range. */
  private readonly dayPath: Int32Array
  private readonly allPath: Int32Array

  constructor(private readonly o: FunnelPathsOptions) {
    this.s = o.steps
    this.path = new Int32Array(o.steps)
    this.dayPath = new Int32Array(o.steps)
    this.allPath = new Int32Array(o.steps)
    this.newGroup()
  }

  /** Reads one part's scan (funnelScanSql: uid, t, md[, li, lab]), whose uids are below `users`, and follows its users' paths. */
  addPart(result: DuckDBMaterializedResult, users: number): void {
    const chunks = chunksOf(result)
    const labelled = this.o.labelStep !== null
    // pass 1: events per user; the dictionary rows (uid -1) give the part's labels
    this.partGroups = []
    const uids = chunks.map((chunk) => intColumn(chunk, 0))
    const start = new Int32Array(users + 1)
    let rows = 0
    uids.forEach((uid, c) => {
      const counted = countUsers(uid, start)
      rows += counted
      if (counted < uid.length) uid.forEach((u, i) => u < 0 && this.readLabel(chunks[c], i))
    })
    for (let u = 1; u < start.length; u++) start[u] += start[u - 1]
    // pass 2: each event to its user's place
    this.events = grown(this.events, 2 * rows, (n) => new Float64Array(n))
    if (labelled) this.li = grown(this.li, rows, (n) => new Int32Array(n))
    const place = start.slice()
    chunks.forEach((chunk, c) => {
      placeEvents(uids[c], place, doubleColumn(chunk, 1), doubleColumn(chunk, 2), labelled ? intColumn(chunk, 3) : null, this.o.columnOfDay, this.events, this.li)
    })
    for (let u = 0; u < users; u++) if (start[u + 1] > start[u]) this.followUser(start[u], start[u + 1])
  }

  /** The rows of the tally: per group and column with anyone entered. */
  rows(): FunnelTallyRow[] {
    return this.groups.flatMap((tally, g) => [...tally.columns()].map((c) => ({ ...c, label: this.labels[g] })))
  }

  private newGroup(): number {
    this.groups.push(new GroupTally(this.s))
    return this.groups.length - 1
  }

  private groupFor(label: string): number {
    let g = this.groupOf.get(label)
    if (g === undefined) {
      g = this.newGroup()
      this.groupOf.set(label, g)
      this.labels.push(label)
    }
    return g
  }

  /** A dictionary row: its label (or the elements of a list label), as groups. */
  private readLabel(chunk: DuckDBDataChunk, row: number): void {
    const li = Number(chunk.getColumnVector(3).getItem(row))
    const value = chunk.getColumnVector(4).getItem(row) as unknown
    const elements = value !== null && typeof value === 'object' && 'items' in value ? (value as { items: unknown[] }).items : [value]
    this.partGroups[li] = elements.map((e) => this.groupFor(e === null ? UNKNOWN : String(e)))
  }

  /**
   * Follows the paths of the user whose events are a..b-1. Each step's event only moves forward
   * as the entry does (the next match after a later event is never earlier), so one pointer per
   * step walks the user's events once whatever the number of entries.
   */
  private followUser(a: number, b: number): void {
    const s = this.s
    this.orderUser(a, b)
    const e = this.events
    const { path, dayPath, allPath } = this
    const window = this.o.windowMicros
    path.fill(a - 1)
    let dayColumn = -1
    let dayDepth = 0
    let allDepth = 0
    for (let i = a; i < b; i++) {
      const md = e[2 * i + 1]
      if ((md & 1) === 0) continue
      const column = md >>> STEP_BITS
      if (column === 0) continue // past toDate: a step, never an entry
      path[0] = i
      const end = e[2 * i] + window
      let depth = 1
      for (let k = 1; k < s; k++) {
        let j = path[k]
        if (j <= path[k - 1]) {
          const bit = 1 << k
          j = path[k - 1] + 1
          while (j < b && (stepsOf(e[2 * j + 1]) & bit) === 0) j++
          path[k] = j
        }
        if (j >= b) break
        if (depth === k && e[2 * j] <= end) depth++
      }
      if (column !== dayColumn) {
        if (dayColumn > 0) this.count(dayColumn, dayPath, dayDepth)
        dayColumn = column
        dayDepth = 0
      }
      if (depth > dayDepth) {
        dayDepth = depth
        for (let k = 0; k < depth; k++) dayPath[k] = path[k]
      }
      if (depth > allDepth) {
        allDepth = depth
        for (let k = 0; k < depth; k++) allPath[k] = path[k]
      }
    }
    if (dayColumn > 0) {
      this.count(dayColumn, dayPath, dayDepth)
      this.count(0, allPath, allDepth)
    }
  }

  /** Counts one user's path in a column: under the total and under each of its labels. */
  private count(column: number, path: Int32Array, depth: number): void {
    this.tally(0, column, path, depth)
    const step = this.o.labelStep
    if (step === null) return
    const li = depth > step ? this.li[path[step]] : -1
    if (li < 0) this.tally(this.groupFor(UNKNOWN), column, path, depth)
    else for (const g of this.partGroups[li]) this.tally(g, column, path, depth)
  }

  private tally(g: number, column: number, path: Int32Array, depth: number): void {
    const e = this.events
    const tally = this.groups[g]
    tally.count(column, depth)
    for (let k = 1; k < depth; k++) tally.addTime(column, k, (e[2 * path[k]] - e[2 * path[k - 1]]) / MICROS)
  }

  /** Whether event x comes after event y (both of the current part). */
  private after(x: number, y: number): boolean {
    const e = this.events
    if (e[2 * x] !== e[2 * y]) return e[2 * x] > e[2 * y]
    const tie = tieKey(stepsOf(e[2 * x + 1])) - tieKey(stepsOf(e[2 * y + 1]))
    if (tie !== 0 || this.o.labelStep === null) return tie > 0
    return this.li[x] > this.li[y]
  }

  /**
   * Puts a user's events in order. They come in order, or as a few ordered runs (a join emits a
   * chunk's matched rows apart from the others): a natural merge sort merges the runs it finds,
   * linear for one or two runs and n log n at worst.
   */
  private orderUser(a: number, b: number): void {
    const e = this.events
    let runs: number[] | null = null
    for (let i = a + 1; i < b; i++) if (e[2 * i] <= e[2 * i - 2] && this.after(i - 1, i)) (runs ??= [a]).push(i)
    if (runs === null) return
    this.scratch = grown(this.scratch, 2 * (b - a), (n) => new Float64Array(n))
    if (this.o.labelStep !== null) this.scratchLabels = grown(this.scratchLabels, b - a, (n) => new Int32Array(n))
    while (runs.length > 1) {
      const merged: number[] = []
      for (let r = 0; r < runs.length; r += 2) {
        merged.push(runs[r])
        if (r + 1 < runs.length) this.merge(runs[r], runs[r + 1], runs[r + 2] ?? b, a)
      }
      runs = merged
    }
  }

  /** Merges the ordered events [from, mid) and [mid, to) in place (through the scratch space at from - a). */
  private merge(from: number, mid: number, to: number, a: number): void {
    const e = this.events
    const li = this.li
    const out = this.scratch
    const outLabels = this.scratchLabels
    const labelled = this.o.labelStep !== null
    let i = from
    let j = mid
    let k = from - a
    while (i < mid || j < to) {
      // the left one among equals: events still tied keep their order
      const x = j >= to || (i < mid && !this.after(i, j)) ? i++ : j++
      out[2 * k] = e[2 * x]
      out[2 * k + 1] = e[2 * x + 1]
      if (labelled) outLabels[k] = li[x]
      k++
    }
    e.set(out.subarray(2 * (from - a), 2 * (to - a)), 2 * from)
    if (labelled) li.set(outLabels.subarray(from - a, to - a), from)
  }
}
