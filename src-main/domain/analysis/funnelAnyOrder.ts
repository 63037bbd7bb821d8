import type { CountPath, DeepestPaths } from './funnelEntries'
import { STEP_BITS, stepsOf } from './funnelRows'

/** Room for following one user's paths in any order: by step, the path's events and the next match. */
export interface AnyOrderPaths {
  path: Int32Array
  next: Int32Array
}

export function anyOrderPaths(steps: number): AnyOrderPaths {
  return { path: new Int32Array(steps), next: new Int32Array(steps) }
}

/**
 * The paths in any order over the ordered events a..b-1 of `e` (funnelPaths.ts's layout): from
 * each step's event inside the range (the anchor), step k's event is the first at or after it
 * matching step k (one pointer per step, moving forward only); the path reaches step k when steps
 * 0..k all have one inside the window. Only an anchor on its own path counts (another anchor
 * starts the same path at its first event), the earliest among equals. `count` gets the deepest
 * path of each entry day, then of the range (funnelEntries.ts), as the ordered walk gives them.
 */
export function walkAnyOrder(e: Float64Array, a: number, b: number, windowMicros: number, room: AnyOrderPaths, deepest: DeepestPaths, count: CountPath): void {
  const { path, next } = room
  const s = path.length
  next.fill(a - 1)
  deepest.begin()
  for (let i = a; i < b; i++) {
    const md = e[2 * i + 1]
    if (stepsOf(md) === 0) continue
    const slot = md >>> STEP_BITS
    if (slot === 0) continue
    const end = e[2 * i] + windowMicros
    let depth = 0
    let anchored = false
    for (let k = 0; k < s; k++) {
      let j = next[k]
      if (j < i) {
        const bit = 1 << k
        j = i
        while (j < b && (stepsOf(e[2 * j + 1]) & bit) === 0) j++
        next[k] = j
      }
      if (j >= b || e[2 * j] > end) break
      path[k] = j
      anchored ||= j === i
      depth++
    }
    if (!anchored) continue
    deepest.entry(slot, path, depth, count)
  }
  deepest.end(count)
}
