/**
 * The deepest paths of one user's entries (funnelPaths.ts, funnelAnyOrder.ts): per entry day and
 * over each range, counted when the day ends and when the user's events end. Entry days arrive as
 * slots (the day field of a placed event, 0: no entry day). Without compare a slot is the answer's
 * column. With compare both ranges are followed in one pass (funnels.ts followPaths): a path from
 * an entry depends on the entry and the events after it only, never on the range, so each entry is
 * followed once and its day counts in the answer, the compared range, or both (ranges a week apart
 * share days).
 */

/** Where each slot's entries count. */
export interface EntryColumns {
  /** Per slot: its column in the answer (-1: not one of its days); the answer's whole range is column 0. */
  first: Int32Array
  /** Per slot: its column in the compared range (-1: not one of its days); null without compare. */
  second: Int32Array | null
  /** The compared range's whole-range column. */
  secondAll: number
}

/** Counts one user's path at a depth in a column. */
export type CountPath = (column: number, path: Int32Array, depth: number) => void

/** Slot s is column s of the answer: no compare. */
export function answerOnly(slots: number): EntryColumns {
  return { first: Int32Array.from({ length: slots }, (_, s) => s), second: null, secondAll: -1 }
}

export class DeepestPaths {
  private readonly dayPath: Int32Array
  private readonly allPath: Int32Array
  private readonly secondPath: Int32Array
  private daySlot = -1
  private dayDepth = 0
  private allDepth = 0
  private secondDepth = 0

  constructor(steps: number, private readonly columns: EntryColumns) {
    this.dayPath = new Int32Array(steps)
    this.allPath = new Int32Array(steps)
    this.secondPath = new Int32Array(steps)
  }

  /** Before a user's (or a value's) entries. */
  begin(): void {
    this.daySlot = -1
    this.dayDepth = 0
    this.allDepth = 0
    this.secondDepth = 0
  }

  /** An entry on `slot` whose path reaches `depth` (entries come in time order); the first among equals is kept. */
  entry(slot: number, path: Int32Array, depth: number, count: CountPath): void {
    if (slot !== this.daySlot) {
      if (this.daySlot > 0) this.countDay(count)
      this.daySlot = slot
      this.dayDepth = 0
    }
    if (depth > this.dayDepth) {
      this.dayDepth = depth
      for (let k = 0; k < depth; k++) this.dayPath[k] = path[k]
    }
    if (depth > this.allDepth && this.columns.first[slot] >= 0) {
      this.allDepth = depth
      for (let k = 0; k < depth; k++) this.allPath[k] = path[k]
    }
    const second = this.columns.second
    if (second !== null && depth > this.secondDepth && second[slot] >= 0) {
      this.secondDepth = depth
      for (let k = 0; k < depth; k++) this.secondPath[k] = path[k]
    }
  }

  /** After the entries: the last day, then each range's deepest path. */
  end(count: CountPath): void {
    if (this.daySlot > 0) this.countDay(count)
    if (this.allDepth > 0) count(0, this.allPath, this.allDepth)
    if (this.secondDepth > 0) count(this.columns.secondAll, this.secondPath, this.secondDepth)
  }

  private countDay(count: CountPath): void {
    const first = this.columns.first[this.daySlot]
    if (first >= 0) count(first, this.dayPath, this.dayDepth)
    const second = this.columns.second?.[this.daySlot] ?? -1
    if (second >= 0) count(second, this.dayPath, this.dayDepth)
  }
}
