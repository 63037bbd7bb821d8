import type { UsersPart } from '../../parts/users'

/** An aggregate over every row, or only where `where` holds (NULL counts as false, as FILTER does). */
const filtered = (agg: string, args: string, where?: string) => (where === undefined ? `${agg}(${args})` : `${agg}If(${args}, ${where})`)

/**
 * Distinct users, exactly. 18.16 has no bitmaps (groupBitmap is current-only), so a "bitmap" is
 * the sorted-free array of a group's distinct ids (groupUniqArray): counts, intersections and
 * unions stay exact; current versions could use groupBitmapState/bitmapAnd/bitmapCardinality.
 * Such an array holds a group's users only, so it fits whatever the groups (`bitmapsSpanIds`
 * false): the event analysis counts users per period with them and unions them over the range
 * (at 10M events as cheap as uniqExactState/Merge, measured) instead of hashing every event's user
 * twice. There are no cheap column statistics to read, so columnStats yields NULL.
 */
export const users: UsersPart = {
  distinctCount: (expr, where) => filtered('uniqExact', expr, where),
  bitmapOf: (id, where) => filtered('groupUniqArray', id, where),
  bitmapIn: (id) => `groupUniqArray(${id})`,
  bitmapCount: (bitmap) => `length(${bitmap})`,
  bitmapAnd: (a, b) => `arrayIntersect(${a}, ${b})`,
  bitmapUnion: (bitmap) => `groupUniqArrayArray(${bitmap})`,
  bitmapsSpanIds: false,
  bitmapUsers: (id, where) => `uniqExactIf(${id}, ${where})`,
  columnStats: () => 'NULL',
  approxDistinct: () => null,
  // max_threads reads 'auto(2)' on current versions and '2' on 18.16: its digits either way
  threads: () => `(SELECT toUInt64OrZero(extract(value, '\\\\d+')) FROM system.settings WHERE name = 'max_threads')`,
}
