/** Aggregates over a condition, named subqueries and grouping sets: the analyses' statement shapes. */

/** The aggregates taken over the rows where a condition holds. */
export type ConditionalAggregate = 'count' | 'sum' | 'avg' | 'max' | 'min'

/** One measure rolled up from partial aggregates (AggregatesPart.rollUp), named `name`. */
export interface RolledUp {
  name: string
  /** Its value in one row of the partials. */
  period: string
  /** An aggregate over a group's rows of partials; over one row it gives `period`. */
  whole: string
}

/** A named subquery of a statement; `sql` reads the other names through `from`. */
export interface NamedQuery {
  name: string
  /** Computed once and reused (DuckDB's MATERIALIZED). */
  materialized?: boolean
  sql(from: (name: string, alias?: string) => string): string
}

export interface AggregatesPart {
  /** A condition that always (true) or never (false) holds. */
  truth(value: boolean): string
  /**
   * `fn` of `value` over the rows where `condition` holds; `count` of `*` counts those rows, of a
   * value its non-NULL values. NULL where no row counts (but `count`: 0).
   */
  aggregateWhere(fn: ConditionalAggregate, value: string, condition: string): string
  /** `fn` of the non-NULL values of `value` over the group's rows; NULL where there is none (DuckDB's plain aggregates). */
  aggregate(fn: Exclude<ConditionalAggregate, 'count'>, value: string): string
  /**
   * A statement over named subqueries: `main` and each query name a table by `from(name)`, or
   * `from(name, alias)` to read it under another name (a FROM item, `arrivals a`).
   */
  withQueries(queries: NamedQuery[], main: (from: (name: string, alias?: string) => string) => string): string
  /**
   * The aggregates `items` over the rows of `from` (a FROM … WHERE …) grouped by `dims` and
   * `period`, then by `dims` alone, a column `whole` telling them apart (0, 1; `period` NULL or
   * not read in the second).
   */
  periodsAndWhole(dims: string[], period: string, items: string[], from: string): string
  /**
   * The same rows from partial aggregates: `per` (a FROM item) holds one row per `dims` and
   * `period`; each item is its `period` value per row (`whole` 0) and its `whole` aggregate per
   * `dims` (`whole` 1, `period` NULL).
   */
  rollUp(dims: string[], period: string, items: RolledUp[], per: string): string
}
