import type { Warehouse } from '../../warehouse'
import type { Answer, RequestBody } from '../../../src-shared/contract'
import { dialectOf, type DomainContext, type Operator } from '../context'
import { alreadyExists, badParam } from '../errors'
import { recordOperation } from '../project/operations'
import { dataChanged } from '../project/dataVersion'
import { LockTimeout, withWriteLock } from '../writeLock'
import type { ProjectScope } from '../project/scope'
import { addFields, deleteTable, fieldRows, insertTable, removeFields, tableRow, tableRows, touchTable, type TableRow } from './dimensionMeta'
import { DIMENSION_LIMITS, parseColumns, parseRelations, prepareRows, tableName } from './dimensionRules'
import { addTableColumns, createTable, inTransaction, rowCount, tableKind, upsertRows, warehouseColumns } from './dimensionWarehouse'
import { asFlag } from '../../store/meta/flags'
import type { DataType } from './types'

/**
 * Dimension tables (spec 4.8): lookup tables a project uploads and joins by their relation fields.
 *
 * A write changes the warehouse in one DuckDB transaction, and only after its commit writes the
 * metadata in one SQLite transaction. The warehouse is the truth about which tables and columns
 * exist; when a metadata write fails after a commit, a failed create drops its table again, and
 * any other gap (columns without metadata, metadata of a dropped table) is repaired the next time
 * the table is read. Writes and reads of one project's dimension tables run one at a time, so a
 * reader never sees a write half done.
 */

/** A field record (spec 2.5). The route schemas are the source of these types. */
export type DimensionField = Answer<'/uba/api/project/dimensions/properties'>[number]

/** A table in the listing (UBA Desk addition). */
export type DimensionTableSummary = Answer<'/uba/api/project/dimensions'>[number]

export type NewDimensionTable = RequestBody<'/uba/api/project/dimensions'>

export type DimensionUpdate = RequestBody<'/uba/api/dimensions/update'>

/** Runs one project's dimension-table work in arrival order, under the project's write lock. */
function serialize<T>(ctx: DomainContext, appKey: string, work: () => Promise<T>): Promise<T> {
  return withWriteLock(ctx, appKey, work)
}

/**
 * A read: under the write lock when it is free, so that it may repair drifted metadata (see
 * describe); while a writer holds it (a long import), at once without repairing.
 */
function read<T>(ctx: DomainContext, appKey: string, work: (repair: boolean) => Promise<T>): Promise<T> {
  return withWriteLock(ctx, appKey, () => work(true), 0).catch((err: unknown) => {
    if (err instanceof LockTimeout) return work(false)
    throw err
  })
}

function noSuchTable(table: string) {
  return badParam('table', `dimension table ${table} does not exist`)
}

interface Described {
  table: TableRow
  fields: DimensionField[]
}

/**
 * The table's metadata and fields as the warehouse has them; null when it does not exist. Under
 * the write lock it also `repairs` the metadata where it drifted (a crash between the warehouse's
 * commit and the metadata's); without it, it only leaves the drift out.
 */
async function describe(ctx: DomainContext, conn: Warehouse, appKey: string, name: string, repair = true): Promise<Described | null> {
  const table = tableRow(ctx.meta, appKey, name)
  if (!table) return null
  const columns = await warehouseColumns(dialectOf(ctx, { appKey }), conn, name)
  if (!columns) {
    // its drop committed but the metadata delete did not
    if (repair) deleteTable(ctx.meta, appKey, name)
    return null
  }
  const types = new Map(columns.map((c) => [c.id, c.dataType]))
  const recorded = fieldRows(ctx.meta, appKey, name)
  const known = new Set(recorded.map((f) => f.id))
  const stale = recorded.filter((f) => !types.has(f.id)).map((f) => f.id)
  const unrecorded = columns.filter((c) => !known.has(c.id))
  if (repair && stale.length + unrecorded.length > 0) {
    ctx.meta.transaction(() => {
      removeFields(ctx.meta, appKey, name, stale)
      addFields(ctx.meta, appKey, name, unrecorded)
    })()
  }
  const fields = recorded
    .filter((f) => types.has(f.id))
    .map((f) => ({ ...f, dataType: types.get(f.id) as DataType, enable: asFlag(f.enable), relation: asFlag(f.relation) }))
  for (const c of unrecorded) fields.push({ id: c.id, dataType: c.dataType, name: null, remark: null, enable: 1, relation: 0 })
  return { table, fields }
}

async function describeOrFail(ctx: DomainContext, conn: Warehouse, appKey: string, name: string, repair = true): Promise<Described> {
  const described = await describe(ctx, conn, appKey, name, repair)
  if (!described) throw noSuchTable(name)
  return described
}

function checkRowCount(rows: unknown[], atLeast: number): void {
  if (rows.length < atLeast) throw badParam('rows', 'rows must hold at least one initial row')
  if (rows.length > DIMENSION_LIMITS.rowsPerRequest) throw badParam('rows', `at most ${DIMENSION_LIMITS.rowsPerRequest} rows per request`)
}

function checkText(value: string | undefined, param: string): void {
  if (value !== undefined && [...value].length > DIMENSION_LIMITS.text) throw badParam(param, `${param}: at most ${DIMENSION_LIMITS.text} characters`)
}

/** The project's tables; it does not wait for a writer (see read). */
export function listDimensionTables(ctx: DomainContext, scope: ProjectScope): Promise<DimensionTableSummary[]> {
  return read(ctx, scope.appKey, (repair) =>
    ctx.warehouse.withConnection(scope.appKey, scope.timeZone, async (conn) => {
      const out: DimensionTableSummary[] = []
      for (const t of tableRows(ctx.meta, scope.appKey)) {
        const described = await describe(ctx, conn, scope.appKey, t.name, repair)
        if (!described) continue
        out.push({
          table: t.name,
          showName: t.showName,
          remark: t.remark,
          relations: described.fields.filter((f) => f.relation === 1).map((f) => f.id),
          columns: described.fields.length,
          rows: await rowCount(dialectOf(ctx, scope), conn, t.name),
          createTime: t.createTime,
          updateTime: t.updateTime,
        })
      }
      return out
    }),
  )
}

/** The field records of one table, in column order; it does not wait for a writer (see read). */
export function dimensionFields(ctx: DomainContext, scope: ProjectScope, table: string): Promise<DimensionField[]> {
  return read(ctx, scope.appKey, (repair) =>
    ctx.warehouse.withConnection(scope.appKey, scope.timeZone, async (conn) => (await describeOrFail(ctx, conn, scope.appKey, table.toLowerCase(), repair)).fields),
  )
}

/** Creates a table with its initial rows; nothing is kept unless the whole request is valid and loaded. */
export function createDimensionTable(ctx: DomainContext, scope: ProjectScope, input: NewDimensionTable, operator: Operator | null): Promise<void> {
  const { appKey, timeZone } = scope
  return serialize(ctx, appKey, async () => {
    const name = tableName(input.table)
    const { columns, relations } = await ctx.warehouse.withConnection(appKey, timeZone, async (conn) => {
      // describe first: metadata of a table whose drop did not finish must not block its name
      if (await describe(ctx, conn, appKey, name)) throw alreadyExists(`dimension table ${name} already exists`)
      checkText(input.showName, 'showName')
      checkText(input.remark, 'remark')
      const columns = parseColumns(input.columns)
      const relations = parseRelations(input.relations, columns)
      checkRowCount(input.rows, 1)
      const rows = prepareRows(input.rows, columns, relations)
      const kind = await tableKind(dialectOf(ctx, { appKey }), conn, name)
      if (kind === 'other') throw badParam('table', `table: ${name} is already a table of the warehouse`)
      await inTransaction(conn, async () => {
        // a marked table without metadata is what a create whose metadata write failed left behind
        if (kind === 'dimension') await conn.run(dialectOf(ctx, { appKey }).dropTable(name))
        await createTable(dialectOf(ctx, { appKey }), conn, name, columns, relations, rows)
      })
      return { columns, relations }
    })
    try {
      ctx.meta.transaction(() => {
      dataChanged(ctx.meta, appKey)
        insertTable(ctx.meta, appKey, { name, showName: input.showName ?? null, remark: input.remark ?? null }, Date.now())
        addFields(ctx.meta, appKey, name, [...columns].map(([id, dataType]) => ({ id, dataType, relation: relations.includes(id) })))
        recordOperation(ctx.meta, operator, 'dimension.create', appKey, name)
      })()
    } catch (err) {
      // undo the warehouse side; should that fail too, the marker lets the next create replace it
      await ctx.warehouse.withConnection(appKey, timeZone, (conn) => conn.run(dialectOf(ctx, { appKey }).dropTable(name, true))).catch(() => undefined)
      throw err
    }
  })
}

/**
 * Adds columns and upserts rows by the relation fields. Nothing is kept unless the whole request
 * is valid and loaded. Should the metadata write fail after the warehouse commit, the new columns
 * are recorded at the next read, and sending the same update again gives the same table.
 */
export function updateDimensionTable(ctx: DomainContext, scope: ProjectScope, input: DimensionUpdate, operator: Operator | null): Promise<void> {
  const { appKey, timeZone } = scope
  return serialize(ctx, appKey, async () => {
    const name = input.table.toLowerCase()
    const added = await ctx.warehouse.withConnection(appKey, timeZone, async (conn) => {
      const { fields } = await describeOrFail(ctx, conn, appKey, name)
      const columns = parseColumns(input.columns)
      const given = new Map(Object.keys(input.columns).map((raw) => [raw.toLowerCase(), raw]))
      const existing = new Map(fields.map((f) => [f.id, f.dataType]))
      for (const [id, type] of columns) {
        const was = existing.get(id)
        const param = `columns.${given.get(id)}`
        if (was && was !== type) throw badParam(param, `${param}: column ${id} is a ${was} column, not ${type}`)
      }
      const relations = fields.filter((f) => f.relation === 1).map((f) => f.id)
      for (const r of relations) {
        if (!columns.has(r)) throw badParam(`columns.${r}`, `columns must include the relation field ${r}`)
      }
      const newColumns = [...columns].filter(([id]) => !existing.has(id)).map(([id, dataType]) => ({ id, dataType }))
      if (fields.length + newColumns.length > DIMENSION_LIMITS.columns) throw badParam('columns', `a dimension table has at most ${DIMENSION_LIMITS.columns} columns`)
      checkRowCount(input.rows, 0)
      const rows = prepareRows(input.rows, columns, relations)
      await inTransaction(conn, async () => {
        await addTableColumns(dialectOf(ctx, { appKey }), conn, name, newColumns)
        const table = [...fields.map((f) => ({ id: f.id, dataType: f.dataType })), ...newColumns]
        if (rows.rows.length > 0) await upsertRows(dialectOf(ctx, { appKey }), conn, name, columns, relations, rows, table)
      })
      return newColumns
    })
    ctx.meta.transaction(() => {
      dataChanged(ctx.meta, appKey)
      addFields(ctx.meta, appKey, name, added)
      touchTable(ctx.meta, appKey, name, Date.now())
      recordOperation(ctx.meta, operator, 'dimension.update', appKey, name)
    })()
  })
}

/** Removes every row; the table and its fields remain. */
export function clearDimensionTable(ctx: DomainContext, scope: ProjectScope, table: string, operator: Operator | null): Promise<void> {
  const { appKey, timeZone } = scope
  const name = table.toLowerCase()
  return serialize(ctx, appKey, async () => {
    await ctx.warehouse.withConnection(appKey, timeZone, async (conn) => {
      await describeOrFail(ctx, conn, appKey, name)
      await conn.run(dialectOf(ctx, { appKey }).clearTable(name))
    })
    ctx.meta.transaction(() => {
      dataChanged(ctx.meta, appKey)
      touchTable(ctx.meta, appKey, name, Date.now())
      recordOperation(ctx.meta, operator, 'dimension.clear', appKey, name)
    })()
  })
}

/** Removes the table, its rows and its metadata. */
export function dropDimensionTable(ctx: DomainContext, scope: ProjectScope, table: string, operator: Operator | null): Promise<void> {
  const { appKey, timeZone } = scope
  const name = table.toLowerCase()
  return serialize(ctx, appKey, async () => {
    await ctx.warehouse.withConnection(appKey, timeZone, async (conn) => {
      await describeOrFail(ctx, conn, appKey, name)
      await conn.run(dialectOf(ctx, { appKey }).dropTable(name))
    })
    ctx.meta.transaction(() => {
      dataChanged(ctx.meta, appKey)
      deleteTable(ctx.meta, appKey, name)
      recordOperation(ctx.meta, operator, 'dimension.drop', appKey, name)
    })()
  })
}
