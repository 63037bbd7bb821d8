import type { SamplePart } from '../../parts/sample'

/** DuckDB's hash of a BIGINT (MurmurHash64's finaliser), so a sample holds the same users on both engines. */
const M = '15485907386658061715'
const mix = (x: string) => `bitXor(${x}, bitShiftRight(${x}, 32))`

export function duckdbHash(id: string): string {
  const h0 = mix(`toUInt64(${id})`)
  const h1 = mix(`(${h0} * ${M})`)
  return mix(`(${h1} * ${M})`)
}

/**
 * The user sample is DuckDB's rule exactly: `hash(id) % 10000 < factor * 10000` with DuckDB's hash
 * of a 64-bit integer written out (UInt64 products wrap as in C). A table sample (SAMPLE) needs a
 * SAMPLE BY key in the table's definition, which the event table has not: every row is read, so
 * the values a quick look lists are exact, not estimated.
 */
export const sample: SamplePart = {
  userSample: (factor, id) => (factor >= 1 ? '1' : `(${duckdbHash(id)} % 10000) < ${Math.round(factor * 10000)}`),
  tableSample: () => '',
  // 18.16 has no window functions and no GROUPING SETS: the scope is read twice (every row: no sample
  // to keep the same), the whole row counted apart and put under UNION ALL
  valueCounts: (q) => `
    SELECT v, whole, n, total FROM (
      SELECT v, toUInt8(0) AS whole, count() AS n, toUInt64(0) AS total
      FROM (SELECT ${q.spread} AS v FROM (SELECT ${q.value} AS x FROM ${q.from}))
      GROUP BY v
      UNION ALL
      SELECT NULL, toUInt8(1), toUInt64(0), count() FROM ${q.from}
    )
    WHERE whole = 1 OR v IS NULL OR (1${q.match ? ` AND ${q.match}` : ''})
    ORDER BY whole DESC, v IS NOT NULL, n DESC, v
    LIMIT ${q.limit}`,
}
