/** Lists (array<string> properties). */
export interface ArraysPart {
  /** A list literal of SQL items. */
  list(items: string[]): string
  /** A bound list of numbers (one placeholder) as a list of doubles. */
  numberList(placeholder: string): string
  /** Whether list `list` shares an element with list literal `items`. */
  hasAny(list: string, items: string): string
  /** Whether some element `x` of `list` satisfies `test(x)` (NULL for a NULL list). */
  some(list: string, test: (x: string) => string): string
  /**
   * Whether a list is missing (`missing` true) or there (false): DuckDB's NULL list. ClickHouse keeps
   * no NULL list (a missing one is []), so there an empty list counts as missing.
   */
  listMissing(list: string, missing: boolean): string
  /** Each element `x` of `list` mapped by `map(x)`. */
  map(list: string, map: (x: string) => string): string
  /** The list itself, or a list of one NULL string when it is empty or NULL (each row keeps a label). */
  orNullElement(list: string): string
  /** The distinct elements of a list. */
  distinctElements(list: string): string
  /** The number of elements of a list. */
  length(list: string): string
  /** One row per element of a list (in a SELECT list). */
  unnest(list: string): string
  /** Aggregate: the distinct non-NULL values as a list. */
  collectDistinct(expr: string, where: string): string
  /** Aggregate: the lists of a group concatenated. */
  concatLists(expr: string, where: string): string
}
