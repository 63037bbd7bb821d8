import { STEP_BITS, stepsOf } from './funnelRows'
import { grown } from './funnelTally'

/**
 * Puts one user's events in order for funnelPaths.ts: by time; among events at the same moment the
 * one that can be an earlier step first, then by the set of steps it matches and its label.
 * Events still tied are alike in every way the result sees.
 */

/** An event's place among events at the same moment: its lowest step first, then its steps. */
function tieKey(m: number): number {
  return ((31 - Math.clz32(m & -m)) << STEP_BITS) | m
}

export class EventOrder {
  /** Room for merging a user's events. */
  private scratch = new Float64Array(0)
  private scratchLabels = new Int32Array(0)
  private e: Float64Array<ArrayBufferLike> = new Float64Array(0)
  private li: Int32Array | null = null

  /**
   * Orders the (time, md) pairs a..b-1 of `events` (and their labels `li`, with a breakdown) in
   * place. They come in order, or as a few ordered runs (a join emits a chunk's matched rows apart
   * from the others): a natural merge sort merges the runs it finds, linear for one or two runs
   * and n log n at worst.
   */
  sort(events: Float64Array, li: Int32Array | null, a: number, b: number): void {
    this.e = events
    this.li = li
    const e = events
    let runs: number[] | null = null
    for (let i = a + 1; i < b; i++) if (e[2 * i] <= e[2 * i - 2] && this.after(i - 1, i)) (runs ??= [a]).push(i)
    if (runs === null) return
    this.scratch = grown(this.scratch, 2 * (b - a), (n) => new Float64Array(n))
    if (li !== null) this.scratchLabels = grown(this.scratchLabels, b - a, (n) => new Int32Array(n))
    while (runs.length > 1) {
      const merged: number[] = []
      for (let r = 0; r < runs.length; r += 2) {
        merged.push(runs[r])
        if (r + 1 < runs.length) this.merge(runs[r], runs[r + 1], runs[r + 2] ?? b, a)
      }
      runs = merged
    }
  }

  /** Whether event x comes after event y. */
  private after(x: number, y: number): boolean {
    const e = this.e
    if (e[2 * x] !== e[2 * y]) return e[2 * x] > e[2 * y]
    const tie = tieKey(stepsOf(e[2 * x + 1])) - tieKey(stepsOf(e[2 * y + 1]))
    if (tie !== 0 || this.li === null) return tie > 0
    return this.li[x] > this.li[y]
  }

  /** Merges the ordered events [from, mid) and [mid, to) in place (through the scratch space at from - a). */
  private merge(from: number, mid: number, to: number, a: number): void {
    const e = this.e
    const li = this.li
    const out = this.scratch
    const outLabels = this.scratchLabels
    let i = from
    let j = mid
    let k = from - a
    while (i < mid || j < to) {
      // the left one among equals: events still tied keep their order
      const x = j >= to || (i < mid && !this.after(i, j)) ? i++ : j++
      out[2 * k] = e[2 * x]
      out[2 * k + 1] = e[2 * x + 1]
      if (li !== null) outLabels[k] = li[x]
      k++
    }
    e.set(out.subarray(2 * (from - a), 2 * (to - a)), 2 * from)
    if (li !== null) li.set(outLabels.subarray(from - a, to - a), from)
  }
}
