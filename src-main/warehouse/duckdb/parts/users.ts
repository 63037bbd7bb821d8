import type { UsersPart } from '../../parts/users'

const filtered = (agg: string, where?: string) => (where === undefined ? agg : `${agg} FILTER (WHERE ${where})`)

/** Bitmaps are BITSTRINGs: bitstring_agg sets one bit per id, bit_count counts them. */
export const users: UsersPart = {
  distinctCount: (expr, where) => filtered(`count(DISTINCT ${expr})`, where),
  bitmapOf: (id, where) => filtered(`bitstring_agg(${id})`, where),
  bitmapIn: (id, max) => `bitstring_agg(CAST(${id} AS INTEGER), 0, ${max})`,
  bitmapCount: (bitmap) => `bit_count(${bitmap})`,
  bitmapAnd: (a, b) => `${a} & ${b}`,
  bitmapUnion: (bitmap) => `bit_or(${bitmap})`,
  bitmapsSpanIds: true,
  bitmapUsers: (id, where) => `COALESCE(bit_count(bitstring_agg(${id}) FILTER (WHERE ${where})), 0)`,
  columnStats: (column, table) => `(SELECT stats(${column}) FROM ${table} LIMIT 1)`,
  approxDistinct(stats) {
    // stats() is text; an empty table has no statistics row
    const approx = typeof stats === 'string' ? /Approx Unique: (\d+)/.exec(stats) : null
    return approx ? Number(approx[1]) : null
  },
  threads: () => `current_setting('threads')`,
}
