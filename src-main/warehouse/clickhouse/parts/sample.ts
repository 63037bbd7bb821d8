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
}
