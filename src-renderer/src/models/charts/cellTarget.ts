import type { AnalysisKind } from '../../api/analysis'
import type { CellCoordinatesOf } from '../../api/cellUsers'

/**
 * A cell whose users the panel lists (POST /uba/api/{analysis}/users with the analysis body and
 * `cell`). Apart from cells.ts so that the event cells (eventCells.ts) stay free of the stores.
 */

export interface CellChoice<K extends AnalysisKind = AnalysisKind> {
  label: string
  cell: CellCoordinatesOf[K]
  /** The figure the table shows for it, which the count must equal; null when it counts no users. */
  figure: number | null
}

interface TargetOf<K extends AnalysisKind> {
  kind: K
  title: string
  /** The row: "Platform: iOS", a cohort day, or '' for all users. */
  segment: string
  choices: CellChoice<K>[]
  /** The cohort name offered on "Save as cohort". */
  name: string
}

/** A cell of one of the analyses, its coordinates of that analysis. */
export type CellTarget = { [K in AnalysisKind]: TargetOf<K> }[AnalysisKind]
