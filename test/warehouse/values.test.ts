import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Row } from '../../src-main/warehouse'
import { DuckDBWarehouses } from '../../src-main/warehouse/duckdb'

// The one value policy (warehouse/values.ts) on real DuckDB values: each reader keeps what it was
// promised (analyses numbers, JSON exports exact ids as text, the preview readable text).

let dir: string
let wh: DuckDBWarehouses
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'uba-values-'))
  wh = new DuckDBWarehouses({ dir, threads: 1, memoryLimit: '256MB' })
  await wh.createProject('v', 'Asia/Shanghai')
})
afterAll(async () => {
  await wh.close()
  rmSync(dir, { recursive: true, force: true })
})

const SAMPLE = `SELECT 9007199254740993::BIGINT AS big, 5::BIGINT AS small, (2::HUGEINT ** 100)::HUGEINT AS huge,
  TIMESTAMPTZ '2024-01-01 20:00:00+00' AS at, 12.34::DECIMAL(10, 2) AS price,
  [1::BIGINT, 9007199254740993::BIGINT] AS ids, ['a', 'b'] AS tags, NULL::VARCHAR AS nothing`
const HUGE = 2n ** 100n
const AT = Date.UTC(2024, 0, 1, 20)

const read = (policy?: 'exact' | 'number' | 'json' | 'display') => wh.withConnection('v', 'Asia/Shanghai', async (c) => (await c.query(SAMPLE, undefined, policy))[0])

describe('the value policy', () => {
  it('exact: the engine values as they come (bigints, dates, decimals as numbers, lists)', async () => {
    const row = await read()
    expect(row.big).toBe(9007199254740993n)
    expect(row.small).toBe(5n)
    expect(row.huge).toBe(HUGE)
    expect(row.at).toBeInstanceOf(Date)
    expect((row.at as Date).getTime()).toBe(AT)
    expect(row.price).toBe(12.34)
    expect(row.ids).toEqual([1n, 9007199254740993n])
    expect(row.tags).toEqual(['a', 'b'])
    expect(row.nothing).toBeNull()
  })

  it('number: every bigint a number, inside a list too, the rest unchanged (analyses)', async () => {
    const row = await read('number')
    expect(row.big).toBe(9007199254740992)
    expect(row.small).toBe(5)
    expect(row.huge).toBe(Number(HUGE))
    expect((row.at as Date).getTime()).toBe(AT)
    expect(row.price).toBe(12.34)
    expect(row.ids).toEqual([1, 9007199254740992])
    expect(row.tags).toEqual(['a', 'b'])
  })

  it('json: an exact number while it is exact, else the decimal text (streamed rows)', async () => {
    const row = await read('json')
    expect(row.big).toBe('9007199254740993')
    expect(row.small).toBe(5)
    expect(row.huge).toBe(HUGE.toString())
    expect(row.ids).toEqual([1, '9007199254740993'])
    expect((row.at as Date).getTime()).toBe(AT)
    expect(JSON.parse(JSON.stringify(row))).toMatchObject({ big: '9007199254740993', price: 12.34, nothing: null })
  })

  it('display: numbers and ISO-8601 dates for a person to read (import preview)', async () => {
    const row = await read('display')
    expect(row.big).toBe(9007199254740992)
    expect(row.at).toBe('2024-01-01T20:00:00.000Z')
    expect(row.ids).toEqual([1, 9007199254740992])
    expect(row.price).toBe(12.34)
  })

  it('reads rows as arrays, binds lists and named values, and streams in chunks', async () => {
    await wh.withConnection('v', 'Asia/Shanghai', async (c) => {
      expect(await c.rows('SELECT 1::BIGINT, $1::VARCHAR', ['x'])).toEqual([[1n, 'x']])
      expect(await c.rows('SELECT 1::BIGINT', undefined, 'number')).toEqual([[1]])
      expect((await c.rows('SELECT unnest($1::VARCHAR[]) ORDER BY 1', [['b', 'a']])).map((r) => r[0])).toEqual(['a', 'b'])
      expect(await c.query('SELECT $zone::VARCHAR AS z', { zone: 'UTC' })).toEqual([{ z: 'UTC' }])
      const chunks: Row[][] = []
      for await (const rows of c.stream('SELECT i, 9007199254740993::BIGINT + i AS id FROM range(5000) t(i) ORDER BY i', undefined, 'json')) chunks.push(rows)
      expect(chunks.length).toBeGreaterThan(1)
      expect(chunks.every((rows) => rows.length <= 2048)).toBe(true)
      const all = chunks.flat()
      expect(all).toHaveLength(5000)
      expect(all[0]).toEqual({ i: 0, id: '9007199254740993' })
      expect(all[4999]).toEqual({ i: 4999, id: '9007199254745992' })
    })
  })

  it('scans numeric columns as typed arrays and lists as arrays', async () => {
    const chunks = await wh.withConnection('v', 'UTC', (c) =>
      c.scan('SELECT CAST(i AS INTEGER) AS u, CAST(i AS DOUBLE) / 2 AS t, [CAST(i AS VARCHAR), $1] AS l FROM range(3000) t(i) ORDER BY i', ['z']),
    )
    expect(chunks.reduce((n, c) => n + c.rowCount, 0)).toBe(3000)
    expect(chunks[0].ints(0)).toBeInstanceOf(Int32Array)
    expect(Array.from(chunks[0].ints(0).slice(0, 3))).toEqual([0, 1, 2])
    expect(Array.from(chunks[0].doubles(1).slice(0, 3))).toEqual([0, 0.5, 1])
    expect(chunks[0].value(2, 1)).toEqual(['1', 'z'])
  })

  it('bulk-writes typed rows, and a failed transaction leaves nothing', async () => {
    await wh.withConnection('v', 'UTC', async (c) => {
      await c.run('CREATE TABLE kept (id BIGINT, n DOUBLE, seen TIMESTAMP, tags VARCHAR[], ok BOOLEAN, name VARCHAR)')
      const rows = Array.from({ length: 2500 }, (_, i) => [9007199254740993n + BigInt(i), i / 4, BigInt(AT) * 1000n, ['t', String(i)], i % 2 === 0, i === 7 ? null : `n${i}`])
      await c.appendRows('kept', ['bigint', 'number', 'datetime', 'array<string>', 'boolean', 'string'], rows)
      expect(await c.query('SELECT count(*)::INT AS n, max(id) AS top, count(name)::INT AS named FROM kept')).toEqual([{ n: 2500, top: 9007199254743492n, named: 2499 }])
      expect((await c.query("SELECT CAST(seen AS VARCHAR) AS seen, tags FROM kept WHERE id = 9007199254740994"))[0]).toEqual({ seen: '2024-01-01 20:00:00', tags: ['t', '1'] })
      await expect(c.transaction(async () => {
        await c.run('DELETE FROM kept')
        throw new Error('stop here')
      })).rejects.toThrow('stop here')
      expect(await c.run('UPDATE kept SET n = 0 WHERE id < 9007199254740996')).toBe(3)
      expect((await c.rows('SELECT count(*) FROM kept'))[0][0]).toBe(2500n)
    })
  })
})
