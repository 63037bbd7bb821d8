/**
 * The layout of the funnel's rows (funnelSql.ts writes them, funnelPaths.ts follows them): the
 * steps and the day packed in one number, and the counting sort that groups a part's rows by user.
 */

/**
 * `md` of the scan (funnelSql.ts): the steps in its low 20 bits, the entry day above them
 * (its key - the key of fromDate's ds + 1, funnelSql.ts entryDays; 0 past toDate). Placed events keep the
 * day's column (or slot, funnelEntries.ts) there instead (at most MAX_SLOTS), so that its low 32 bits read with integer operations. With
 * exclusions, the spans a row stops (bit k: between steps k and k+1, at most 19 bits) sit above
 * bit 32: integer operations do not see them, and the value stays exact (below 2^53).
 */
export const STEP_BITS = 20
export const STEP_SPAN = 2 ** STEP_BITS
const STEP_MASK = STEP_SPAN - 1
export const SPAN_AT = 2 ** 32
/** The most columns (or slots) of entry days a placed event can carry: 12 bits. */
export const MAX_SLOTS = 2 ** (32 - STEP_BITS) - 1

export function stepsOf(md: number): number {
  return md & STEP_MASK
}

/** The spans an exclusion event stops (0 for other events). */
export function spansOf(md: number): number {
  return md < SPAN_AT ? 0 : Math.floor(md / SPAN_AT)
}

/** An event as an other event only: its spans kept, its steps and day dropped. */
export function withoutSteps(md: number): number {
  return md < SPAN_AT ? 0 : Math.floor(md / SPAN_AT) * SPAN_AT
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

/**
 * Copies a chunk's events to their users' places (a counting sort's second pass), each day as its
 * column. Without exclusions (`spanned` false) the day may reach past bit 32 (funnelSql.ts entryDays).
 * With `codes` (funnelSql.ts eventCodes) md's low part is an event's code: its steps and spans are
 * codes[code], and the rows carry no spans.
 */
export function placeEvents(uid: Int32Array, place: Int32Array, t: Float64Array, md: Float64Array, li: Int32Array | null, columnOfDay: Int32Array, events: Float64Array, labels: Int32Array, spanned: boolean, codes: Float64Array | null = null): void {
  if (codes !== null) {
    for (let i = 0; i < uid.length; i++) {
      const u = uid[i]
      if (u < 0) continue
      const at = place[u]++
      const v = md[i]
      const day = (v / STEP_SPAN) | 0
      events[2 * at] = t[i]
      events[2 * at + 1] = codes[v - day * STEP_SPAN] + columnOfDay[day] * STEP_SPAN
    }
    return
  }
  for (let i = 0; i < uid.length; i++) {
    const u = uid[i]
    if (u < 0) continue
    const at = place[u]++
    let v = md[i]
    const spans = !spanned || v < SPAN_AT ? 0 : Math.floor(v / SPAN_AT) * SPAN_AT
    v -= spans
    const day = (v / STEP_SPAN) | 0
    events[2 * at] = t[i]
    events[2 * at + 1] = spans + columnOfDay[day] * STEP_SPAN + (v - day * STEP_SPAN)
    if (li !== null) labels[at] = li[i]
  }
}
