/** Arithmetic whose spelling differs between engines. */
export interface NumbersPart {
  /** Integer division of integers, rounding down (SQL text of both). */
  intDiv(a: string, b: string | number): string
  /** Bitwise OR of integers. */
  bitOr(values: string[]): string
  /** Bitwise AND of two integers. */
  bitAnd(a: string, b: string | number): string
  /** `a` shifted left by `n` bits. */
  shiftLeft(a: string, n: string | number): string
  /** `a` shifted right by `n` bits. */
  shiftRight(a: string, n: string | number): string
  /** Aggregate: the bitwise OR of a group's integers. */
  bitOrAgg(a: string): string
  /** The list of integers from..to-1 (SQL). */
  series(from: string, to: string): string
  /** A relation `name(column)` of the integers from..to-1, for a FROM list. */
  seriesTable(from: string, to: string, name: string, column: string): string
  /** Aggregate: the value at quantile `q` (0..1) of `v`, one of its values (discrete). */
  quantile(v: string, q: number): string
  /** Aggregate: whether `condition` holds on every row. */
  every(condition: string): string
}
