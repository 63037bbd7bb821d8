import { defineStore } from 'pinia'
import { ref } from 'vue'
import {
  clearDimensionTable, createDimensionTable, dimensionFields, dropDimensionTable, listDimensionTables, updateDimensionTable, ROWS_PER_REQUEST,
  type DimensionField, type DimensionRow, type DimensionTable, type NewDimensionTable,
} from '../api/dimensions'
import { keyedResource, projectResource } from './projectResource'
import { useSessionStore } from './session'

/** Bytes of JSON per request: under the server's 10 MB body limit with room for the envelope. */
const BODY_BYTES = 8 * 1024 * 1024

/** Splits rows into requests that stay under both the row and the body limit. */
export function batches(rows: DimensionRow[]): DimensionRow[][] {
  const out: DimensionRow[][] = []
  let batch: DimensionRow[] = []
  let bytes = 0
  for (const row of rows) {
    const size = JSON.stringify(row).length + 1
    if (batch.length > 0 && (batch.length >= ROWS_PER_REQUEST || bytes + size > BODY_BYTES)) {
      out.push(batch)
      batch = []
      bytes = 0
    }
    batch.push(row)
    bytes += size
  }
  if (batch.length > 0) out.push(batch)
  return out
}

/** The dimension tables of the current project, the fields of the one looked at, and their changes. */
export const useDimensionStore = defineStore('dimensions', () => {
  const session = useSessionStore()

  // the fields of one table at a time: another table's read still under way is dropped
  const { key: fieldsTable, data: fields, state: fieldsState, error: fieldsError, loadFor } = keyedResource<DimensionField[]>([])

  /** Rows sent so far while a table is created from a file. */
  const sent = ref<{ rows: number; total: number } | null>(null)
  /** After a failed batch: how many rows the new table holds. */
  const partial = ref<{ rows: number; total: number } | null>(null)

  const { current: list, state, error, load: read } = projectResource<DimensionTable[]>([], { onSwitch: () => (fieldsTable.value = '') })

  function load(): Promise<void> {
    return read(listDimensionTables)
  }

  function loadFields(table: string): Promise<void> {
    return loadFor(table, (auth) => dimensionFields(auth, table))
  }

  /**
   * Creates the table with the first batch of rows and upserts the others, batch by batch. A later
   * batch that fails leaves the table with the rows sent before it: the error says so.
   */
  async function create(table: NewDimensionTable): Promise<void> {
    const auth = session.projectAuth
    const [first, ...rest] = batches(table.rows)
    const total = table.rows.length
    let done = 0
    sent.value = { rows: 0, total }
    partial.value = null
    try {
      await createDimensionTable(auth, { ...table, rows: first ?? [] })
      done = first?.length ?? 0
      sent.value = { rows: done, total }
      for (const batch of rest) {
        await updateDimensionTable(auth, table.table, table.columns, batch)
        done += batch.length
        sent.value = { rows: done, total }
      }
    } catch (err) {
      if (done > 0) partial.value = { rows: done, total }
      throw err
    } finally {
      sent.value = null
      await load()
    }
  }

  async function clear(table: string): Promise<void> {
    await clearDimensionTable(session.projectAuth, table)
    await Promise.all([load(), fieldsTable.value === table ? loadFields(table) : undefined])
  }

  async function drop(table: string): Promise<void> {
    await dropDimensionTable(session.projectAuth, table)
    if (fieldsTable.value === table) fieldsTable.value = ''
    await load()
  }

  return { list, state, error, fieldsTable, fields, fieldsState, fieldsError, sent, partial, load, loadFields, create, clear, drop }
})
