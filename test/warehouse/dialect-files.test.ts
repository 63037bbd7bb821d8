import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clickhouseDialect } from '../../src-main/warehouse/clickhouse/dialect'
import { duckdbDialect as d } from '../../src-main/warehouse/duckdb/dialect'

/** The dialect's files part on DuckDB itself: what each reader gives, and what ClickHouse refuses. */
let db: DuckDBInstance
let conn: DuckDBConnection
let dir: string
const rows = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJS()
const reading = { gzip: false, maxLineBytes: 1024, bufferBytes: 4096 }

beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:')
  conn = await db.connect()
  dir = mkdtempSync(join(tmpdir(), 'uba-files-'))
})
afterAll(() => {
  conn.closeSync()
  db.closeSync()
  rmSync(dir, { recursive: true, force: true })
})

describe("the DuckDB dialect's files part", () => {
  it('reads every line of a text file whole and in order, blank lines, separators and quotes included, gzip too', async () => {
    const text = '{"a": "x,y"}\n\n  \n"quoted; \t"\n{"b": 2}\n'
    writeFileSync(join(dir, 'lines.jsonl'), text)
    writeFileSync(join(dir, 'lines.jsonl.gz'), gzipSync(text))
    await conn.run(d.tempTableAs('lines', d.fileLines(join(dir, 'lines.jsonl'), reading)))
    const read = await rows(`SELECT ${d.storedOrder('lines')} AS r, line FROM lines ORDER BY r`)
    expect(read.map((row) => row.line ?? '')).toEqual(['{"a": "x,y"}', '', '  ', '"quoted; \t"', '{"b": 2}'])
    const gz = await rows(`SELECT line FROM (${d.fileLines(join(dir, 'lines.jsonl.gz'), { ...reading, gzip: true })})`)
    expect(gz.map((row) => row.line ?? '')).toEqual(read.map((row) => row.line ?? ''))
  })

  it("gives each record of a JSON array as its text", async () => {
    writeFileSync(join(dir, 'array.json'), '[{"xwho": "u1"}, {"xwho": "u2", "n": [1, 2]}]')
    const read = await rows(d.jsonArrayLines(join(dir, 'array.json'), false))
    expect(read.map((row) => JSON.parse(String(row.line)))).toEqual([{ xwho: 'u1' }, { xwho: 'u2', n: [1, 2] }])
  })

  it('reads a CSV as text cells, and keeps the first refused line with the counts of its cells', async () => {
    const file = join(dir, 'cells.csv')
    writeFileSync(file, 'u;n\nu1;007\nu2;3;extra;more\nu3;4\n')
    const csv = { ...reading, delimiter: ';', encoding: 'utf-8' as const }
    const rejects = { errors: 'file_reject_errors', scans: 'file_reject_scans' }
    await conn.run(d.tempTableAs('probe', `SELECT * FROM ${d.delimitedFile(file, csv, rejects)}`))
    expect(await rows('SELECT * FROM probe')).toEqual([{ u: 'u1', n: '007' }, { u: 'u3', n: '4' }])
    const refused = d.rejectedLine((await rows(d.firstRejectedLine(rejects)))[0])
    expect({ ...refused, line: Number(refused.line) }).toEqual({ line: 3, text: 'u2;3;extra;more', cells: { expected: '2', found: '4' }, encoding: false, message: expect.any(String) })
    for (const table of [rejects.errors, rejects.scans]) await conn.run(d.dropTempTable(table))
    await expect(conn.run(`SELECT * FROM ${d.delimitedFile(file, csv)}`)).rejects.toThrow()
  })

  it('names the columns a query gives and a temp table holds, in order, and prints nested cells as JSON', async () => {
    const file = join(dir, 'nested.parquet')
    await conn.run(`COPY (SELECT 1 AS n, ['a', 'b'] AS tags, {'k': 2} AS s) TO '${file}' (FORMAT parquet)`)
    const columns = (await conn.runAndReadAll(d.describeColumns(`SELECT * FROM ${d.parquetFile(file)}`))).getRows().map((r) => [String(r[0]), String(r[1])])
    expect(columns.map(([name]) => name)).toEqual(['n', 'tags', 's'])
    const texts = columns.map(([name, type]) => `${d.cellAsText(`"${name}"`, type)} AS "${name}"`)
    await conn.run(d.tempTableAs('nested', `SELECT ${texts.join(', ')} FROM ${d.parquetFile(file)}`))
    expect(await rows('SELECT * FROM nested')).toEqual([{ n: '1', tags: '["a","b"]', s: '{"k":2}' }])
    expect((await conn.runAndReadAll(d.tempColumns('nested'))).getRows()).toEqual([['n', 'VARCHAR'], ['tags', 'VARCHAR'], ['s', 'VARCHAR']])
  })

  it('sets insertion order for this connection only, and gives the default back', async () => {
    const other = await db.connect()
    const setting = async (c: DuckDBConnection) => (await c.runAndReadAll("SELECT current_setting('preserve_insertion_order')")).getRows()[0][0]
    for (const statement of d.insertionOrder(false)) await conn.run(statement)
    expect([await setting(conn), await setting(other)]).toEqual([false, true])
    for (const statement of d.defaultInsertionOrder()) await conn.run(statement)
    expect(await setting(conn)).toBe(true)
    other.closeSync()
  })
})

describe("ClickHouse's dialect", () => {
  it('refuses the files part with a 503: DuckDB reads the files of every project', () => {
    const ch = clickhouseDialect('UTC')
    for (const print of [() => ch.fileLines('f', reading), () => ch.parquetFile('f'), () => ch.insertionOrder(true), () => ch.loadTime()]) {
      expect(print).toThrow(expect.objectContaining({ status: 503 }))
    }
  })
})
