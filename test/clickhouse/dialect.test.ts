import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ClickHouseClient } from '../../src-main/warehouse/clickhouse/client'
import { clickhouseDialect } from '../../src-main/warehouse/clickhouse/dialect'
import { quoteString } from '../../src-main/warehouse/clickhouse/literal'
import { duckdbDialect } from '../../src-main/warehouse/duckdb/dialect'
import { clickhouseAvailable, startClickHouse, type TestClickHouse } from '../helpers/clickhouse'
import { EVENTS, norm, statement, TIME_CASES } from './dialectCases'
import { PROFILE_TABLE, PROFILES, ROWS_CASES } from './dialectRowsCases'
import { VALUE_CASES } from './dialectValueCases'

const CASES = [...TIME_CASES, ...VALUE_CASES, ...ROWS_CASES]

/**
 * Every case of dialectCases.ts and dialectValueCases.ts on both engines: the ClickHouse dialect's text on the real
 * clickhouse-server 18.16, the DuckDB dialect's text on DuckDB, over the same rows, each
 * answer equal to the hand-computed one.
 */

describe('dialect parts on DuckDB (the same cases as on ClickHouse)', () => {
  let db: DuckDBInstance
  let conn: DuckDBConnection

  beforeAll(async () => {
    db = await DuckDBInstance.create(':memory:', { threads: '1' })
    conn = await db.connect()
    await conn.run("SET TimeZone = 'UTC'")
    await conn.run('CREATE TABLE ev (id BIGINT, uid BIGINT, xwhen TIMESTAMPTZ, s VARCHAR, n DOUBLE, b BOOLEAN, tags VARCHAR[])')
    for (const e of EVENTS) {
      const s = e.s === null ? 'NULL' : `'${e.s.replace(/'/g, "''")}'`
      const tags = `CAST([${e.tags.map((t) => `'${t}'`).join(', ')}] AS VARCHAR[])`
      await conn.run(`INSERT INTO ev VALUES (${e.id}, ${e.uid}, CAST(epoch_ms(${e.ms}) AS TIMESTAMPTZ), ${s}, ${e.n ?? 'NULL'}, ${e.b ?? 'NULL'}, ${tags})`)
    }
    await conn.run(PROFILE_TABLE.duckdb)
    await conn.run(`INSERT INTO profile_vd VALUES ${PROFILES.duckdb}`)
  })
  afterAll(() => {
    conn?.closeSync()
    db?.closeSync()
  })

  for (const c of CASES) {
    it(`${c.name} (${c.zone})`, async () => {
      await conn.run(`SET TimeZone = '${c.zone}'`)
      const p = duckdbDialect.params()
      const sql = statement(c, duckdbDialect, p)
      const rows = (await conn.runAndReadAll(sql, p.values as never)).getRows()
      expect(norm(rows)).toEqual(c.rows)
    })
  }
})

describe.skipIf(!clickhouseAvailable())('dialect parts on ClickHouse 18.16 (the same cases as on DuckDB)', () => {
  let ch: TestClickHouse
  let client: ClickHouseClient

  beforeAll(async () => {
    ch = await startClickHouse()
    const admin = new ClickHouseClient({ url: ch.url, user: 'default' })
    await admin.command('CREATE DATABASE dialect')
    client = new ClickHouseClient({ url: ch.url, user: 'default', database: 'dialect' })
    await client.command('CREATE TABLE ev (id Int64, uid Int64, xwhen Int64, s Nullable(String), n Nullable(Float64), b Nullable(UInt8), tags Array(String)) ENGINE = MergeTree ORDER BY id')
    const values = EVENTS.map((e) => `(${e.id}, ${e.uid}, ${e.ms}, ${e.s === null ? 'NULL' : quoteString(e.s)}, ${e.n ?? 'NULL'}, ${e.b === null ? 'NULL' : Number(e.b)}, [${e.tags.map(quoteString).join(', ')}])`)
    await client.command(`INSERT INTO ev VALUES ${values.join(', ')}`)
    await client.command(PROFILE_TABLE.clickhouse)
    await client.command(`INSERT INTO profile_vd VALUES ${PROFILES.clickhouse}`)
  })
  afterAll(async () => ch?.stop())

  for (const c of CASES) {
    it(`${c.name} (${c.zone})`, async () => {
      const d = clickhouseDialect(c.zone)
      const p = d.params()
      const sql = statement(c, d, p)
      expect(p.values).toEqual([])
      const { rows } = await client.query(sql)
      expect(norm(rows)).toEqual(c.rows)
    })
  }
})
