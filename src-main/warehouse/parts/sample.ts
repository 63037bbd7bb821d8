/** A property's values in the rows of a scope, counted (the values a filter editor offers). */
export interface ValueCountsQuery {
  /** The property as SQL over the scope's row. */
  value: string
  /** The scope: `<table> AS e<sample> <joins> WHERE <condition>`. */
  from: string
  /** The values a row gives, as SQL over its value `x` (a list: each element a row). */
  spread: string
  /** The condition a value `v` must meet to be listed ('' for none); NULL and the whole row are always kept. */
  match: string
  /** Rows at most. */
  limit: number
}

/** Sampling: stable samples of users, and quick samples of a table's rows. */
export interface SamplePart {
  /**
   * Whether the user `id` belongs to a stable sample of `factor` (0..1] of all users: the same
   * users every time (a hash of the id); `true` for 1.
   */
  userSample(factor: number, id: string): string
  /** The clause after a table name that reads about `percent` % of its rows ('' for 100). */
  tableSample(percent: number): string
  /**
   * The rows (v, whole, n, total) of a property's values in one read of the scope (one sample):
   * first the whole row (whole = 1, total = the scope's rows before a list is spread), then the NULL
   * group, then the values meeting `match`: count down, value up.
   */
  valueCounts(q: ValueCountsQuery): string
}
