import type { NumbersPart } from '../../parts/numbers'

/**
 * Arithmetic. Bit operations widen to Int64 first: ClickHouse keeps a literal's narrow type
 * (bitShiftLeft(1, 40) on a UInt8 is 0), DuckDB computes in the integer type of its operands.
 * `range` takes one argument on 18.16, so a series is shifted by an arrayMap whose bound is also
 * used outside the lambda (18.16 reads a column used only inside a lambda as missing); lambda
 * parameters are named `_uba_*`, as 18.16 replaces one named like an alias of the query by it.
 */
const int64 = (x: string | number) => `toInt64(${x})`
const count = (from: string, to: string) => `toUInt64(greatest(0, (${to}) - (${from})))`

export const numbers: NumbersPart = {
  intDiv: (a, b) => `intDiv(${a}, ${b})`,
  bitOr: (values) => values.map(int64).reduce((a, b) => `bitOr(${a}, ${b})`),
  bitAnd: (a, b) => `bitAnd(${int64(a)}, ${b})`,
  shiftLeft: (a, n) => `bitShiftLeft(${int64(a)}, ${n})`,
  shiftRight: (a, n) => `bitShiftRight(${int64(a)}, ${n})`,
  // bit_or of no rows is NULL in DuckDB, 0 in ClickHouse; 18.16's groupBitOr takes unsigned integers only
  bitOrAgg: (a) => `if(count(${a}) = 0, NULL, toInt64(groupBitOr(toUInt64(${a}))))`,
  series: (from, to) => `arrayMap(_uba_i -> toInt64(_uba_i) + (${from}), range(${count(from, to)}))`,
  seriesTable: (from, to, name, column) => `(SELECT arrayJoin(arrayMap(_uba_i -> toInt64(_uba_i) + (${from}), range(${count(from, to)}))) AS ${column}) AS ${name}`,
  // DuckDB's quantile_disc: the value at 1-based position ceil(n * q) of the sorted values (at least 1)
  quantile: (v, q) => `if(count(${v}) = 0, NULL, arrayElement(arraySort(groupArray(${v})), toUInt64(greatest(1, ceil(count(${v}) * ${q})))))`,
  // bool_and of no rows is NULL
  every: (condition) => `if(count(${condition}) = 0, NULL, min(${condition}))`,
}
