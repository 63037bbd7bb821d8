import { beforeAll, describe, expect, it } from 'vitest'
import { DIMENSION_MARKER } from '../../src-main/domain/schema/dimensionWarehouse'
import { withWriteLock } from '../../src-main/domain/writeLock'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import type { TestServer } from '../helpers/server'

/*
 * Dimension tables on either engine: the same requests and answers on a DuckDB project and on a
 * ClickHouse one. The checks that read the stored table are written in each engine's SQL; what only
 * DuckDB has (its type names, unique indexes, open transactions) is checked on DuckDB only.
 */

describe.each(ENGINES)('dimension tables, on %s', (engine) => {
  const host = useEngine(engine)
  const ch = engine === 'clickhouse'
  let s: TestServer
  let p: Project
  const timeZone = 'UTC'

  beforeAll(async () => {
    s = host.server
    p = await host.project('dims', timeZone)
    await s.call('POST', '/uba/manage/enterprise/accounts', { headers: { xtoken: s.creds.xtoken }, body: { email: 'a@example.com' } })
  })

  const create = (body: unknown, query = '') => s.call('POST', `/uba/api/project/dimensions${query}`, { headers: p, body })
  const update = (body: unknown, query = '') => s.call('POST', `/uba/api/dimensions/update${query}`, { headers: p, body })
  const fields = (table: string) => s.call('GET', `/uba/api/project/dimensions/properties?table=${table}`, { headers: p })
  const list = async () => (await s.call('GET', '/uba/api/project/dimensions', { headers: p })).body
  const clear = (table: string, query = '') => s.call('DELETE', `/uba/api/project/dimensions/clear?table=${table}${query}`, { headers: p })
  const drop = (table: string, query = '') => s.call('DELETE', `/uba/api/project/dimensions/drop?table=${table}${query}`, { headers: p })

  /**
   * Runs SQL on the project's warehouse and returns the rows as objects: DuckDB's text; on ClickHouse
   * `chSql` (the same question in its SQL, `sql` when it reads the same), with the UInt8 it stores a
   * boolean as read back as true/false in the columns named by `flags` (docs/clickhouse.md: 18.16 has no Bool).
   */
  const duck = (sql: string, chSql = sql, flags: string[] = []): Promise<Record<string, unknown>[]> =>
    s.app.ctx.warehouse.withConnection(p.appKey, timeZone, async (conn) => {
      if (!ch) return (await conn.runAndReadAll(sql)).getRowObjectsJS()
      if (!/^\s*SELECT/i.test(chSql)) return (await conn.run(chSql), [])
      const flag = (v: unknown) => (v === null ? null : Number(v) === 1)
      return (await conn.query(chSql)).map((r) => ({ ...r, ...Object.fromEntries(flags.map((f) => [f, flag(r[f])])) }))
    })
  /** The engine's own type names of a table's columns, in order. */
  const duckTypes = async (table: string) =>
    Object.fromEntries(
      (await duck(
        `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = '${table}' ORDER BY ordinal_position`,
        // 18.16's system.columns has no position: it lists a table's columns in their order; the comment column is the table's marker
        `SELECT name AS column_name, type AS data_type FROM system.columns WHERE database = currentDatabase() AND table = '${table}' AND name != '_uba_comment'`,
      )).map((r) => [r.column_name, r.data_type]),
    )
  /** ClickHouse stores a missing list as [] (no Nullable(Array) on 18.16: docs/clickhouse.md), so a row without one reads []. */
  const listed = <T extends Record<string, unknown>>(rows: T[], column: string): T[] => (ch ? rows.map((r) => ({ ...r, [column]: r[column] ?? [] })) : rows)
  const metaOf = (table: string) => ({
    table: s.app.ctx.meta.prepare('SELECT name, show_name, remark FROM dimension_tables WHERE app_key = ? AND name = ?').all(p.appKey, table),
    fields: s.app.ctx.meta.prepare('SELECT id, data_type, relation, position FROM dimension_fields WHERE app_key = ? AND table_name = ? ORDER BY position').all(p.appKey, table),
  })
  /** The table left no trace in either store. */
  async function expectNothing(table: string): Promise<void> {
    expect(await duck(`SELECT table_name FROM duckdb_tables() WHERE table_name = '${table}'`, `SELECT name AS table_name FROM system.tables WHERE database = currentDatabase() AND name = '${table}'`)).toEqual([])
    expect(metaOf(table)).toEqual({ table: [], fields: [] })
  }
  const field = (id: string, dataType: string, relation = 0) => ({ id, dataType, name: null, remark: null, enable: 1, relation })

  const STORES = {
    table: 'city_store',
    showName: '门店 Stores',
    remark: 'x'.repeat(200),
    relations: ['city', 'store_id'],
    columns: { city: 'string', store_id: 'number', opened: 'datetime', open: 'boolean', tags: 'array<string>', note: 'string' },
    rows: [
      { city: '北京', store_id: 1, opened: '2024-03-01 09:30:15.250', open: true, tags: ['旗舰', 'café'], note: 'Zürich 🚀' },
      { city: '北京', store_id: 2, opened: '2024-03-02 10:00:00', open: false, tags: [], note: null },
      { city: 'Zürich', store_id: 1, opened: '2024-02-29', open: true, tags: ['a'] },
    ],
  }
  /** ClickHouse: a datetime column's text with its milliseconds (yyyy-MM-dd HH:mm:ss.SSS), NULL for none. */
  const stampText = (column: string) =>
    `if(isNull(${column}), NULL, concat(toString(toDateTime(intDiv(assumeNotNull(${column}), 1000), 'UTC')), '.', substring(toString(1000 + assumeNotNull(${column}) % 1000), 2)))`
  const readStores = () =>
    duck(
      `SELECT city, store_id, strftime(opened, '%Y-%m-%d %H:%M:%S.%g') AS opened, open, tags, note FROM city_store ORDER BY city, store_id`,
      `SELECT city, store_id, ${stampText('opened')} AS opened, open, tags, note FROM city_store ORDER BY city, store_id`,
      ['open'],
    )

  describe('create and read (4.8)', () => {
    it('creates a table with two relation fields and typed columns, readable back from the warehouse', async () => {
      const res = await create(STORES, '?loginUser=a@example.com')
      expect(res).toMatchObject({ status: 200, body: { success: 0 } })
      if (ch) expect(await duckTypes('city_store')).toEqual({ city: 'String', store_id: 'Float64', opened: 'Nullable(Int64)', open: 'Nullable(UInt8)', tags: 'Array(String)', note: 'Nullable(String)' })
      else expect(await duckTypes('city_store')).toEqual({ city: 'VARCHAR', store_id: 'DOUBLE', opened: 'TIMESTAMP', open: 'BOOLEAN', tags: 'VARCHAR[]', note: 'VARCHAR' })
      expect(await readStores()).toEqual([
        { city: 'Zürich', store_id: 1, opened: '2024-02-29 00:00:00.000', open: true, tags: ['a'], note: null },
        { city: '北京', store_id: 1, opened: '2024-03-01 09:30:15.250', open: true, tags: ['旗舰', 'café'], note: 'Zürich 🚀' },
        { city: '北京', store_id: 2, opened: '2024-03-02 10:00:00.000', open: false, tags: [], note: null },
      ])
    })

    it('returns the field records in column order', async () => {
      const res = await fields('city_store')
      expect(res.status).toBe(200)
      expect(res.body).toEqual([
        field('city', 'string', 1),
        field('store_id', 'number', 1),
        field('opened', 'datetime'),
        field('open', 'boolean'),
        field('tags', 'array<string>'),
        field('note', 'string'),
      ])
    })

    it('lists the tables with their relation fields and counts', async () => {
      const [t] = await list()
      expect(t).toEqual({ table: 'city_store', showName: '门店 Stores', remark: 'x'.repeat(200), relations: ['city', 'store_id'], columns: 6, rows: 3, createTime: expect.any(Number), updateTime: t.createTime })
    })

    it('lists tables and fields while the project is locked for writing (a long import)', async () => {
      let release = () => {}
      const held = withWriteLock(s.app.ctx, p.appKey, () => new Promise<void>((r) => (release = r)))
      try {
        expect((await list()).map((t: { table: string }) => t.table)).toEqual(['city_store'])
        expect((await fields('city_store')).body).toHaveLength(6)
      } finally {
        release()
        await held
      }
    })

    it('answers 501/50101 for a table that exists, and leaves it as it was', async () => {
      const res = await create({ ...STORES, table: 'City_Store', rows: [{ city: 'x', store_id: 9 }] })
      expect(res).toMatchObject({ status: 501, body: { code: 50101, msg: 'dimension table city_store already exists' } })
      expect((await readStores()).length).toBe(3)
    })

    it('folds table and column names to lower case, on write and on read', async () => {
      const res = await create({ table: 'UserInfo', relations: ['UserId'], columns: { UserId: 'string', Level: 'number' }, rows: [{ USERID: 'u1', level: 3 }] })
      expect(res.body).toEqual({ success: 0 })
      expect((await fields('USERINFO')).body).toEqual([field('userid', 'string', 1), field('level', 'number')])
      expect(await duck('SELECT userid, level FROM userinfo')).toEqual([{ userid: 'u1', level: 3 }])
    })

    it('makes the first column the relation field when relations is omitted', async () => {
      await create({ table: 'plans', columns: { plan: 'string', price: 'number' }, rows: [{ plan: 'pro', price: 9.5 }] })
      expect((await fields('plans')).body).toEqual([field('plan', 'string', 1), field('price', 'number')])
    })

    it('merges rows with the same relation values in one request, the later row winning', async () => {
      await create({
        table: 'merged',
        relations: ['k'],
        columns: { k: 'string', a: 'number', b: 'string' },
        rows: [{ k: 'x', a: 1, b: 'first' }, { k: 'y', a: 2 }, { k: 'x', a: 3 }],
      })
      expect(await duck('SELECT k, a, b FROM merged ORDER BY k')).toEqual([{ k: 'x', a: 3, b: 'first' }, { k: 'y', a: 2, b: null }])
    })

    it('answers 400 naming table for a table that does not exist', async () => {
      expect((await fields('nothing_here')).body).toEqual({ code: 400, msg: 'dimension table nothing_here does not exist', data: ['table'] })
      expect((await s.call('GET', '/uba/api/project/dimensions/properties', { headers: p })).body.data).toEqual(['table'])
    })

    it('needs the project credentials', async () => {
      expect((await s.call('GET', '/uba/api/project/dimensions')).status).toBe(401)
      expect((await s.call('POST', '/uba/api/dimensions/update', { body: { table: 'plans', columns: { plan: 'string' }, rows: [] } })).status).toBe(401)
    })
  })

  const T = { table: 't_bad', columns: { id: 'string', n: 'number', b: 'boolean', d: 'datetime', l: 'array<string>' } }
  const row = (extra: Record<string, unknown>) => ({ ...T, rows: [{ id: 'ok', n: 1 }, { id: 'k', ...extra }] })

  describe('create rules: each rejected request answers 400 naming the parameter and writes nothing', () => {
    it.each([
      [{ columns: T.columns, rows: [{ id: 'a' }] }, ['table'], 'table is required'],
      [{ ...T, table: '1abc', rows: [{ id: 'a' }] }, ['table'], 'table: letters, digits and underscore, not starting with a digit, at most 100 characters'],
      [{ ...T, table: 'a'.repeat(101), rows: [{ id: 'a' }] }, ['table'], null],
      [{ ...T, table: 'event_vd', rows: [{ id: 'a' }] }, ['table'], 'table: event_vd is a name the warehouse keeps for its own tables'],
      [{ ...T, table: 'Profile_VD', rows: [{ id: 'a' }] }, ['table'], null],
      [{ ...T, table: 'user_ids', rows: [{ id: 'a' }] }, ['table'], null],
      [{ ...T, table: 'cohort_c1', rows: [{ id: 'a' }] }, ['table'], 'table: cohort_c1 is a name the warehouse keeps for its own tables'],
      [{ ...T, table: 'Tag_t1', rows: [{ id: 'a' }] }, ['table'], null],
      [{ ...T, table: 'select', rows: [{ id: 'a' }] }, ['table'], 'table: select is a reserved word of the SQL dialect'],
      [{ table: 't_bad', rows: [{ id: 'a' }] }, ['columns'], 'columns is required'],
      [{ table: 't_bad', columns: {}, rows: [{ id: 'a' }] }, ['columns'], null],
      [{ table: 't_bad', columns: { id: 'text' }, rows: [{ id: 'a' }] }, ['columns.id'], 'columns.id must be one of string, number, boolean, datetime, array<string>'],
      [{ table: 't_bad', columns: { 'bad-name': 'string' }, rows: [{}] }, ['columns.bad-name'], null],
      [{ table: 't_bad', columns: { id: 'string', order: 'string' }, rows: [{ id: 'a' }] }, ['columns.order'], 'columns.order: order is a reserved word of the SQL dialect'],
      [{ table: 't_bad', columns: { id: 'string', rowid: 'number' }, rows: [{ id: 'a' }] }, ['columns.rowid'], null],
      [{ table: 't_bad', columns: { id: 'string', ID: 'string' }, rows: [{ id: 'a' }] }, ['columns.ID'], 'columns.ID: column id is given twice (names are case-insensitive)'],
      [{ ...T, relations: ['id', 'ghost'], rows: [{ id: 'a' }] }, ['relations[1]'], 'relations[1]: relation field ghost is not defined in columns'],
      [{ ...T, relations: ['id', 'ID'], rows: [{ id: 'a' }] }, ['relations[1]'], null],
      [{ ...T, relations: ['l'], rows: [{ l: ['a'] }] }, ['relations[0]'], 'relations[0]: relation field l cannot be an array<string>'],
      [{ ...T, relations: [], rows: [{ id: 'a' }] }, ['relations'], null],
      [{ ...T, relations: ['id', 'n', 'b', 'd', 'l', 'id'], rows: [{ id: 'a' }] }, ['relations'], null],
      [{ ...T, showName: 's'.repeat(201), rows: [{ id: 'a' }] }, ['showName'], 'showName: at most 200 characters'],
      [{ ...T, remark: 'r'.repeat(201), rows: [{ id: 'a' }] }, ['remark'], 'remark: at most 200 characters'],
      [{ ...T }, ['rows'], 'rows is required'],
      [{ ...T, rows: [] }, ['rows'], null],
      [{ ...T, rows: [5] }, ['rows[0]'], null],
      [row({ ghost: 1 }), ['rows[1].ghost'], 'rows[1].ghost: column ghost is not defined in columns'],
      [row({ id: 'x', ID: 'y' }), ['rows[1].ID'], 'rows[1].ID: column id is given twice in one row'],
      [{ ...T, rows: [{ id: 'a' }, { n: 2 }] }, ['rows[1].id'], 'rows[1].id: the relation field must not be empty'],
      [{ ...T, rows: [{ id: null }] }, ['rows[0].id'], null],
      [{ ...T, rows: [{ id: '' }] }, ['rows[0].id'], null],
      [{ ...T, rows: [{ id: '   ' }] }, ['rows[0].id'], null],
      [{ ...T, relations: ['n'], rows: [{ n: null }] }, ['rows[0].n'], null],
      [row({ n: '12' }), ['rows[1].n'], 'rows[1].n must be a number, got "12"'],
      [row({ b: 1 }), ['rows[1].b'], 'rows[1].b must be true or false, got 1'],
      [row({ b: 'true' }), ['rows[1].b'], null],
      [row({ id: 5 }), ['rows[1].id'], 'rows[1].id must be a string, got 5'],
      [row({ d: '2024/03/01' }), ['rows[1].d'], 'rows[1].d must be a datetime written yyyy-MM-dd HH:mm:ss.SSS, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd, got "2024/03/01"'],
      [row({ d: '2023-02-29' }), ['rows[1].d'], null],
      [row({ d: '2024-03-01T10:00:00' }), ['rows[1].d'], null],
      [row({ d: '2024-03-01 10:00' }), ['rows[1].d'], null],
      [row({ d: '2024-03-01 10:00:00.12' }), ['rows[1].d'], null],
      [row({ d: '2024-03-01 24:00:00' }), ['rows[1].d'], null],
      [row({ d: 1709287200000 }), ['rows[1].d'], null],
      [row({ l: ['a', 1] }), ['rows[1].l'], 'rows[1].l must be an array of strings, got ["a",1]'],
      [row({ l: 'a' }), ['rows[1].l'], null],
    ])('%j -> 400 %j', async (body, data, msg) => {
      const res = await create(body)
      expect(res.status).toBe(400)
      expect(res.body.code).toBe(400)
      expect(res.body.data).toEqual(data)
      if (msg) expect(res.body.msg).toBe(msg)
      await expectNothing('t_bad')
    })

    it('refuses more than 100,000 rows in one request', async () => {
      const res = await create({ table: 't_bad', columns: { i: 'string' }, rows: Array.from({ length: 100_001 }, () => ({ i: 'x' })) })
      expect(res.status).toBe(400)
      expect(res.body.data).toEqual(['rows'])
      await expectNothing('t_bad')
    })

    it('loads 100,000 rows in one request', async () => {
      const rows = Array.from({ length: 100_000 }, (_, i) => ({ id: `u${i}`, n: i / 2, d: '2024-03-01 12:00:00', b: i % 2 === 0, l: ['a', 'b'] }))
      expect((await create({ ...T, table: 'big', rows })).body).toEqual({ success: 0 })
      const stats = await duck(
        `SELECT count(*)::INTEGER AS c, sum(n) AS s, count(DISTINCT id)::INTEGER AS k, min(d) = TIMESTAMP '2024-03-01 12:00:00' AS d FROM big`,
        // the datetime as stored there: epoch ms of the wall-clock time
        `SELECT toInt32(count()) AS c, sum(n) AS s, toInt32(uniqExact(id)) AS k, min(d) = ${Date.UTC(2024, 2, 1, 12)} AS d FROM big`,
        ['d'],
      )
      expect(stats).toEqual([{ c: 100_000, s: 2_499_975_000, k: 100_000, d: true }])
      expect((await drop('big')).body).toEqual({ success: 0 })
    })
  })

  describe('update (4.8): adds columns, upserts rows by the relation fields', () => {
    it('updates the row with matching relation values, keeps the columns it leaves out, clears an explicit null, and adds the rest', async () => {
      const res = await update({
        table: 'city_store',
        columns: { city: 'string', store_id: 'number', note: 'string', region: 'string' },
        rows: [
          { city: '北京', store_id: 1, note: 'renovated', region: '华北' },
          { city: 'Zürich', store_id: 1, note: null, region: null },
          { city: '北京', store_id: 3, region: '华北' },
        ],
      }, '?loginUser=a@example.com')
      expect(res.body).toEqual({ success: 0 })
      const stored = await duck(
        `SELECT city, store_id, strftime(opened, '%Y-%m-%d %H:%M:%S.%g') AS opened, open, tags, note, region FROM city_store ORDER BY city, store_id`,
        `SELECT city, store_id, ${stampText('opened')} AS opened, open, tags, note, region FROM city_store ORDER BY city, store_id`,
        ['open'],
      )
      expect(stored).toEqual(listed([
        { city: 'Zürich', store_id: 1, opened: '2024-02-29 00:00:00.000', open: true, tags: ['a'], note: null, region: null },
        { city: '北京', store_id: 1, opened: '2024-03-01 09:30:15.250', open: true, tags: ['旗舰', 'café'], note: 'renovated', region: '华北' },
        { city: '北京', store_id: 2, opened: '2024-03-02 10:00:00.000', open: false, tags: [], note: null, region: null },
        { city: '北京', store_id: 3, opened: null, open: null, tags: null, note: null, region: '华北' },
      ], 'tags'))
      expect((await fields('city_store')).body.map((f: any) => `${f.id}:${f.dataType}:${f.relation}`)).toEqual([
        'city:string:1', 'store_id:number:1', 'opened:datetime:0', 'open:boolean:0', 'tags:array<string>:0', 'note:string:0', 'region:string:0',
      ])
      const [t] = (await list()).filter((x: any) => x.table === 'city_store')
      expect(t).toMatchObject({ columns: 7, rows: 4 })
      expect(t.updateTime).toBeGreaterThan(t.createTime)
    })

    it('gives the same table when the same update is sent twice', async () => {
      const body = { table: 'plans', columns: { plan: 'string', price: 'number' }, rows: [{ plan: 'pro', price: 12 }, { plan: 'team', price: 30 }] }
      await update(body)
      const once = await duck('SELECT * FROM plans ORDER BY plan')
      expect((await update(body)).body).toEqual({ success: 0 })
      expect(await duck('SELECT * FROM plans ORDER BY plan')).toEqual(once)
      expect(once).toEqual([{ plan: 'pro', price: 12 }, { plan: 'team', price: 30 }])
    })

    it('upserts into tables whose names could clash with the staging of rows', async () => {
      for (const table of ['s', 'staged_rows', 'dimension_rows']) {
        await create({ table, columns: { k: 'string', v: 'number' }, rows: [{ k: 'a', v: 1 }] })
        expect((await update({ table, columns: { k: 'string', v: 'number' }, rows: [{ k: 'a', v: 2 }, { k: 'b', v: 3 }] })).body).toEqual({ success: 0 })
        expect(await duck(`SELECT k, v FROM ${table} ORDER BY k`)).toEqual([{ k: 'a', v: 2 }, { k: 'b', v: 3 }])
        await drop(table)
      }
    })

    it('may add columns without rows', async () => {
      expect((await update({ table: 'plans', columns: { plan: 'string', launched: 'datetime' }, rows: [] })).body).toEqual({ success: 0 })
      if (ch) expect(await duckTypes('plans')).toEqual({ plan: 'String', price: 'Nullable(Float64)', launched: 'Nullable(Int64)' })
      else expect(await duckTypes('plans')).toEqual({ plan: 'VARCHAR', price: 'DOUBLE', launched: 'TIMESTAMP' })
      expect((await fields('plans')).body.at(-1)).toEqual(field('launched', 'datetime'))
    })

    const before = async () => ({ rows: await duck('SELECT * FROM plans ORDER BY plan'), types: await duckTypes('plans'), meta: metaOf('plans') })
    it.each([
      [{ table: 'nope', columns: { plan: 'string' }, rows: [] }, ['table'], 'dimension table nope does not exist'],
      [{ columns: { plan: 'string' }, rows: [] }, ['table'], 'table is required'],
      [{ table: 'plans', rows: [] }, ['columns'], 'columns is required'],
      [{ table: 'plans', columns: { plan: 'string' } }, ['rows'], 'rows is required'],
      [{ table: 'plans', columns: { price: 'number', extra: 'string' }, rows: [{ price: 1 }] }, ['columns.plan'], 'columns must include the relation field plan'],
      [{ table: 'plans', columns: { plan: 'string', Price: 'string', extra: 'string' }, rows: [] }, ['columns.Price'], 'columns.Price: column price is a number column, not string'],
      [{ table: 'plans', columns: { plan: 'string', extra: 'string' }, rows: [{ plan: 'pro', price: 1 }] }, ['rows[0].price'], 'rows[0].price: column price is not defined in columns'],
      [{ table: 'plans', columns: { plan: 'string', extra: 'number' }, rows: [{ plan: 'pro', extra: 1 }, { plan: 'new', extra: 2 }, { plan: 'x', extra: '3' }] }, ['rows[2].extra'], 'rows[2].extra must be a number, got "3"'],
      [{ table: 'plans', columns: { plan: 'string', extra: 'number' }, rows: [{ plan: 'pro', extra: 1 }, { extra: 2 }] }, ['rows[1].plan'], 'rows[1].plan: the relation field must not be empty'],
    ])('%j -> 400 %j, and changes nothing', async (body, data, msg) => {
      const was = await before()
      const res = await update(body)
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ code: 400, msg, data })
      expect(await before()).toEqual(was)
    })

    // DuckDB only: the fault is a unique index, which ClickHouse has not
    it.runIf(engine === 'duckdb')('rolls back the whole update when the warehouse fails part-way: no new column, no changed or added row', async () => {
      await create({ table: 'codes', columns: { k: 'string', v: 'string' }, rows: [{ k: 'a', v: 'one' }, { k: 'b', v: 'two' }] })
      // a unique index made outside the product lets the update's UPDATE succeed and its INSERT fail
      await duck('CREATE UNIQUE INDEX codes_v ON codes (v)')
      const was = await duck('SELECT * FROM codes ORDER BY k')
      const res = await update({ table: 'codes', columns: { k: 'string', v: 'string' }, rows: [{ k: 'a', v: 'uno' }, { k: 'c', v: 'two' }] })
      expect(res).toMatchObject({ status: 500, body: { code: 500, msg: 'internal server error' } })
      expect(await duck('SELECT * FROM codes ORDER BY k')).toEqual(was)
    })
  })

  describe('clear and drop (4.8)', () => {
    it('clear removes every row and keeps the table and its fields', async () => {
      const fieldsBefore = (await fields('plans')).body
      expect((await clear('PLANS', '&loginUser=a@example.com')).body).toEqual({ success: 0 })
      expect(await duck('SELECT count(*)::INTEGER AS c FROM plans', 'SELECT toInt32(count()) AS c FROM plans')).toEqual([{ c: 0 }])
      expect((await fields('plans')).body).toEqual(fieldsBefore)
      expect((await list()).find((t: any) => t.table === 'plans')).toMatchObject({ rows: 0, columns: 3 })
    })

    it('drop removes the table, its rows and its metadata, and frees the name', async () => {
      expect((await drop('plans', '&loginUser=a@example.com')).body).toEqual({ success: 0 })
      await expectNothing('plans')
      expect((await list()).map((t: any) => t.table)).not.toContain('plans')
      expect((await fields('plans')).body.data).toEqual(['table'])
      expect((await create({ table: 'plans', columns: { code: 'number' }, rows: [{ code: 1 }] })).body).toEqual({ success: 0 })
      expect(await duckTypes('plans')).toEqual(ch ? { code: 'Float64' } : { code: 'DOUBLE' })
    })

    it('answers 400 naming table when clearing or dropping a table that does not exist', async () => {
      for (const call of [clear, drop]) {
        const res = await call('ghost')
        expect(res).toMatchObject({ status: 400, body: { code: 400, msg: 'dimension table ghost does not exist', data: ['table'] } })
      }
      expect((await s.call('DELETE', '/uba/api/project/dimensions/drop', { headers: p })).body.data).toEqual(['table'])
    })

    it('records loginUser as the operator of every write', async () => {
      const a = s.app.ctx.meta.prepare("SELECT id FROM accounts WHERE email = 'a@example.com'").pluck().get()
      const log = s.app.ctx.meta.prepare("SELECT operator_id, action, target FROM operation_log WHERE action LIKE 'dimension.%' AND target IN ('city_store', 'plans') ORDER BY id").all()
      expect(log).toEqual([
        { operator_id: a, action: 'dimension.create', target: 'city_store' },
        { operator_id: null, action: 'dimension.create', target: 'plans' },
        { operator_id: a, action: 'dimension.update', target: 'city_store' },
        { operator_id: null, action: 'dimension.update', target: 'plans' },
        { operator_id: null, action: 'dimension.update', target: 'plans' },
        { operator_id: null, action: 'dimension.update', target: 'plans' },
        { operator_id: a, action: 'dimension.clear', target: 'plans' },
        { operator_id: a, action: 'dimension.drop', target: 'plans' },
        { operator_id: null, action: 'dimension.create', target: 'plans' },
      ])
    })
  })

  describe('the warehouse and the metadata stay consistent', () => {
    const failOn = (trigger: string, sql: string) => s.app.ctx.meta.exec(`CREATE TRIGGER ${trigger} ${sql} BEGIN SELECT RAISE(ABORT, 'disk full'); END`)

    it('a create whose metadata write fails drops its table again', async () => {
      failOn('fail_create', "BEFORE INSERT ON dimension_tables WHEN NEW.name = 'boom'")
      const res = await create({ table: 'boom', columns: { k: 'string' }, rows: [{ k: 'a' }] })
      s.app.ctx.meta.exec('DROP TRIGGER fail_create')
      expect(res).toMatchObject({ status: 500, body: { code: 500, msg: 'internal server error' } })
      await expectNothing('boom')
      expect((await create({ table: 'boom', columns: { k: 'string' }, rows: [{ k: 'a' }] })).body).toEqual({ success: 0 })
    })

    it('a dimension table left without metadata is replaced by the next create of its name', async () => {
      // ClickHouse keeps a table's comment in a hidden column (18.16 has no table comments: parts/tables.ts)
      await duck('CREATE TABLE orphan (old VARCHAR)', 'CREATE TABLE orphan (old Nullable(String)) ENGINE = MergeTree ORDER BY tuple()')
      await duck(`COMMENT ON TABLE orphan IS '${DIMENSION_MARKER}'`, `ALTER TABLE orphan ADD COLUMN _uba_comment String MATERIALIZED '${DIMENSION_MARKER}'`)
      expect((await create({ table: 'orphan', columns: { k: 'string' }, rows: [{ k: 'a' }] })).body).toEqual({ success: 0 })
      expect(await duck('SELECT * FROM orphan')).toEqual([{ k: 'a' }])
    })

    it('refuses the name of a warehouse table that is not a dimension table, and leaves that table alone', async () => {
      await duck('CREATE TABLE scratch (x INTEGER)', 'CREATE TABLE scratch (x Int32) ENGINE = MergeTree ORDER BY tuple()')
      await duck('INSERT INTO scratch VALUES (7)')
      const res = await create({ table: 'scratch', columns: { k: 'string' }, rows: [{ k: 'a' }] })
      expect(res.body).toEqual({ code: 400, msg: 'table: scratch is already a table of the warehouse', data: ['table'] })
      expect(await duck('SELECT * FROM scratch')).toEqual([{ x: 7 }])
    })

    it('an update whose metadata write fails is recorded at the next read, and sending it again gives the same table', async () => {
      await create({ table: 'tiers', columns: { k: 'string' }, rows: [{ k: 'a' }] })
      const body = { table: 'tiers', columns: { k: 'string', rank: 'number' }, rows: [{ k: 'a', rank: 1 }, { k: 'b', rank: 2 }] }
      failOn('fail_update', "BEFORE INSERT ON dimension_fields WHEN NEW.table_name = 'tiers'")
      const res = await update(body)
      s.app.ctx.meta.exec('DROP TRIGGER fail_update')
      expect(res.status).toBe(500)
      expect((await fields('tiers')).body).toEqual([field('k', 'string', 1), field('rank', 'number')])
      expect(metaOf('tiers').fields).toEqual([{ id: 'k', data_type: 'string', relation: 1, position: 0 }, { id: 'rank', data_type: 'number', relation: 0, position: 1 }])
      expect((await update(body)).body).toEqual({ success: 0 })
      expect(await duck('SELECT * FROM tiers ORDER BY k')).toEqual([{ k: 'a', rank: 1 }, { k: 'b', rank: 2 }])
    })

    it('a drop whose metadata delete fails is completed at the next read', async () => {
      failOn('fail_drop', "BEFORE DELETE ON dimension_tables WHEN OLD.name = 'tiers'")
      const res = await drop('tiers')
      s.app.ctx.meta.exec('DROP TRIGGER fail_drop')
      expect(res.status).toBe(500)
      expect((await list()).map((t: any) => t.table)).not.toContain('tiers')
      await expectNothing('tiers')
    })

    it('a drop whose metadata delete fails does not block creating the name again', async () => {
      await create({ table: 'levels', columns: { k: 'string' }, rows: [{ k: 'a' }] })
      failOn('fail_drop', "BEFORE DELETE ON dimension_tables WHEN OLD.name = 'levels'")
      expect((await drop('levels')).status).toBe(500)
      s.app.ctx.meta.exec('DROP TRIGGER fail_drop')
      expect((await create({ table: 'levels', columns: { code: 'number' }, rows: [{ code: 1 }] })).body).toEqual({ success: 0 })
      expect((await fields('levels')).body).toEqual([field('code', 'number', 1)])
    })

    // DuckDB only: the other writer holds an open transaction, which ClickHouse has not
    it.runIf(engine === 'duckdb')('a create that conflicts with another warehouse writer fails and leaves nothing', async () => {
      const res = await s.app.ctx.warehouse.withConnection(p.appKey, timeZone, async (conn) => {
        await conn.run('BEGIN TRANSACTION')
        await conn.run('CREATE TABLE racing (x INTEGER)')
        const answer = await create({ table: 'racing', columns: { k: 'string' }, rows: [{ k: 'a' }] })
        await conn.run('ROLLBACK')
        return answer
      })
      expect(res.status).toBe(500)
      await expectNothing('racing')
    })
  })

  describe('in custom SQL', () => {
    // datetime and boolean columns on both engines: test/server/sql.test.ts
    it('reads a dimension table by name', async () => {
      const table = { table: 'shop_sql', relations: ['shop_id'], columns: { shop_id: 'string', rank: 'number', open: 'boolean', opened: 'datetime', tags: 'array<string>' } }
      const rows = [{ shop_id: 's1', rank: 1.5, open: true, opened: '2024-03-01 09:30:15.250', tags: ['a', 'b'] }, { shop_id: 's2', rank: 2, open: false, opened: '2024-03-02', tags: ['c'] }]
      expect((await create({ ...table, rows })).body).toEqual({ success: 0 })
      const res = await s.call('POST', '/uba/api/sql/query', { headers: p, body: { sql: 'SELECT shop_id, rank, tags FROM shop_sql ORDER BY shop_id', format: 'json' } })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body).toEqual([{ shop_id: 's1', rank: 1.5, tags: ['a', 'b'] }, { shop_id: 's2', rank: 2, tags: ['c'] }])
    })
  })

  describe('documentation', () => {
    it('documents the six endpoints with their rules in /openapi.json', async () => {
      const doc = (await s.call('GET', '/openapi.json')).body
      expect(Object.keys(doc.paths['/uba/api/project/dimensions']).sort()).toEqual(['get', 'post'])
      expect(doc.paths['/uba/api/project/dimensions/properties'].get.summary).toBeTruthy()
      expect(doc.paths['/uba/api/project/dimensions/clear'].delete.summary).toBeTruthy()
      expect(doc.paths['/uba/api/project/dimensions/drop'].delete.summary).toBeTruthy()
      const upd = doc.paths['/uba/api/dimensions/update'].post
      expect(upd.description).toContain('upserted by the relation fields')
      expect(doc.paths['/uba/api/project/dimensions'].post.description).toContain('at most 200 characters')
      expect(upd.requestBody.content['application/json'].schema.properties.rows.maxItems).toBe(100_000)
    })
  })
})
