import { UNKNOWN } from './breakdown'
import { EventOrder } from './funnelOrder'
import { GroupTally, grown, type GroupTallyParts } from './funnelTally'
import type { FunnelOrder } from './funnelOptions'
import type { FunnelPart } from './funnelPart'
import { anyOrderPaths, walkAnyOrder } from './funnelAnyOrder'
import { answerOnly, DeepestPaths, type CountPath, type EntryColumns } from './funnelEntries'
import { countUsers, placeEvents, spansOf, STEP_BITS, stepsOf, withoutSteps } from './funnelRows'

export { STEP_BITS, stepsOf } from './funnelRows'

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
 *    step-to-step times kept for the medians (the middle two averaged). With compare, the
 *    compared range in the same pass: its columns follow the answer's (funnelEntries.ts).
 * 5. Holding the breakdown value constant (byStepIndex -1): the total as above; then for each value
 *    the user's events carry, the same over only the events that carry it (each step of a path in
 *    the value's row has that value).
 * 6. Options (funnelOptions.ts): exclusion events carry the spans they stop above bit 32
 *    (funnelRows.ts); in a strict order every other event sits among the steps with no step bits.
 *    Step k+1 counts only when no such event lies strictly between its time and step k's
 *    (blocked: one pointer per excluded span, also moving forward only). In any
 *    order a path starts at any step's event and takes each step's first event from there
 *    (funnelAnyOrder.ts). The counted paths' times feed the time-to-convert histogram (total, $ALL).
 * Layout, for speed on millions of events: a user's events are pairs (time, day and steps) side by
 * side in one array, so placing an event touches one cache line; step times go to typed lists per
 * label, column and step, their medians found by selection.
 */

export interface FunnelPathsOptions {
  steps: number
  windowMicros: number
  /** The column of each entry day (column 0 is $ALL), at [its key - fromDate's + 1] (funnelSql.ts entryDays; 0: not a day of the range); with `compared`, its slot. */
  columnOfDay: Int32Array
  /**
   * With compare, both ranges in one pass (funnelEntries.ts): columnOfDay gives each entry day of
   * either range its slot, and this where a slot's entries count. Without it slot = column.
   */
  compared?: EntryColumns
  /**
   * With a breakdown: the step whose row labels the path (a path that stops before it is unknown),
   * or HOLD_CONSTANT: every row carries its label and a value's paths use only its events.
   */
  labelStep: number | null
  /**
   * Called for each user counted, where the tally counts them (so every option of the path
   * following applies): the user's distinct_id, the row (null: the total), the column and the
   * depth reached. The users behind a cell (analysis/cells) listen here; absent, it costs a test.
   */
  onCount?: (user: number, label: string | null, column: number, depth: number) => void
  /** The steps and spans of each event code of the scan (funnelSql.ts eventCodes); absent: md carries them itself. */
  codes?: Float64Array | null
  /** ORDERED when omitted. */
  order?: FunnelOrder
  /** The spans any exclusion stops (bit k: between steps k and k+1); 0 or omitted: none. */
  excludedSpans?: number
  /** The histogram of the counted paths' times over the range (total row, column 0), from one step to a later one. */
  timeToConvert?: { fromStep: number; toStep: number; buckets: number[] } | null
}

/** labelStep of a breakdown on any step (byStepIndex -1): the property held constant along the path. */
export const HOLD_CONSTANT = -1

/** A follower's tally as plain data (FunnelPaths.tallyParts). */
export interface FunnelTallyParts {
  groups: (GroupTallyParts & { label: string | null })[]
  histogram: number[]
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
  private readonly order = new EventOrder()
  /** One user's events that carry one value (HOLD_CONSTANT). */
  private sub = new Float64Array(0)
  /** The events of the path being followed, by step (indexes into the part's events). */
  private readonly path: Int32Array
  /** The deepest paths of the user's entry days and ranges. */
  private readonly deepest: DeepestPaths
  /** Counts a path of the events being walked (`walking`) under `into` (count()). */
  private readonly countPath: CountPath
  private walking: Float64Array<ArrayBufferLike> = new Float64Array(0)
  private into: number[] | null = null
  /** The distinct_id of the user being followed, for onCount. */
  private user = 0
  private readonly stepOrder: FunnelOrder
  private readonly strict: boolean
  private readonly spans: number
  /** Per excluded span k: the first exclusion event of span k later than step k of the path (moves forward only). */
  private readonly excluded: Int32Array
  /** Room for the paths in any order (funnelAnyOrder.ts). */
  private readonly anyOrder: ReturnType<typeof anyOrderPaths>
  /** Users of the time-to-convert histogram, by bucket. */
  private readonly histogram: number[]

  constructor(private readonly o: FunnelPathsOptions) {
    this.s = o.steps
    this.path = new Int32Array(o.steps)
    this.deepest = new DeepestPaths(o.steps, o.compared ?? answerOnly(o.columnOfDay.reduce((n, c) => Math.max(n, c), 0) + 1))
    this.countPath = (column, path, depth) => this.count(this.walking, column, path, depth, this.into)
    this.stepOrder = o.order ?? 'ORDERED'
    this.strict = this.stepOrder === 'STRICT'
    this.spans = o.excludedSpans ?? 0
    this.excluded = new Int32Array(o.steps)
    this.anyOrder = anyOrderPaths(o.steps)
    this.histogram = new Array<number>(o.timeToConvert?.buckets.length ?? 0).fill(0)
    this.newGroup()
  }

  /** Follows the paths of one part's users (funnelPart.ts). */
  addPart(part: FunnelPart): void {
    const labelled = this.o.labelStep !== null
    // the part's labels as groups
    this.partGroups = part.labels.map((elements) => elements.map((e) => this.groupFor(e ?? UNKNOWN)))
    // pass 1: events per user (the dictionary rows, uid -1, are skipped)
    const start = new Int32Array(part.users + 1)
    const rows = countUsers(part.uid, start)
    for (let u = 1; u < start.length; u++) start[u] += start[u - 1]
    // pass 2: each event to its user's place
    this.events = grown(this.events, 2 * rows, (n) => new Float64Array(n))
    if (labelled) this.li = grown(this.li, rows, (n) => new Int32Array(n))
    placeEvents(part.uid, start.slice(), part.t, part.md, labelled ? part.li : null, this.o.columnOfDay, this.events, this.li, this.spans !== 0, this.o.codes ?? null)
    for (let u = 0; u < part.users; u++) {
      if (start[u + 1] === start[u]) continue
      this.user = part.firstUser + u
      this.followUser(start[u], start[u + 1])
    }
  }

  /** The time-to-convert histogram: users by bucket (empty without the option). */
  timeToConvert(): number[] {
    return [...this.histogram]
  }

  /** The tally as plain data, and its buffers (funnelThreads.ts moves them to the thread that adds the parts up). */
  tallyParts(): { parts: FunnelTallyParts; buffers: ArrayBuffer[] } {
    const groups = this.groups.map((tally, g) => ({ label: this.labels[g], ...tally.parts() }))
    const buffers = groups.flatMap((g) => [...g.counts.map((c) => c.buffer as ArrayBuffer), ...g.times.map(([, t]) => t.buffer as ArrayBuffer)])
    return { parts: { groups, histogram: this.histogram }, buffers }
  }

  /**
   * Adds the tally of another follower of the same funnel over other users: the counts add up
   * and the step times join, so that the medians are those of all the users.
   */
  absorb(other: FunnelTallyParts): void {
    for (const group of other.groups) this.groups[group.label === null ? 0 : this.groupFor(group.label)].absorb(group)
    other.histogram.forEach((n, i) => (this.histogram[i] += n))
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

  /** Orders the events of the user a..b-1 and follows their paths: all of them, and per value when the value is held constant. */
  private followUser(a: number, b: number): void {
    this.order.sort(this.events, this.o.labelStep === null ? null : this.li, a, b)
    if (this.o.labelStep !== HOLD_CONSTANT) {
      this.walk(this.events, a, b, null)
      return
    }
    const groups = this.groupsOfUser(a, b)
    if (groups.length === 1) {
      // every event of the user carries the one value: its paths are the total's
      this.walk(this.events, a, b, [0, groups[0]])
      return
    }
    this.walk(this.events, a, b, [0])
    for (const g of groups) {
      // the user's events that carry the value, as a sequence of their own
      this.sub = grown(this.sub, 2 * (b - a), (n) => new Float64Array(n))
      // events of no step (exclusions, a strict order's other events) stay; a step of another value
      // stays as an other event in a strict order, as an exclusion when it is one
      let n = 0
      for (let i = a; i < b; i++) {
        let md = this.events[2 * i + 1]
        if (stepsOf(md) !== 0 && !this.groupsOfRow(this.li[i]).includes(g)) {
          md = withoutSteps(md)
          if (md === 0 && !this.strict) continue
        }
        this.sub[2 * n] = this.events[2 * i]
        this.sub[2 * n + 1] = md
        n++
      }
      this.walk(this.sub, 0, n, [g])
    }
  }

  /** The groups of the values the steps a..b-1 carry (with HOLD_CONSTANT every step row has a label). */
  private groupsOfUser(a: number, b: number): number[] {
    const first = this.li[a]
    let same = true
    for (let i = a + 1; i < b && same; i++) same = this.li[i] === first
    if (same) return this.groupsOfRow(first)
    const groups = new Set<number>()
    for (let i = a; i < b; i++) {
      if (stepsOf(this.events[2 * i + 1]) === 0) continue
      for (const g of this.groupsOfRow(this.li[i])) groups.add(g)
    }
    return [...groups]
  }

  private groupsOfRow(li: number): number[] {
    return li < 0 ? [this.groupFor(UNKNOWN)] : this.partGroups[li]
  }

  /**
   * Follows the paths over the ordered events a..b-1 of `e` (one user's) and counts them: under
   * the total and the labels of labelStep (`into` null), or under the groups `into`. Each step's
   * event only moves forward as the entry does (the next match after a later event is never
   * earlier), so one pointer per step walks the events once whatever the number of entries.
   */
  private walk(e: Float64Array, a: number, b: number, into: number[] | null): void {
    this.walking = e
    this.into = into
    const deepest = this.deepest
    if (this.stepOrder === 'ANY') {
      walkAnyOrder(e, a, b, this.o.windowMicros, this.anyOrder, deepest, this.countPath)
      return
    }
    const s = this.s
    const path = this.path
    const window = this.o.windowMicros
    const blocking = this.strict || this.spans !== 0
    path.fill(a - 1)
    if (this.spans !== 0) this.excluded.fill(a)
    deepest.begin()
    for (let i = a; i < b; i++) {
      const md = e[2 * i + 1]
      if ((md & 1) === 0) continue
      const slot = md >>> STEP_BITS
      if (slot === 0) continue // past toDate: a step, never an entry
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
        if (depth === k && e[2 * j] <= end && !(blocking && this.blocked(e, path[k - 1], j, k - 1, b))) depth++
      }
      deepest.entry(slot, path, depth, this.countPath)
    }
    deepest.end(this.countPath)
  }

  /**
   * Whether step `span` + 1 at j is barred from following step `span` at x: in a strict order by any
   * event strictly between their times, and by an exclusion event of the span strictly between them.
   * Called with x moving forward only (the entries' paths), as the exclusion pointers require.
   */
  private blocked(e: Float64Array, x: number, j: number, span: number, b: number): boolean {
    const tx = e[2 * x]
    const tj = e[2 * j]
    if (this.strict) {
      let n = x + 1
      while (n < j && e[2 * n] === tx) n++
      if (n < j && e[2 * n] < tj) return true
    }
    if (((this.spans >>> span) & 1) === 0) return false
    let n = this.excluded[span]
    while (n < b && (((spansOf(e[2 * n + 1]) >>> span) & 1) === 0 || e[2 * n] <= tx)) n++
    this.excluded[span] = n
    return n < b && e[2 * n] < tj
  }

  /** Counts one user's path in a column: under the groups `into`, or under the total and each of its labels. */
  private count(e: Float64Array, column: number, path: Int32Array, depth: number, into: number[] | null): void {
    if (into !== null) {
      for (const g of into) this.tally(e, g, column, path, depth)
      return
    }
    this.tally(e, 0, column, path, depth)
    const step = this.o.labelStep
    if (step === null) return
    const li = depth > step ? this.li[path[step]] : -1
    if (li < 0) this.tally(e, this.groupFor(UNKNOWN), column, path, depth)
    else for (const g of this.partGroups[li]) this.tally(e, g, column, path, depth)
  }

  /** Step k's time on a path: when steps 0..k were all done (in order: step k's own time). */
  private tally(e: Float64Array, g: number, column: number, path: Int32Array, depth: number): void {
    const tally = this.groups[g]
    tally.count(column, depth)
    this.o.onCount?.(this.user, this.labels[g], column, depth)
    let done = e[2 * path[0]]
    for (let k = 1; k < depth; k++) {
      const t = Math.max(done, e[2 * path[k]])
      tally.addTime(column, k, (t - done) / MICROS)
      done = t
    }
    const histogram = this.o.timeToConvert
    if (histogram && g === 0 && column === 0 && depth > histogram.toStep) this.addTimeToConvert(e, path, histogram)
  }

  private addTimeToConvert(e: Float64Array, path: Int32Array, h: { fromStep: number; toStep: number; buckets: number[] }): void {
    let done = e[2 * path[0]]
    let from = done
    for (let k = 1; k <= h.toStep; k++) {
      done = Math.max(done, e[2 * path[k]])
      if (k === h.fromStep) from = done
    }
    const seconds = (done - from) / MICROS
    let bucket = h.buckets.length - 1
    while (bucket > 0 && h.buckets[bucket] > seconds) bucket--
    this.histogram[bucket]++
  }
}
