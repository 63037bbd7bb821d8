import { DuckDBInstance } from '@duckdb/node-api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { insertionOrder, unordered } from '../../src-main/domain/ingest/sql'
import { duckdbDialect } from '../../src-main/warehouse/duckdb/dialect'

// An import turns insertion order off for its own statements only: a staging read on another
// connection of the same database numbers its lines by insertion order.

let db: DuckDBInstance
beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:')
})
afterAll(() => db.closeSync())

/** An engine connection with the dialect that writes its order settings. */
const withDialect = (conn: Awaited<ReturnType<DuckDBInstance['connect']>>) => ({ run: (sql: string) => conn.run(sql), dialect: duckdbDialect })

const setting = async (conn: Awaited<ReturnType<DuckDBInstance['connect']>>) =>
  (await conn.runAndReadAll("SELECT current_setting('preserve_insertion_order')")).getRows()[0][0]

describe('insertion order during an import', () => {
  it('is off for the import connection only, and back on after it, even when the work fails', async () => {
    const importing = await db.connect()
    const staging = await db.connect()
    const seen = await unordered(withDialect(importing), async () => [await setting(importing), await setting(staging)])
    expect(seen).toEqual([false, true])
    expect(await setting(importing)).toBe(true)
    await expect(unordered(withDialect(importing), () => importing.run('SELECT * FROM no_such_table'))).rejects.toThrow(/no_such_table/)
    expect(await setting(importing)).toBe(true)
    importing.closeSync()
    staging.closeSync()
  })

  it('keeps a staging read in file order when another connection turned it off globally', async () => {
    const other = await db.connect()
    const staging = await db.connect()
    await other.run('SET GLOBAL preserve_insertion_order = false')
    try {
      expect(await insertionOrder(withDialect(staging), true, () => setting(staging))).toBe(true)
    } finally {
      await other.run('RESET GLOBAL preserve_insertion_order')
      other.closeSync()
      staging.closeSync()
    }
  })
})
