import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Warehouse } from '../../src-main/warehouse'
import { ClickHouseClient } from '../../src-main/warehouse/clickhouse/client'
import { clickhouseDialect } from '../../src-main/warehouse/clickhouse/dialect'
import { shownColumns, type ProjectColumns } from '../../src-main/warehouse/clickhouse/shownColumns'
import { CustomSqlRefusal, type SqlScope } from '../../src-main/warehouse/parts/customSql'
import { clickhouseAvailable, READER, startClickHouse, type TestClickHouse } from '../helpers/clickhouse'

/**
 * Custom SQL's statement checks on ClickHouse: one SELECT, only the project's tables, no table
 * functions or functions that reach files, URLs, dictionaries or other databases. The refusals
 * need no server; the accepted text is then described and run as the read-only user on 18.16.
 */

const d = clickhouseDialect('UTC')
const scope: SqlScope = { appKey: 'shop_app', database: 'proj_db', tables: new Set(['event_vd', 'profile_vd', 'cohort_1']) }
const noServer = {} as Warehouse
const guard = <T>(work: () => Promise<T>) => work()
const check = (sql: string) => d.checkCustomSqlText(noServer, scope, sql, guard)

async function refusal(sql: string): Promise<string> {
  try {
    await check(sql)
  } catch (e) {
    if (e instanceof CustomSqlRefusal) return e.message
    throw e
  }
  throw new Error(`not refused: ${sql}`)
}

describe('custom SQL checks on ClickHouse text', () => {
  const REFUSED: [string, RegExp][] = [
    ['SELECT 1; SELECT 2', /exactly one statement/],
    ['', /empty/],
    ['  -- only a comment\n', /empty/],
    ["INSERT INTO event_vd (xwho) VALUES ('a')", /only a query/],
    ['DROP TABLE event_vd', /only a query/],
    ['SYSTEM SHUTDOWN', /only a query/],
    ['KILL QUERY WHERE 1', /only a query/],
    ["SET readonly = 0", /only a query/],
    ['SHOW TABLES', /only a query/],
    ["SELECT * FROM file('/etc/passwd', 'CSV', 'x String')", /table functions/],
    ["SELECT * FROM url('http://example.com/x.csv', CSV, 'x String')", /table functions/],
    ["SELECT * FROM remote('127.0.0.1', system.one)", /table functions/],
    ['SELECT * FROM numbers(10)', /table functions/],
    ["SELECT * FROM mysql('h:3306', 'db', 't', 'u', 'p')", /table functions/],
    ["SELECT count() FROM event_vd e JOIN s3('http://x/y.csv') AS f ON 1", /table functions/],
    ['SELECT * FROM system.tables', /only the project's own tables/],
    ['SELECT * FROM other_db.event_vd', /only the project's own tables/],
    ['SELECT * FROM `system`.`users`', /only the project's own tables/],
    ['SELECT * FROM event_vd, system.one', /only the project's own tables/],
    ['SELECT * FROM (SELECT 1) AS a, system.one', /only the project's own tables/],
    ['SELECT * FROM (SELECT 1) a, other_table', /not one of the project's tables/],
    ['SELECT * FROM event_vd AS e ANY LEFT JOIN system.one USING dummy', /only the project's own tables/],
    ['SELECT * FROM user_ids', /not one of the project's tables/],
    ['SELECT xwho FROM event_vd WHERE distinct_id IN other_table', /not one of the project's tables/],
    ['SELECT * FROM (SELECT * FROM system.processes)', /only the project's own tables/],
    ["SELECT dictGetString('d', 'a', toUInt64(1))", /reaches outside/],
    ["SELECT joinGet('j', 'v', 1)", /reaches outside/],
    ["SELECT file('/etc/passwd')", /reaches outside/],
    ['SELECT 1 FORMAT JSON', /FORMAT cannot be used/],
    ["SELECT 1 INTO OUTFILE '/tmp/x'", /INTO cannot be used/],
    ['SELECT 1 SETTINGS max_threads = 64', /SETTINGS cannot be used/],
    ['SELECT {n:UInt8}', /parameters/],
    ['SELECT * FROM event_vd WHERE xwho = ?', /parameters/],
    ["SELECT 'a", /does not end/],
    ['SELECT 1 /* open', /does not end/],
  ]
  for (const [sql, message] of REFUSED) {
    it(`refuses ${JSON.stringify(sql)}`, async () => {
      expect(await refusal(sql)).toMatch(message)
    })
  }

  it('accepts one SELECT of the project tables, and writes it back without comments, the last ; or its own database', async () => {
    expect(await check('SELECT count() FROM event_vd -- all of them\n;')).toBe('SELECT count() FROM event_vd')
    expect(await check('SELECT e.xwho FROM shop_app.event_vd AS e JOIN proj_db.profile_vd u ON u.distinct_id = e.distinct_id')).toBe(
      'SELECT e.xwho FROM event_vd AS e JOIN profile_vd u ON u.distinct_id = e.distinct_id',
    )
    // strings and quoted names hide nothing: a ';' or 'system.tables' inside them is text
    expect(await check("SELECT 'a; DROP TABLE x', 'FROM system.tables' AS `from file(x)` FROM cohort_1")).toBe("SELECT 'a; DROP TABLE x', 'FROM system.tables' AS `from file(x)` FROM cohort_1")
    // a query's own names: CTEs, subqueries, ARRAY JOIN of a column, IN a subquery
    expect(await check('WITH recent AS (SELECT xwho FROM event_vd) SELECT count() FROM recent WHERE xwho IN (SELECT xwho FROM profile_vd)')).toContain('FROM recent')
    expect(await check('SELECT t FROM event_vd ARRAY JOIN [1, 2] AS t, (SELECT 1) AS s')).toContain('ARRAY JOIN')
    expect(await check('SELECT * FROM event_vd e, profile_vd u WHERE e.distinct_id = u.distinct_id')).toContain('profile_vd u')
  })
})

describe.skipIf(!clickhouseAvailable())('custom SQL on ClickHouse 18.16: tables, described columns, run read-only', () => {
  let ch: TestClickHouse
  let conn: Warehouse
  let reader: ClickHouseClient

  beforeAll(async () => {
    ch = await startClickHouse()
    const admin = new ClickHouseClient({ url: ch.url, user: 'default' })
    await admin.command('CREATE DATABASE proj_db')
    const client = new ClickHouseClient({ url: ch.url, user: 'default', database: 'proj_db' })
    await client.command('CREATE TABLE event_vd (distinct_id Int64, xwho String, xwhen Int64) ENGINE = MergeTree ORDER BY (xwho, xwhen)')
    await client.command("INSERT INTO event_vd VALUES (1, 'u1', 1704067200000), (2, 'u2', 1704067201000)")
    await client.command('CREATE TABLE cohort_1__next (distinct_id Int64) ENGINE = MergeTree ORDER BY tuple()')
    // the Warehouse calls the part makes, over the client (the executor's own are written apart)
    conn = {
      rows: async (sql: string) => (await client.query(sql)).rows,
      describeQuery: async (sql: string) => {
        const { columns } = await client.query(`SELECT * FROM (${sql}) LIMIT 0`)
        return { select: true, parameters: 0, columns: columns.map((c) => ({ name: c.name, type: c.type })) }
      },
    } as unknown as Warehouse
    reader = new ClickHouseClient({ url: ch.url, database: 'proj_db', ...READER })
  })
  afterAll(async () => ch?.stop())

  it('lists the project database and its tables (a table being swapped in is not one)', async () => {
    expect(await d.customSqlTables(conn)).toEqual({ database: 'proj_db', tables: ['event_vd'] })
  })

  it('checks, describes and runs a query as the read-only user', async () => {
    const text = await d.checkCustomSqlText(conn, scope, 'SELECT xwho, count() AS n FROM shop_app.event_vd GROUP BY xwho ORDER BY xwho -- per user', guard)
    const checked = await d.prepareCustomSql(conn, text, guard)
    expect(checked.sql).toBe('SELECT xwho, count() AS n FROM event_vd GROUP BY xwho ORDER BY xwho')
    expect(checked.columns).toEqual([{ name: 'xwho', type: { clickhouse: 'String' } }, { name: 'n', type: { clickhouse: 'UInt64' } }])
    const lines = d.resultLines(checked.sql, checked.columns, 'csv', [])
    expect((await reader.query(lines.sql)).rows).toEqual([['u1,1'], ['u2,1']])
  })

  it('the read-only user is the second wall: a table function is refused by the server too', async () => {
    await expect(reader.query('SELECT * FROM numbers(3)')).rejects.toThrow(/readonly|Cannot/i)
  })
})

describe('which result columns custom SQL on ClickHouse shows as DuckDB shows them (shownColumns)', () => {
  const project: ProjectColumns = new Map([
    ['event_vd', [{ name: 'distinct_id', shown: null }, { name: 'xwhen', shown: 'instant' }, { name: 'vip', shown: 'boolean' }, { name: 'paid_at', shown: 'datetime' }]],
    ['profile_vd', [{ name: 'distinct_id', shown: null }, { name: 'vip', shown: null }, { name: 'signup', shown: 'datetime' }]],
  ])
  const I = 'Int64'
  const shown = (sql: string, result: [string, string][]) => shownColumns(sql, project, result.map(([name, type]) => ({ name, type })))

  it('a bare, qualified or aliased reference, and min/max/any/argMax of one, with the stored type', () => {
    expect(shown('SELECT xwhen, e.vip v, paid_at AS p FROM event_vd AS e', [['xwhen', I], ['v', 'UInt8'], ['p', 'Nullable(Int64)']])).toEqual(['instant', 'boolean', 'datetime'])
    expect(shown('SELECT max(xwhen), argMax(paid_at, xwhen) AS last, any(e.vip) FROM event_vd e', [['max(xwhen)', I], ['last', I], ['any(vip)', 'UInt8']])).toEqual(['instant', 'datetime', 'boolean'])
    // a cast or sum changes the type; the type is checked too
    expect(shown('SELECT max(xwhen) FROM event_vd', [['max(xwhen)', 'UInt64']])).toEqual([null])
  })

  it('nothing computed, from a subquery, ambiguous, or an alias of another item', () => {
    expect(shown('SELECT xwhen + 0, toString(vip), sum(vip) FROM event_vd', [['plus(xwhen, 0)', I], ['toString(vip)', 'String'], ['sum(vip)', 'UInt64']])).toEqual([null, null, null])
    expect(shown('SELECT t FROM (SELECT xwhen + 0 AS t FROM event_vd)', [['t', I]])).toEqual([null])
    // vip is a boolean in event_vd, a number column in profile_vd: unqualified, it is not converted
    expect(shown('SELECT vip, e.vip FROM event_vd e JOIN profile_vd p ON p.distinct_id = e.distinct_id', [['vip', 'UInt8'], ['e.vip', 'UInt8']])).toEqual([null, 'boolean'])
    expect(shown('SELECT distinct_id AS xwhen, xwhen AS t FROM event_vd', [['xwhen', I], ['t', I]])).toEqual([null, null])
    expect(shown('SELECT xwhen AS xwhen FROM event_vd', [['xwhen', I]])).toEqual(['instant'])
  })

  it('through subqueries in FROM: their items are read the same way', () => {
    expect(shown('SELECT t, v FROM (SELECT e.xwhen AS t, vip AS v FROM event_vd e) AS s', [['t', I], ['v', 'UInt8']])).toEqual(['instant', 'boolean'])
    expect(shown('SELECT * FROM (SELECT xwhen, max(paid_at) AS last FROM event_vd GROUP BY xwhen)', [['xwhen', I], ['last', I]])).toEqual(['instant', 'datetime'])
    expect(shown('SELECT s.signup FROM (SELECT * FROM profile_vd) s', [['signup', I]])).toEqual(['datetime'])
    // an unnamed computed column, or a star over a join, leaves the subquery's columns unknown
    expect(shown('SELECT xwhen FROM (SELECT *, * FROM event_vd e, profile_vd p)', [['xwhen', I]])).toEqual([null])
  })

  it('stars by the width of their tables, and UNION ALL when every branch agrees', () => {
    expect(shown('SELECT *, 1 AS one FROM event_vd', [['distinct_id', I], ['xwhen', I], ['vip', 'UInt8'], ['paid_at', I], ['one', 'UInt8']])).toEqual([null, 'instant', 'boolean', 'datetime', null])
    expect(shown('SELECT * FROM event_vd e JOIN profile_vd p USING distinct_id', [['distinct_id', I], ['xwhen', I], ['vip', 'UInt8'], ['paid_at', I], ['p.vip', 'UInt8'], ['signup', I]])).toEqual([null, 'instant', null, 'datetime', null, 'datetime'])
    // two stars of unknown width: nothing is converted
    expect(shown('SELECT *, * FROM event_vd e, profile_vd p', [['xwhen', I], ['signup', I]])).toEqual([null, null])
    expect(shown('SELECT xwhen FROM event_vd UNION ALL SELECT xwhen FROM event_vd', [['xwhen', I]])).toEqual(['instant'])
    expect(shown('SELECT xwhen FROM event_vd UNION ALL SELECT distinct_id FROM event_vd', [['xwhen', I]])).toEqual([null])
  })
})
