import { setImmediate as yieldToRequests } from 'node:timers/promises'
import type { ScanChunk } from '../../warehouse'

/**
 * One part of the users' scan (funnelScanSql: uid, t, md[, li, lab]) as plain columns, what a
 * path-following thread receives (funnelThreads.ts): their buffers are moved to the thread, not
 * copied. The label dictionary's rows (uid -1) stay among the rows (the follower skips them); their
 * labels come apart, as `labels[li]`: the label's elements (one, or an array property's), null
 * for a missing value.
 */
export interface FunnelPart {
  uid: Int32Array
  t: Float64Array
  md: Float64Array
  li: Int32Array | null
  labels: (string | null)[][]
  /** The part's uids are below `users`; uid 0 is distinct_id `firstUser`. */
  users: number
  firstUser: number
}

/**
 * The longest stretch of taking out and copying chunks between two turns of the event loop, in ms:
 * 64 chunks a turn held /health for up to 200 ms; 8 a turn let it in, but a /health polled back to
 * back then took so many turns that the funnel ran half as fast again.
 */
const TURN_MS = 10

/** Lets other requests in once the current turn has run TURN_MS. */
function turns(): () => Promise<void> {
  let start = performance.now()
  return async () => {
    if (performance.now() - start < TURN_MS) return
    await yieldToRequests()
    start = performance.now()
  }
}

/** A label of the dictionary: its elements as text. */
function elementsOf(value: unknown): (string | null)[] {
  return (Array.isArray(value) ? value : [value]).map((e) => (e === null ? null : String(e)))
}

/** A part's chunks as one set of columns, letting other requests in between. */
export async function packPart(chunks: ScanChunk[], labelled: boolean, users: number, firstUser: number): Promise<FunnelPart> {
  // a chunk is taken out of the engine's result when first read (Warehouse.scan): on this thread
  const between = turns()
  let size = 0
  for (let c = 0; c < chunks.length; c++) {
    size += chunks[c].rowCount
    await between()
  }
  const part: FunnelPart = { uid: new Int32Array(size), t: new Float64Array(size), md: new Float64Array(size), li: labelled ? new Int32Array(size) : null, labels: [], users, firstUser }
  let rows = 0
  for (let c = 0; c < chunks.length; c++) {
    const chunk = chunks[c]
    const uid = chunk.ints(0)
    part.uid.set(uid, rows)
    part.t.set(chunk.doubles(1), rows)
    part.md.set(chunk.doubles(2), rows)
    if (part.li !== null) {
      part.li.set(chunk.ints(3), rows)
      for (let i = 0; i < uid.length; i++) if (uid[i] < 0) part.labels[Number(chunk.value(3, i))] = elementsOf(chunk.value(4, i))
    }
    rows += chunk.rowCount
    await between()
  }
  return part
}
