import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ClickHouseClient } from '../../src-main/warehouse/clickhouse/client'
import { clickhouseDialect } from '../../src-main/warehouse/clickhouse/dialect'
import { bind, type Literal } from '../../src-main/warehouse/clickhouse/literal'
import type { BoundValue } from '../../src-main/warehouse'
import { clickhouseAvailable, startClickHouse, type TestClickHouse } from '../helpers/clickhouse'

/**
 * The statements of the ClickHouse dialect on the real 18.16 server: tables the domain defines
 * (their comment, catalog and row counts), user sets (replaced tables, value tables in a session,
 * temporary tables and their positional value), and the text of custom SQL results.
 */

const d = clickhouseDialect('Asia/Shanghai')

describe.skipIf(!clickhouseAvailable())('ClickHouse dialect statements on 18.16', () => {
  let ch: TestClickHouse
  let client: ClickHouseClient
  /** One HTTP session: its temporary tables live until it ends. */
  const session = { session_id: `dialect-${process.pid}` }

  /** Runs a dialect statement; positional values go to {p1:...}, {p2:...} as the executor binds them. */
  async function run(sql: string, values: readonly BoundValue[] = []): Promise<unknown[][]> {
    const params = Object.fromEntries(values.map((v, i) => [`p${i + 1}`, v as Literal]))
    const { rows } = await client.query(values.length ? bind(sql, params) : sql, { settings: session })
    return rows
  }

  beforeAll(async () => {
    ch = await startClickHouse()
    await new ClickHouseClient({ url: ch.url, user: 'default' }).command('CREATE DATABASE statements')
    client = new ClickHouseClient({ url: ch.url, user: 'default', database: 'statements' })
  })
  afterAll(async () => ch?.stop())

  it('creates a dimension table, marks it, and reads its kind, columns and row count back', async () => {
    expect(await run(d.tableOrView('shops').sql)).toEqual([])
    expect(await run(d.tableColumns('shops').sql)).toEqual([])
    await run(d.createTable('shops', [
      { id: 'shop_id', type: 'string', notNull: true },
      { id: 'rank', type: 'number' },
      { id: 'open', type: 'boolean' },
      { id: 'since', type: 'datetime' },
      { id: 'tags', type: 'array<string>' },
    ]))
    expect(await run(d.tableOrView('shops').sql)).toEqual([['']])
    await run(d.commentOn('shops', 'uba-desk dimension table'))
    expect(await run(d.tableOrView('shops').sql)).toEqual([['uba-desk dimension table']])
    await run(d.addColumn('shops', { id: 'city', type: 'string' }))
    const columns = await run(d.tableColumns('shops').sql)
    expect(columns.map((c) => [c[0], d.valueTypeOf(String(c[1]))])).toEqual([
      ['shop_id', 'string'], ['rank', 'number'], ['open', 'boolean'], ['since', 'datetime'], ['tags', 'array<string>'], ['city', 'string'],
    ])
    await client.command("INSERT INTO shops (shop_id, rank, tags) VALUES ('s1', 1.5, ['a']), ('s2', NULL, [])")
    // the comment column is hidden: SELECT * shows the table's own columns only
    expect((await client.query('SELECT * FROM shops ORDER BY shop_id')).columns.map((c) => c.name)).toEqual(['shop_id', 'rank', 'open', 'since', 'tags', 'city'])
    expect(await run(d.rowCount('shops'))).toEqual([[2n]])
    await run(d.clearTable('shops'))
    expect(await run(d.rowCount('shops'))).toEqual([[0n]])
    await run(d.dropTable('shops'))
    await run(d.dropTable('shops', true))
    expect(await run(d.tableOrView('shops').sql)).toEqual([])
  })

  it('a view has no comment, and another table is not a dimension table', async () => {
    await client.command('CREATE TABLE other (x UInt8) ENGINE = MergeTree ORDER BY tuple()')
    await client.command('CREATE VIEW seen AS SELECT 1 AS x')
    expect(await run(d.tableOrView('seen').sql)).toEqual([[null]])
    expect(await run(d.tableOrView('other').sql)).toEqual([['']])
  })

  it('adds and retypes a property column; refuses upserts it cannot write exactly', async () => {
    await client.command('CREATE TABLE event_vd (distinct_id Int64, xwhen Int64) ENGINE = MergeTree ORDER BY tuple()')
    await run(d.addPropertyColumn('event_vd', { id: '$city', type: 'string' }))
    await run(d.retypePropertyColumn('event_vd', { id: '$city', type: 'number' }))
    expect(await run(d.tableColumns('event_vd').sql)).toEqual([['distinct_id', 'Int64'], ['xwhen', 'Int64'], ['$city', 'Nullable(Float64)']])
    const picked = await client.query(`SELECT ${d.allColumnsBut('e', ['distinct_id', 'xwhen'], ['distinct_id', 'xwhen', '$city'])} FROM event_vd e`)
    expect(picked.columns).toEqual([{ name: '$city', type: 'Nullable(Float64)' }])
    expect(() => d.upsert('shops', [{ id: 'shop_id', type: 'string' }], ['shop_id'])).toThrow(/needs every column of the table/)
  })

  it('upserts dimension rows: a given value replaces, a left-out one stays, an explicit NULL clears, a new key is added', async () => {
    const table = [
      { id: 'id', type: 'string' as const, notNull: true },
      { id: 'name', type: 'string' as const },
      { id: 'score', type: 'number' as const },
      { id: 'extra', type: 'string' as const },
    ]
    await run(d.createTable('dim_a', table))
    await run(d.commentOn('dim_a', 'uba-desk dimension table'))
    await client.command("INSERT INTO dim_a (id, name, score, extra) VALUES ('a', 'A', 1, 'x'), ('b', 'B', 2, 'y'), ('d', 'D', 4, 'z')")
    const upsert = d.upsert('dim_a', table.slice(0, 3), ['id'], table)
    await run(upsert.stage)
    // per column: its value, then whether the row gave it
    await client.command(`INSERT INTO ${upsert.staging} VALUES ('a', 1, 'A2', 1, NULL, 0), ('b', 1, NULL, 1, 5, 1), ('c', 1, 'C', 1, 3, 1)`, { settings: session })
    for (const sql of upsert.apply) await run(sql)
    expect(await run('SELECT id, name, score, extra FROM dim_a ORDER BY id')).toEqual([
      ['a', 'A2', 1, 'x'],
      ['b', null, 5, 'y'],
      ['c', 'C', 3, null],
      ['d', 'D', 4, 'z'],
    ])
    expect(await run(d.tableOrView('dim_a').sql)).toEqual([['uba-desk dimension table']])
    expect(await run("SELECT count() FROM system.tables WHERE database = currentDatabase() AND name LIKE 'dim_a_%'")).toEqual([[0n]])
  })

  it('upserts by two relation fields', async () => {
    const table = [
      { id: 'k1', type: 'string' as const, notNull: true },
      { id: 'k2', type: 'string' as const, notNull: true },
      { id: 'v', type: 'number' as const },
    ]
    await run(d.createTable('dim_b', table))
    await client.command("INSERT INTO dim_b VALUES ('a', '1', 1), ('a', '2', 2)")
    const upsert = d.upsert('dim_b', table, ['k1', 'k2'], table)
    await run(upsert.stage)
    await client.command(`INSERT INTO ${upsert.staging} VALUES ('a', 1, '2', 1, 9, 1), ('b', 1, '1', 1, 3, 1)`, { settings: session })
    for (const sql of upsert.apply) await run(sql)
    expect(await run('SELECT k1, k2, v FROM dim_b ORDER BY k1, k2')).toEqual([['a', '1', 1], ['a', '2', 9], ['b', '1', 3]])
  })

  it('replaces a table by its statements (created, then replaced whole)', async () => {
    expect(await run(d.tableCount('cohort_1'))).toEqual([[0n]])
    for (const sql of d.replaceTable('cohort_1', 'SELECT toInt64(arrayJoin([3, 1, 2])) AS distinct_id')) await run(sql)
    expect(await run('SELECT distinct_id FROM cohort_1 ORDER BY distinct_id')).toEqual([[1n], [2n], [3n]])
    for (const sql of d.replaceTable('cohort_1', 'SELECT toInt64(7) AS distinct_id')) await run(sql)
    expect(await run('SELECT distinct_id FROM cohort_1')).toEqual([[7n]])
    expect(await run(d.tableCount('cohort_1'))).toEqual([[1n]])
    expect(await run("SELECT count() FROM system.tables WHERE database = currentDatabase() AND name LIKE 'cohort_1_%'")).toEqual([[0n]])
  })

  it('fills value tables in the session: each text once, or side by side with labels (quotes, empty lists)', async () => {
    const plain = d.valuesTable('file_values', ["o'neil", 'b', "o'neil", ''])
    expect(plain.values).toEqual([])
    await run(plain.sql)
    expect(await run('SELECT value FROM file_values ORDER BY value')).toEqual([[''], ['b'], ["o'neil"]])
    const labelled = d.valuesTable('file_labels', ['x', 'y'], ['X\\1', 'Y\n'])
    await run(labelled.sql)
    expect(await run('SELECT value, label FROM file_labels ORDER BY value')).toEqual([['x', 'X\\1'], ['y', 'Y\n']])
    await run(d.valuesTable('file_none', []).sql)
    expect(await run('SELECT count() FROM file_none')).toEqual([[0n]])
  })

  it('creates temporary tables, one from a SELECT, one filled by its positional list of numbers', async () => {
    await run(d.tempTable('cell_ids', [['distinct_id', 'bigint']]))
    await run(d.insertNumbers('cell_ids'), [[3, 1, 2]])
    expect(await run('SELECT distinct_id FROM cell_ids ORDER BY distinct_id')).toEqual([[1n], [2n], [3n]])
    await run(d.tempTableAs('distribution_users', 'SELECT 0 AS r, toInt64(5) AS distinct_id, 2.5 AS v'))
    expect(await run('SELECT r, distinct_id, v FROM distribution_users')).toEqual([[0, 5n, 2.5]])
  })

  it('writes custom SQL results as JSON objects and CSV lines by the columns types', async () => {
    const inner = `SELECT 'say "hi"\\n\\ttab\\x01' AS s, CAST(NULL AS Nullable(String)) AS nothing, toInt64(9007199254740993) AS big, toInt64(-3) AS small,
      1 / 0 AS inf, 2.5 AS x, toUInt8(1) AS flag, ['a', 'b,c'] AS list, toDateTime(1704067200) AS at, toDateTime(1704067200, 'UTC') AS wall, toDate('2024-01-02') AS day, (1, 'two') AS pair`
    const { columns: meta } = await client.query(`SELECT * FROM (${inner}) LIMIT 0`)
    const columns = meta.map((c) => ({ name: c.name, type: { clickhouse: c.type } }))
    const keys = ['s', 'nothing', 'big', 'small', 'inf', 'x', 'flag', 'list', 'at', 'wall', 'day', 'pair']
    const json = d.resultLines(inner, columns, 'json', keys)
    expect(json.values).toEqual([])
    const [[line]] = await run(json.sql)
    expect(JSON.parse(String(line))).toEqual({
      s: 'say "hi"\n\ttab\u0001', nothing: null, big: '9007199254740993', small: -3, inf: 'inf', x: 2.5, flag: 1,
      list: ['a', 'b,c'], at: '2024-01-01 08:00:00', wall: '2024-01-01 00:00:00', day: '2024-01-02', pair: [1, 'two'],
    })
    const [[csv]] = await run(d.resultLines(inner, columns, 'csv', []).sql)
    expect(csv).toBe('"say ""hi""\n\ttab\u0001",,9007199254740993,-3,inf,2.5,1,"[""a"",""b,c""]",2024-01-01 08:00:00,2024-01-01 00:00:00,2024-01-02,"[1,""two""]"')
  })

  it('keeps the inner query\'s row order, and a key that is not a plain name stays text', async () => {
    const inner = 'SELECT number AS n FROM system.numbers LIMIT 3'
    const sql = d.resultLines(`SELECT n FROM (${inner}) ORDER BY n DESC`, [{ name: 'n', type: { clickhouse: 'UInt64' } }], 'json', ['n"\')--'])
    expect((await run(sql.sql)).map((r) => JSON.parse(String(r[0])))).toEqual([{ 'n"\')--': 2 }, { 'n"\')--': 1 }, { 'n"\')--': 0 }])
  })

  it('stamps an instant for exports with milliseconds only when it has them', async () => {
    expect(await run(`SELECT ${d.exportStamp('toInt64(1704067200007)')}, ${d.exportStamp('toInt64(1704067201000)')}`)).toEqual([['2024-01-01 08:00:00.007', '2024-01-01 08:00:01']])
  })
})

