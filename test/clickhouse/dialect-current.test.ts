import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clickhouseDialect } from '../../src-main/warehouse/clickhouse/dialect'
import { bind, quoteString } from '../../src-main/warehouse/clickhouse/literal'
import { CHDB, openChdb, warnWithoutChdb, type Chdb } from '../helpers/chdb'
import { EVENTS, norm, statement, TIME_CASES } from './dialectCases'
import { PROFILE_TABLE, PROFILES, ROWS_CASES } from './dialectRowsCases'
import { VALUE_CASES } from './dialectValueCases'

/**
 * The ClickHouse dialect's text of the shared cases on a CURRENT ClickHouse, in-process through
 * chDB (26.x). chDB is not a dependency of the project (546 MB): set UBA_CHDB to a folder where
 * `npm install chdb` was run (e.g. /tmp/chdb) to run these; otherwise they are skipped, loudly.
 */
warnWithoutChdb('ClickHouse current-version cases')

describe.skipIf(!CHDB)('dialect parts on current ClickHouse (chDB): the same cases as on 18.16 and DuckDB', () => {
  let session: Chdb
  const rows = (sql: string) => session.rows(sql)

  beforeAll(() => {
    session = openChdb()
    session.query('CREATE DATABASE dialect')
    session.query('USE dialect')
    session.query('CREATE TABLE ev (id Int64, uid Int64, xwhen Int64, s Nullable(String), n Nullable(Float64), b Nullable(UInt8), tags Array(String)) ENGINE = MergeTree ORDER BY id')
    const values = EVENTS.map((e) => `(${e.id}, ${e.uid}, ${e.ms}, ${e.s === null ? 'NULL' : quoteString(e.s)}, ${e.n ?? 'NULL'}, ${e.b === null ? 'NULL' : Number(e.b)}, [${e.tags.map(quoteString).join(', ')}])`)
    session.query(`INSERT INTO ev VALUES ${values.join(', ')}`)
    session.query(PROFILE_TABLE.clickhouse)
    session.query(`INSERT INTO profile_vd VALUES ${PROFILES.clickhouse}`)
  })
  afterAll(() => {
    session?.close()
  })

  it('is a current version', () => {
    expect(Number(String(rows('SELECT version()')[0][0]).split('.')[0])).toBeGreaterThanOrEqual(23)
  })

  for (const c of [...TIME_CASES, ...VALUE_CASES, ...ROWS_CASES]) {
    it(`${c.name} (${c.zone})`, () => {
      const d = clickhouseDialect(c.zone)
      expect(norm(rows(statement(c, d, d.params())))).toEqual(c.rows)
    })
  }

  it('replaces a table, upserts dimension rows, fills temporary tables', () => {
    const d = clickhouseDialect('UTC')
    for (const sql of d.replaceTable('cohort_1', 'SELECT toInt64(7) AS distinct_id')) session.query(sql)
    expect(rows('SELECT distinct_id FROM cohort_1')).toEqual([[7]])
    const table = [{ id: 'id', type: 'string' as const, notNull: true }, { id: 'name', type: 'string' as const }, { id: 'score', type: 'number' as const }]
    session.query(d.createTable('dim_a', table))
    session.query(d.commentOn('dim_a', 'uba-desk dimension table'))
    session.query("INSERT INTO dim_a VALUES ('a', 'A', 1), ('b', 'B', 2)")
    const upsert = d.upsert('dim_a', table.slice(0, 2), ['id'], table)
    session.query(upsert.stage)
    session.query(`INSERT INTO ${upsert.staging} VALUES ('a', 1, 'A2', 1), ('c', 1, 'C', 1)`)
    for (const sql of upsert.apply) session.query(sql)
    expect(rows('SELECT id, name, score FROM dim_a ORDER BY id')).toEqual([['a', 'A2', 1], ['b', 'B', 2], ['c', 'C', null]])
    expect(rows(d.tableOrView('dim_a').sql)).toEqual([['uba-desk dimension table']])
    session.query(d.tempTable('cell_ids', [['distinct_id', 'bigint']]))
    session.query(bind(d.insertNumbers('cell_ids'), { p1: [3, 1] }))
    expect(rows('SELECT distinct_id FROM cell_ids ORDER BY distinct_id')).toEqual([[1], [3]])
  })
})
