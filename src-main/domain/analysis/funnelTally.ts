/**
 * The funnel's tally (funnelPaths.ts counts into it): per group (the total, or one label) the users
 * by column and depth, and the step times of their paths, whose medians are found by selection.
 */

/** Grows a typed array to hold at least `n` values, keeping the first `keep`. */
export function grown<A extends Int32Array | Float64Array>(array: A, n: number, make: (n: number) => A, keep = 0): A {
  if (array.length >= n) return array
  const bigger = make(Math.max(n, array.length * 2))
  bigger.set(array.subarray(0, keep))
  return bigger
}

/** The median of values[from, to) (the middle two averaged), by selection, reordering them. */
function medianOf(values: Float64Array, from: number, to: number): number | null {
  const n = to - from
  if (n <= 0) return null
  const k = from + (n >>> 1)
  let lo = from
  let hi = to - 1
  while (lo < hi) {
    const pivot = values[(lo + hi) >>> 1]
    let i = lo
    let j = hi
    while (i <= j) {
      while (values[i] < pivot) i++
      while (values[j] > pivot) j--
      if (i <= j) {
        const x = values[i]
        values[i++] = values[j]
        values[j--] = x
      }
    }
    if (k <= j) hi = j
    else if (k >= i) lo = i
    else break
  }
  const upper = values[k]
  if (n % 2 === 1) return upper
  // every value left of the upper middle is at most it: the lower middle is the largest of them
  let lower = -Infinity
  for (let i = from; i < k; i++) if (values[i] > lower) lower = values[i]
  return (lower + upper) / 2
}

/** A group's tally as plain data: users by depth per column, and the step times per list key. */
export interface GroupTallyParts {
  columns: number[]
  counts: Float64Array[]
  times: [number, Float64Array][]
}

/**
 * The tally of one group (the total, or one label): users by column and depth, and the step
 * times of their paths by column and step. Stored sparsely, by column: a breakdown with thousands
 * of labels fills few columns of most.
 */
export class GroupTally {
  /** Per column: users by depth (at depth - 1). */
  private readonly counts: (Float64Array | undefined)[] = []
  /** Per column * steps + k: the times from step k-1 to step k, the first `sizes[key]` of the list. */
  private readonly lists: (Float64Array | undefined)[] = []
  private readonly sizes: number[] = []

  constructor(private readonly steps: number) {}

  count(column: number, depth: number): void {
    ;(this.counts[column] ??= new Float64Array(this.steps))[depth - 1]++
  }

  addTime(column: number, k: number, seconds: number): void {
    const key = column * this.steps + k
    const size = this.sizes[key] ?? 0
    let list = this.lists[key]
    if (list === undefined || size === list.length) {
      list = grown(list ?? new Float64Array(0), size + 1, (n) => new Float64Array(Math.max(n, 16)), size)
      this.lists[key] = list
    }
    list[size] = seconds
    this.sizes[key] = size + 1
  }

  /** The tally as plain data (its own buffers, which may be moved to another thread). */
  parts(): GroupTallyParts {
    const columns: number[] = []
    const counts: Float64Array[] = []
    this.counts.forEach((byDepth, column) => {
      if (!byDepth) return
      columns.push(column)
      counts.push(byDepth.slice())
    })
    const times: [number, Float64Array][] = []
    this.lists.forEach((list, key) => list && times.push([key, list.slice(0, this.sizes[key])]))
    return { columns, counts, times }
  }

  /** Adds another follower's tally of the same funnel (other users): the counts summed, the times joined. */
  absorb(other: GroupTallyParts): void {
    other.columns.forEach((column, i) => {
      const byDepth = (this.counts[column] ??= new Float64Array(this.steps))
      other.counts[i].forEach((n, d) => (byDepth[d] += n))
    })
    for (const [key, values] of other.times) {
      const size = this.sizes[key] ?? 0
      const list = grown(this.lists[key] ?? new Float64Array(0), size + values.length, (n) => new Float64Array(n), size)
      list.set(values, size)
      this.lists[key] = list
      this.sizes[key] = size + values.length
    }
  }

  /** The columns with anyone entered: the users who reached each step, and the median time of each step. */
  *columns(): Generator<{ column: number; counts: number[]; medians: (number | null)[] }> {
    for (const [column, byDepth] of this.counts.entries()) {
      if (!byDepth) continue
      let reached = 0
      const counts: number[] = []
      for (let k = this.steps - 1; k >= 0; k--) counts[k] = reached += byDepth[k]
      const medians = counts.slice(1).map((_, k) => {
        const key = column * this.steps + k + 1
        const list = this.lists[key]
        return list ? medianOf(list, 0, this.sizes[key]) : null
      })
      yield { column, counts, medians }
    }
  }
}

