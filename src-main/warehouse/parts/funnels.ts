/** The funnel scan's statement shape (domain/analysis/funnelSql.ts): its rows with a label dictionary. */

export interface LabelledRows {
  /** A subquery of the candidate rows, with a column `lab` (a label, a list of labels, or NULL). */
  rows: string
  /** Whether a row's label counts (it is of the breakdown's step), on the columns of row alias `at` ('' or 'c.'). */
  counted: (at: string) => string
  /** The columns read of each kept row, of row alias `c` (before `li` and `lab`). */
  columns: string
  /** Which rows are kept (row alias `c`). */
  keep: string
  /** The columns of a dictionary row before `li` and `lab` (uid -1, ...). */
  dictionary: string
  /** Whether `lab` is a list (an array property broken down by element). */
  list: boolean
}

export interface FunnelsPart {
  /** `value` compared with each branch's `when` in turn: the first equal one's `then`, else `otherwise`. */
  caseOf(value: string, branches: [when: string, then: string][], otherwise: string): string
  /** The 1-based place of `value` among `values` (the first equal one), 0 when none is equal. */
  positionIn(values: string[], value: string): string
  /** A row's label where `condition` holds, else none (NULL; an empty list for a `list` label). */
  labelWhere(condition: string, label: string, list: boolean): string
  /**
   * The kept rows of `rows`, each with `li`: the 0-based number of its label among the distinct
   * non-NULL labels of the rows where `counted` holds, in label order (-1 where `counted` does not
   * hold or the row has no label), and `lab` none (labelWhere's); then one dictionary row per such
   * label: `dictionary`, its number, the label.
   */
  labelledRows(q: LabelledRows): string
}
