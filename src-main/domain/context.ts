import type { MetaDb } from '../store/meta'
import type { Dialect } from '../warehouse/dialect'
import type { ProjectWarehouses } from '../warehouse/router'
import type { Background } from './background'

/** What every domain function works on: the two stores and the background runner. */
export interface DomainContext {
  meta: MetaDb
  /** Every project's warehouse, each on its engine (the data folder's DuckDB, or a ClickHouse server). */
  warehouse: ProjectWarehouses
  background: Background
  /** The product version reported as a project's `version`. */
  version: string
  /** The data folder (uploads are kept under it while they are imported). */
  dataDir: string
  /** Folders imports by path may read besides the setting's, for this run (`serve --import-root`). */
  importRoots?: string[]
  /** Threads following funnel paths (analysis/funnelThreads.ts); absent or 0: one per core. */
  analysisThreads?: number
  /** Files the user chose in the desktop app's open dialog during this run (real paths): importable by path too. */
  chosenFiles?: Set<string>
}

/** The account that performs an operation (`loginUser`), or null when the API itself does. */
export interface Operator {
  id: number
  email: string
}

/** The SQL text of the engine the project's warehouse runs on. */
export function dialectOf(ctx: DomainContext, scope: { appKey: string }): Dialect {
  return ctx.warehouse.dialectOf(scope.appKey)
}
