/** The fields of a record's problem (see LoadsPart.problem). */
export type ProblemField = 'property' | 'value' | 'reason'

/**
 * What the loads write beside the records' parse (domain/ingest: norm.ts, problems.ts,
 * profiles.ts, alias.ts, uploadBatches.ts, uploadGroups.ts, jobs.ts): the problem a check gives a
 * record, the aggregates of the profile operations, and the few statements whose spelling is the
 * engine's own.
 */
export interface LoadsPart {
  /**
   * A record's problem as one value of three texts: `property` and `reason` plain texts (the
   * dialect quotes them), `value` an SQL expression of text.
   */
  problem(property: string, value: string, reason: string): string
  /** No problem: NULL of the problem's type. */
  noProblem(): string
  /** A list of problems (SQL expressions, each a problem or NULL) without its NULLs. */
  problemList(problems: string[]): string
  /** No list of problems: NULL of the list's type. */
  noProblems(): string
  /** One field of a problem. */
  problemField(problem: string, field: ProblemField): string
  /** Aggregate: whether any row's condition holds (NULL when no row has one). */
  anyTrue(condition: string): string
  /** Aggregate: the value of the row last by `order` (columns) among the rows where it is not NULL. */
  lastPresent(value: string, order: string[]): string
  /** Aggregate: the value of the row first by `order` among the rows where it is not NULL. */
  firstPresent(value: string, order: string[]): string
  /** Aggregate: the lists of the rows where it is not NULL, joined into one in `order`. */
  joinListsInOrder(list: string, order: string[]): string
  /** A list with the items of `more` after its own. */
  appendList(list: string, more: string): string
  /** The empty list of texts. */
  emptyList(): string
  /** A statement that renames a table (checked names). */
  renameTable(from: string, to: string): string
  /**
   * The statement that folds what was just rewritten into the tables' storage, so that scans do
   * not pay for it (after a load rewrote stored rows).
   */
  compact(): string
  /** The statements that make the connection's running statement report its progress. */
  reportProgress(): string[]
}
