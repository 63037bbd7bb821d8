import { DuckDBTypeId } from '@duckdb/node-api'
import { describe, expect, it } from 'vitest'
import { addTableColumns, createTable, rowCount, tableKind, upsertRows, warehouseColumns, DIMENSION_MARKER } from '../../src-main/domain/schema/dimensionWarehouse'
import { renderQuery } from '../../src-main/domain/sql/render'
import type { Warehouse } from '../../src-main/warehouse'
import type { Dialect } from '../../src-main/warehouse/dialect'
import { duckdbDialect } from '../../src-main/warehouse/duckdb/dialect'
import { printingDialect } from './printingDialect'

/** A warehouse that records what it is asked to run and answers `answer` to reads. */
function recorder(answer: unknown[][] = [[3]]) {
  const log: [string, unknown?][] = []
  const conn = {
    run: async (sql: string, values?: unknown) => (log.push([sql, values]), 0),
    rows: async (sql: string, values?: unknown) => (log.push([sql, values]), answer),
    appendRows: async (table: string, types: unknown) => void log.push([`append ${table}`, types]),
  }
  return { log, conn: conn as unknown as Warehouse }
}

const types = new Map([['id', 'string'], ['n', 'number'], ['l', 'array<string>']] as const)
const rows = { columns: ['id', 'n'], rows: [['a', 1], ['b', undefined]] }

describe("the dialect's tables part", () => {
  it('writes the DuckDB DDL, upsert and row count of a dimension table', async () => {
    const { log, conn } = recorder()
    const d = duckdbDialect
    await createTable(d, conn, 'dim_a', new Map(types), ['id'], rows)
    await addTableColumns(d, conn, 'dim_a', [{ id: 'z', dataType: 'datetime' }])
    await upsertRows(d, conn, 'dim_a', new Map(types), ['id'], rows)
    expect(await rowCount(d, conn, 'dim_a')).toBe(3)
    expect(log.map(([sql]) => sql.replace(/\s+/g, ' '))).toEqual([
      'CREATE TABLE "dim_a" ("id" VARCHAR NOT NULL, "n" DOUBLE, "l" VARCHAR[])',
      `COMMENT ON TABLE "dim_a" IS '${DIMENSION_MARKER}'`,
      'append dim_a',
      'ALTER TABLE "dim_a" ADD COLUMN "z" TIMESTAMP',
      'CREATE TEMP TABLE "$staged_rows" (c0 VARCHAR, g0 BOOLEAN, c1 DOUBLE, g1 BOOLEAN)',
      'append $staged_rows',
      'UPDATE "dim_a" SET "n" = CASE WHEN "$s".g1 THEN "$s".c1 ELSE "dim_a"."n" END FROM temp."$staged_rows" AS "$s" WHERE "dim_a"."id" = "$s".c0',
      'INSERT INTO "dim_a" ("id", "n") SELECT "$s".c0, "$s".c1 FROM temp."$staged_rows" AS "$s" WHERE NOT EXISTS (SELECT 1 FROM "dim_a" WHERE "dim_a"."id" = "$s".c0)',
      'DROP TABLE temp."$staged_rows"',
      'SELECT count(*) FROM "dim_a"',
    ])
    // the staged rows carry, after each value, whether the row gave it
    expect(log[5][1]).toEqual(['string', 'boolean', 'number', 'boolean'])
    expect(() => d.createTable('dim_a', [{ id: 'a"b', type: 'string' }])).toThrow(/not a checked identifier/)
    expect(d.addPropertyColumn('event_vd', { id: '$city', type: 'array<string>' })).toBe('ALTER TABLE event_vd ADD COLUMN IF NOT EXISTS "$city" VARCHAR[]')
    expect(d.retypePropertyColumn('profile_vd', { id: 'age', type: 'number' })).toBe('ALTER TABLE profile_vd ALTER COLUMN "age" TYPE DOUBLE')
    expect(['VARCHAR[]', 'BOOLEAN', 'TIMESTAMP WITH TIME ZONE', 'DATE', 'VARCHAR', 'BIGINT'].map(d.valueTypeOf)).toEqual(['array<string>', 'boolean', 'datetime', 'datetime', 'string', 'number'])
  })

  it('reads the catalog with the name bound, never written into the text', async () => {
    for (const d of [duckdbDialect, printingDialect] as Dialect[]) {
      const { log, conn } = recorder([['uba-desk dimension table', 'VARCHAR']])
      expect(await tableKind(d, conn, 'dim_x')).toBe('dimension')
      expect(await warehouseColumns(d, conn, 'dim_x')).toEqual([{ id: 'uba-desk dimension table', dataType: d === duckdbDialect ? 'string' : 'number' }])
      for (const [sql, values] of log) {
        expect(sql).not.toContain('dim_x')
        expect(values).toEqual(['dim_x'])
      }
    }
  })

  it('runs a dimension upsert with the test dialect alone', async () => {
    const { log, conn } = recorder()
    await upsertRows(printingDialect, conn, 'dim_a', new Map(types), ['id'], rows)
    expect(log.map(([sql]) => sql)).toEqual([
      'CREATE TEMPORARY TABLE staged (c0 Nullable(String), g0 Bool, c1 Nullable(Float64), g1 Bool) ENGINE = Memory',
      'append staged',
      'INSERT INTO `dim_a` SELECT c0, c1 FROM staged',
      'DROP TABLE staged',
    ])
  })
})

describe("the dialect's resultText part", () => {
  const T = DuckDBTypeId
  const columns = [
    { name: 'at', type: { typeId: T.TIMESTAMP_TZ } },
    { name: 'at', type: { typeId: T.BIGINT } },
    { name: 'city', type: { typeId: T.VARCHAR } },
  ]

  it('writes JSON objects keyed by bound names, repeated names made unique', () => {
    const { sql, values } = renderQuery(duckdbDialect, 'SELECT 1', columns, 'json')
    expect(values).toEqual(['at', 'at_1', 'city'])
    expect(sql).toContain('json_object($1::VARCHAR, CASE WHEN NOT isfinite(c1)')
    expect(sql).toContain('$2::VARCHAR, CASE WHEN c2 BETWEEN -9007199254740991 AND 9007199254740991 THEN to_json(c2) ELSE to_json(CAST(c2 AS VARCHAR)) END, $3::VARCHAR, c3)')
    expect(sql).toContain('FROM (\nSELECT 1\n) AS q(c1, c2, c3)')
    expect(sql).not.toContain('city')
  })

  it('writes CSV lines, quoting only text that needs it, and export timestamps', () => {
    const { sql, values } = renderQuery(duckdbDialect, 'SELECT 1', columns, 'csv')
    expect(values).toEqual([])
    expect(sql).toContain(`coalesce(c1, ''), ',', coalesce(c2, ''), ',', CASE WHEN c3 IS NULL THEN '' WHEN regexp_matches(c3, '[",\\r\\n]')`)
    expect(duckdbDialect.exportStamp('e.xwhen')).toContain(`strftime(e.xwhen, '%Y-%m-%d %H:%M:%S.%g')`)
    const printed = renderQuery(printingDialect, 'SELECT 1', columns, 'json')
    expect(printed).toEqual({ sql: 'SELECT toJSONString(map({k1:String}, toString(c1), {k2:String}, toString(c2), {k3:String}, toString(c3))) AS line FROM (SELECT 1) AS q', values: ['at', 'at_1', 'city'] })
  })
})
