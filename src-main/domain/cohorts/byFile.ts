import { currentTime } from '../time/clock'
import type { DomainContext, Operator } from '../context'
import { badParam } from '../errors'
import { recordOperation } from '../project/operations'
import type { ProjectScope } from '../project/scope'
import { findUserProperty } from '../schema/planRows'
import { withWriteLock } from '../writeLock'
import { dropMembers, materialise, newRun } from '../userSets/cohortCompute'
import { readColumns, type SheetFile } from '../userSets/sheet'
import { insertCohort } from './store'
import { checkName } from '../userSets/records'

/**
 * Cohorts from a file (spec 4.5 byfile): one column of values; the members are the users whose
 * `property` (a string user property, default xwho) equals one of them exactly. The first row is
 * a header, and left out, when it equals the property id or its display name (case-insensitive).
 * The cohort is static; the values are kept, so recalculate matches them again against new data.
 * It is computed before the answer, which counts the matched and unmatched distinct values.
 */

export interface FileCohortInput {
  name: unknown
  property?: unknown
  file: SheetFile | null
}

export interface FileCohort {
  id: number
  code: string
  name: string
  dynamic: 0
  userNumber: number
  matched: number
  unmatched: number
}

function propertyOf(ctx: DomainContext, appKey: string, value: unknown): { id: string; name: string | null } {
  if (value === undefined || value === '') value = 'xwho'
  if (typeof value !== 'string') throw badParam('property', 'property must be a user property id')
  const row = findUserProperty(ctx.meta, appKey, value.toLowerCase())
  if (!row) throw badParam('property', `property: ${value} is not a user property of this project`)
  if (row.data_type !== 'string') throw badParam('property', `property: ${value} is a ${row.data_type} property; a file cohort matches string properties only`)
  return { id: row.id, name: row.name }
}

/** The distinct values of a one-column file, without a header row naming the property. */
export function fileValues(file: SheetFile | null, property: { id: string; name: string | null }): string[] {
  if (!file) throw badParam('file', 'file is required: an Excel or CSV file with one column of values')
  const rows = readColumns(file, 1).map((r) => r[0])
  const header = rows[0]?.toLowerCase()
  if (header !== undefined && (header === property.id.toLowerCase() || header === property.name?.toLowerCase())) rows.shift()
  const values = [...new Set(rows)]
  if (values.length === 0) throw badParam('file', 'the file holds no values')
  return values
}

export async function createFileCohort(ctx: DomainContext, scope: ProjectScope, input: FileCohortInput, operator: Operator | null): Promise<FileCohort> {
  const name = checkName(input.name)
  const property = propertyOf(ctx, scope.appKey, input.property)
  const values = fileValues(input.file, property)
  return createValuesCohort(ctx, scope, { name, property: property.id, values, operation: 'cohort.byfile' }, operator)
}

/**
 * A static cohort of the users whose `property` equals one of `values` (kept, as a file's are),
 * computed before the answer. The file cohorts, and the users behind an analysis cell (their xwho).
 */
export async function createValuesCohort(
  ctx: DomainContext,
  scope: ProjectScope,
  { name, property, values, operation }: { name: string; property: string; values: string[]; operation: string },
  operator: Operator | null,
): Promise<FileCohort> {
  const now = currentTime()
  const row = ctx.meta.transaction(() => {
    const inserted = insertCohort(ctx.meta, scope.appKey, { name, dynamic: false, source: 'file', content: null, fileProperty: property, operator, now })
    const add = ctx.meta.prepare('INSERT INTO cohort_file_values (cohort_id, value) VALUES (?, ?)')
    for (const value of values) add.run(inserted.id, value)
    return inserted
  })()
  const run = newRun(ctx.meta, row.id, now)
  try {
    const outcome = await materialise(ctx, row.id, run, now)
    if (!outcome) throw new Error(`cohort ${row.code} was overtaken while it was created`)
    recordOperation(ctx.meta, operator, operation, scope.appKey, row.code)
    const matched = outcome.matched ?? 0
    return { id: row.id, code: row.code, name: row.name, dynamic: 0, userNumber: outcome.userNumber, matched, unmatched: values.length - matched }
  } catch (err) {
    // nothing half made: the name is free again
    await withWriteLock(ctx, scope.appKey, async () => {
      ctx.meta.prepare('DELETE FROM cohorts WHERE id = ?').run(row.id)
      await dropMembers(ctx, scope, row.code)
    })
    throw err
  }
}
