/**
 * The layout of the funnel's rows (funnelSql.ts writes them, funnelPaths.ts follows them): the
 * steps and the day packed in one number, and the counting sort that groups a part's rows by user.
 */

/**
 * `md` of the scan (funnelSql.ts): the steps in its low 20 bits, the entry day above them (ds -
 * fromDate's ds + 1; 0 past toDate). Placed events keep the day's column there instead (at most
 * MAX_RANGE_DAYS + 1 < 2^12), so that the pair's second value fits 32 bits and reads with integer
 * operations.
 */
export const STEP_BITS = 20
export const STEP_SPAN = 2 ** STEP_BITS
const STEP_MASK = STEP_SPAN - 1

export function stepsOf(md: number): number {
  return md & STEP_MASK
}

/** The spans an exclusion row stops (0 for a step row, and for a strict order's other events). */
export function spansOf(md: number): number {
  return (md & STEP_MASK) === 0 ? md / STEP_SPAN : 0
}

/** Counts the events of each user (at start[uid + 1]); returns how many rows were events. */
export function countUsers(uid: Int32Array, start: Int32Array): number {
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
export function placeEvents(uid: Int32Array, place: Int32Array, t: Float64Array, md: Float64Array, li: Int32Array | null, columnOfDay: Int32Array, events: Float64Array, labels: Int32Array): void {
  for (let i = 0; i < uid.length; i++) {
    const u = uid[i]
    if (u < 0) continue
    const at = place[u]++
    const day = (md[i] / STEP_SPAN) | 0
    const steps = md[i] - day * STEP_SPAN
    events[2 * at] = t[i]
    // a row with no steps (an exclusion's) keeps its spans where a step row keeps its day's column
    events[2 * at + 1] = steps === 0 ? md[i] : columnOfDay[day] * STEP_SPAN + steps
    if (li !== null) labels[at] = li[i]
  }
}
