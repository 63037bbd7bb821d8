import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clickhouseAvailable, startClickHouse, type TestClickHouse } from '../helpers/clickhouse'
import { eventually, startTestServer, type TestServer } from '../helpers/server'

/**
 * A dimension table made on ClickHouse before datetimes were stored as Int64 epoch ms: its datetime
 * column is a DateTime, into which 18.16 parsed the app's epoch ms as seconds. What it holds is
 * measured here (the ms modulo 2^32: the date cannot be recovered), and the next write converts the
 * column to Int64 epoch ms in the swap that writes its rows: the values given are right, the old
 * ones NULL (unknown), the other columns kept.
 */

const DATABASE = 'uba_dim_before'
const MS = [Date.UTC(2024, 2, 1, 9, 30, 15, 250), Date.UTC(2024, 2, 2, 10), Date.UTC(2023, 11, 31, 23, 59, 59)]

describe.skipIf(!clickhouseAvailable())('a dimension table with a DateTime column from before (real clickhouse-server)', () => {
  let ch: TestClickHouse
  let s: TestServer
  let p: { appKey: string; token: string }
  const house = async (sql: string, body?: string) => {
    const res = await fetch(`${ch.url}/?database=${DATABASE}&query=${encodeURIComponent(sql)}`, { method: 'POST', body: body ?? '' })
    const text = (await res.text()).trim()
    if (!res.ok) throw new Error(text)
    return text
  }

  beforeAll(async () => {
    ch = await startClickHouse()
    s = await startTestServer()
    const x = { xtoken: s.creds.xtoken }
    const made = await s.call('POST', '/uba/manage/enterprise/projects', { headers: x, body: { appKey: 'dims', name: 'dims', timeZone: 'UTC', warehouse: { engine: 'clickhouse', url: ch.url, database: DATABASE } } })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    await eventually(async () => (await s.call('GET', '/uba/manage/enterprise/projects/dims', { headers: x })).body.finish === true)
    const list = await s.call('GET', '/uba/manage/enterprise/projects', { headers: x })
    p = { appKey: 'dims', token: list.body.find((q: { appKey: string }) => q.appKey === 'dims').normalToken }
  }, 120_000)

  afterAll(async () => {
    await s?.stop()
    await ch?.stop()
  })

  it('the next write converts the column to Int64 epoch ms in its own swap: given values right, values from before NULL', async () => {
    const created = await s.call('POST', '/uba/api/project/dimensions', { headers: p, body: { table: 'stores', relations: ['id'], columns: { id: 'string', opened: 'datetime', note: 'string' }, rows: [{ id: 'x', opened: '2024-01-01' }] } })
    expect(created.body).toEqual({ success: 0 })
    // the table as the version before made it (tables.ts: CH_TYPES, comment column) and its rows as that version
    // appended them: TabSeparated, the datetime as epoch ms of the wall-clock time (writes.ts)
    await house('DROP TABLE stores')
    await house("CREATE TABLE stores (id String, opened Nullable(DateTime('UTC')), note Nullable(String)) ENGINE = MergeTree ORDER BY tuple()")
    await house("ALTER TABLE stores ADD COLUMN `_uba_comment` String MATERIALIZED 'uba-desk dimension table'")
    await house('INSERT INTO stores FORMAT TabSeparated', ['a', 'b', 'c'].map((id, i) => `${id}\t${MS[i]}\tnote ${id}\n`).join(''))
    // what 18.16 stored: the ms read as seconds, kept modulo 2^32 (a DateTime is a UInt32): 2074 and the like
    expect(await house('SELECT id, toUInt32(opened), opened FROM stores ORDER BY id')).toBe(
      MS.map((ms, i) => `${'abc'[i]}\t${ms % 2 ** 32}\t${new Date((ms % 2 ** 32) * 1000).toISOString().slice(0, 19).replace('T', ' ')}`).join('\n'),
    )
    // a row ending in such a value with too few bytes after it in the read buffer is refused whole by 18.16 (it reads 10 digits, then finds "garbage")
    await expect(house('INSERT INTO stores FORMAT TabSeparated', `z\t${MS[0]}\t\\N\n`)).rejects.toThrow(/garbage after Nullable\(DateTime/)
    expect(await house('SELECT count() FROM stores')).toBe('3')

    const updated = await s.call('POST', '/uba/api/dimensions/update', {
      headers: p,
      body: { table: 'stores', columns: { id: 'string', opened: 'datetime', note: 'string' }, rows: [{ id: 'a', opened: '2024-05-01 08:00:00.500' }, { id: 'd', opened: '2024-06-01', note: 'new' }] },
    })
    expect(updated.status, JSON.stringify(updated.body)).toBe(200)
    expect(await house("SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = 'stores' AND name != '_uba_comment'")).toBe('id\tString\nopened\tNullable(Int64)\nnote\tNullable(String)')
    expect(await house('SELECT id, opened, note FROM stores ORDER BY id')).toBe(
      [`a\t${Date.UTC(2024, 4, 1, 8, 0, 0, 500)}\tnote a`, 'b\t\\N\tnote b', 'c\t\\N\tnote c', `d\t${Date.UTC(2024, 5, 1)}\tnew`].join('\n'),
    )
    // still the product's dimension table (marker kept), its field still a datetime, nothing left beside
    const fields = (await s.call('GET', '/uba/api/project/dimensions/properties?table=stores', { headers: p })).body
    expect(fields.map((f: { id: string; dataType: string }) => `${f.id}:${f.dataType}`)).toEqual(['id:string', 'opened:datetime', 'note:string'])
    expect(await house("SELECT name FROM system.tables WHERE database = currentDatabase() AND name LIKE 'stores%' ORDER BY name")).toBe('stores')
    // custom SQL reads the right date
    const read = await s.call('POST', '/uba/api/sql/query', { headers: p, body: { sql: "SELECT id, toDateTime(intDiv(opened, 1000), 'UTC') AS at FROM stores WHERE id = 'a'", format: 'json' } })
    expect(read.status, JSON.stringify(read.body)).toBe(200)
    expect(JSON.stringify(read.body)).toContain('2024-05-01 08:00:00')

    // a later write finds an Int64 column and keeps its values
    const again = await s.call('POST', '/uba/api/dimensions/update', { headers: p, body: { table: 'stores', columns: { id: 'string', note: 'string' }, rows: [{ id: 'b', note: 'again' }] } })
    expect(again.status, JSON.stringify(again.body)).toBe(200)
    expect(await house("SELECT id, opened, note FROM stores WHERE id IN ('a', 'b') ORDER BY id")).toBe([`a\t${Date.UTC(2024, 4, 1, 8, 0, 0, 500)}\tnote a`, 'b\t\\N\tagain'].join('\n'))
  }, 120_000)
})
