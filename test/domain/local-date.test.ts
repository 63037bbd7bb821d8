import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localDateSql, TREE_FROM_ROWS } from '../../src-main/warehouse/duckdb/localDate'

// A load computes an event's local day (ds) from the epoch and the zone's transitions instead of
// asking ICU per row; it must give ICU's date for every instant. Checked against DuckDB's own
// CAST(... AS DATE) on the instants where a wrong transition would show: every minute of every day
// on which the zone's offset changes, and one microsecond before each, plus a spread of instants
// across the years and outside the listed window.

const ZONES = [
  'America/New_York', // DST, transitions at 02:00 local
  'Europe/Berlin', // DST at 01:00 UTC
  'Australia/Lord_Howe', // a 30-minute daylight-saving shift
  'Pacific/Chatham', // +12:45 / +13:45
  'America/Sao_Paulo', // DST until 2019
  'Asia/Shanghai', // DST 1986-1991 only
  'Asia/Kolkata', // +05:30, no change since 1970
  'America/St_Johns', // -03:30 with DST
  'UTC',
]

let db: DuckDBInstance
let conn: DuckDBConnection
beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:', { threads: '2' })
  conn = await db.connect()
})
afterAll(() => {
  conn.closeSync()
  db.closeSync()
})

/** Instants (a table `t(x TIMESTAMPTZ)`) around the zone's changes of offset and across the years. */
async function instants(zone: string): Promise<number> {
  const offset = (x: string) => `epoch_us(timezone('${zone}', ${x})) - epoch_us(${x})`
  await conn.run(`CREATE OR REPLACE TEMP TABLE change_days AS
    SELECT d FROM (SELECT range AS d FROM range(TIMESTAMPTZ '1969-12-01 00:00:00+00', TIMESTAMPTZ '2050-02-01 00:00:00+00', INTERVAL 1 DAY))
    WHERE ${offset('d')} <> ${offset('d + INTERVAL 1 DAY')}`)
  await conn.run(`CREATE OR REPLACE TEMP TABLE t AS
    SELECT d + INTERVAL (m) MINUTE - INTERVAL (e) MICROSECOND AS x FROM change_days, range(0, 1441) r(m), (VALUES (0), (1)) v(e)
    UNION ALL
    SELECT make_timestamptz(-400000000000000 + i * 7777777777) AS x FROM range(0, 400000) r(i)`)
  return Number((await conn.runAndReadAll('SELECT count(*) FROM change_days')).getRows()[0][0])
}

describe('the local date of an event time', () => {
  it.each(ZONES)('is ICU’s date for every instant in %s', async (zone) => {
    await conn.run(`SET TimeZone = '${zone}'`)
    const changes = await instants(zone)
    if (zone === 'UTC' || zone === 'Asia/Kolkata') expect(changes).toBe(0)
    else expect(changes).toBeGreaterThan(zone === 'Asia/Shanghai' ? 10 : 60)
    const date = await localDateSql(conn, TREE_FROM_ROWS)
    const reader = await conn.runAndReadAll(`SELECT count(*) AS n, count(*) FILTER (WHERE ${date('x')} IS DISTINCT FROM CAST(x AS DATE)) AS wrong,
        min(x) FILTER (WHERE ${date('x')} IS DISTINCT FROM CAST(x AS DATE)) AS first FROM t`)
    const [n, wrong, first] = reader.getRows()[0]
    expect(Number(n)).toBeGreaterThanOrEqual(400000)
    expect({ wrong: Number(wrong), first: first === null ? null : String(first) }).toEqual({ wrong: 0, first: null })
  })

  it('follows the connection’s zone, including one it has not seen yet', async () => {
    await conn.run("SET TimeZone = 'Asia/Tokyo'")
    const tokyo = await localDateSql(conn, TREE_FROM_ROWS)
    await conn.run("SET TimeZone = 'America/Los_Angeles'")
    const la = await localDateSql(conn, TREE_FROM_ROWS)
    const x = "TIMESTAMPTZ '2024-07-01 20:00:00+00'"
    const reader = await conn.runAndReadAll(`SELECT CAST(${tokyo(x)} AS VARCHAR), CAST(${la(x)} AS VARCHAR)`)
    expect(reader.getRows()[0]).toEqual(['2024-07-02', '2024-07-01'])
  })
})
