/**
 * What a data generator needs (the sample shop, domain/ingest/sample): reproducible uniform draws,
 * picks by weight from small lookup tables, epoch seconds and instants, and the settings of one
 * large write.
 */
export interface GeneratorPart {
  /**
   * A uniform draw in [0, 1) for the row whose integer identity is `id` (SQL), in the stream
   * `stream` (a 64-bit constant that tells the decisions apart): the same inputs give the same
   * draw on every run and thread count.
   */
  uniform(stream: bigint, id: string): string
  /**
   * A statement that (re)creates the temp lookup table `name` of `columns` (SQL literal texts in
   * `rows`, each row with its weight): with `i` (the row's position), `cum` (the share of the
   * total weight before the row, within `partition` when given) and `share` (its own share).
   */
  weightedTable(name: string, columns: string[], rows: { values: string[]; weight: number }[], partition?: string): string
  /**
   * A join clause that picks, for each row, the row of weighted table `table` (as `alias`) whose
   * range of `cum` holds the draw `draw` (SQL), among the rows where `match` holds when given.
   */
  pickJoin(table: string, alias: string, draw: string, match?: string): string
  /** The element at 1-based position `index` (SQL) of list `list` (SQL). */
  item(list: string, index: string): string
  /** Seconds since the epoch (a fractional number) of an instant. */
  epochSeconds(instant: string): string
  /** The instant `seconds` (SQL, fractional) after the epoch. */
  instantAt(seconds: string): string
  /**
   * Statements around one large generated write: `before` tunes the storage for it, `after`
   * undoes that (run even when the write failed).
   */
  bulkWrite(): { before: string[]; after: string[] }
  /** A statement that drops temp table `name` if it exists. */
  dropTempTable(name: string): string
}
