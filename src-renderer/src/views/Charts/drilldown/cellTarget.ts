import type { AnalysisKind } from '../../../api/analysis'
import type { CellCoordinates } from '../../../api/cellUsers'

/**
 * A cell whose users the panel lists (POST /uba/api/{analysis}/users with the analysis body and
 * `cell`). Apart from cells.ts so that the event cells (eventCells.ts) stay free of the stores.
 */

export interface CellChoice {
  label: string
  cell: CellCoordinates
  /** The figure the table shows for it, which the count must equal; null when it counts no users. */
  figure: number | null
}

export interface CellTarget {
  kind: AnalysisKind
  title: string
  /** The row: "Platform: iOS", a cohort day, or '' for all users. */
  segment: string
  choices: CellChoice[]
  /** The cohort name offered on "Save as cohort". */
  name: string
}
