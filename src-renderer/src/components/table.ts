/** A DataTable column: `sort` makes it sortable; a `cell-<key>` slot renders its cells (else the row's field). */
export interface TableColumn<R> {
  key: string
  label: string
  /** A CSS width; columns without one share the rest. */
  width?: string
  align?: 'left' | 'right'
  sort?: (row: R) => string | number
  mono?: boolean
  /** Long text wraps onto more lines instead of being cut with an ellipsis. */
  wrap?: boolean
}
