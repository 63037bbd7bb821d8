import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { AppendType } from '../../src-main/warehouse'
import { ClickHouseClient } from '../../src-main/warehouse/clickhouse/client'
import { ClickHouseWarehouses, type ClickHouseWarehouse } from '../../src-main/warehouse/clickhouse'
import { engineFailure } from '../../src-main/warehouse/errors'
import { clickhouseAvailable, startClickHouse, type TestClickHouse } from '../helpers/clickhouse'
import { failure } from '../helpers/failures'

const ZONE = 'Asia/Shanghai'
const EVENT: AppendType[] = ['bigint', 'string', 'string', 'datetime', 'integer']
const PROFILE: AppendType[] = ['bigint', 'string']

/** `n` events from day `ds` on, one a day (months change every ~30 rows). */
function events(n: number, ds: number, who = 'u'): unknown[][] {
  const start = Date.UTC(Math.floor(ds / 10000), (Math.floor(ds / 100) % 100) - 1, ds % 100, 4)
  return Array.from({ length: n }, (_, i) => {
    const day = new Date(start + i * 86_400_000)
    return [BigInt(i), `${who}${i % 7}`, 'pay', BigInt(start + i * 86_400_000) * 1000n, day.getUTCFullYear() * 10000 + (day.getUTCMonth() + 1) * 100 + day.getUTCDate()]
  })
}

describe.skipIf(!clickhouseAvailable())('ClickHouse warehouse: writes all-or-nothing, interrupt, progress', () => {
  let ch: TestClickHouse
  let dir: string
  let host: ClickHouseWarehouses
  let admin: ClickHouseClient

  const with_ = <T>(work: (w: ClickHouseWarehouse) => Promise<T>) => host.withConnection('p', ZONE, work)
  const count = async (table: string) => Number((await admin.query(`SELECT count() FROM uba_w2.${table}`)).rows[0][0])
  const tables = async () => (await admin.query("SELECT name FROM system.tables WHERE database = 'uba_w2' ORDER BY name")).rows.map((r) => r[0])

  beforeAll(async () => {
    ch = await startClickHouse()
    dir = mkdtempSync(join(tmpdir(), 'chexec22-writes-'))
    admin = new ClickHouseClient({ url: ch.url, user: 'default' })
    host = new ClickHouseWarehouses({ url: ch.url, database: 'uba_w2', user: 'default', stagingDir: join(dir, 'staging') })
  })
  beforeEach(async () => {
    await admin.command('DROP DATABASE IF EXISTS uba_w2')
    await host.createProject()
  })
  afterAll(async () => {
    await host?.close()
    await ch?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('outside a transaction each write lands whole at once, and INSERT answers its row count', async () => {
    await with_(async (w) => {
      await w.appendRows('event_vd', EVENT, events(90, 20240101))
      expect(await w.run("INSERT INTO event_vd SELECT distinct_id, xwho, 'copy', xwhen, ds FROM event_vd WHERE ds < $1", [20240201])).toBe(31)
    })
    expect(await count('event_vd')).toBe(121)
    expect(await tables()).toEqual(['event_vd', 'profile_vd', 'user_aliases', 'user_ids'])
    // a long append lets other work run between its parts of 2,048 rows
    let pauses = 0
    await with_((w) => w.appendRows('profile_vd', PROFILE, Array.from({ length: 5000 }, (_, i) => [BigInt(i), `p${i}`]), { between: async () => void pauses++ }))
    expect(pauses).toBe(2)
    expect(await count('profile_vd')).toBe(5000)
  })

  it('a transaction over several partitions and two tables shows nothing until it commits, then everything at once', async () => {
    await with_((w) => w.appendRows('event_vd', EVENT, events(40, 20231201, 'old')))
    const seen = new Set<number>()
    let done = false
    const reader = (async () => {
      while (!done) seen.add(await count('event_vd'))
    })()
    await with_((w) =>
      w.transaction(async () => {
        await w.appendRows('event_vd', EVENT, events(100, 20240115))
        await w.appendRows('profile_vd', PROFILE, [[1n, 'u1'], [2n, 'u2']])
        expect(await w.run("INSERT INTO event_vd SELECT 9, 'x', 'y', 0, 20240301")).toBe(1)
        // reads inside see the live tables, not the staged rows
        expect(await w.rows('SELECT count() FROM event_vd')).toEqual([[40n]])
        expect(await count('event_vd')).toBe(40)
        expect(await count('profile_vd')).toBe(0)
      }),
    )
    done = true
    await reader
    expect(await count('event_vd')).toBe(141)
    expect(await count('profile_vd')).toBe(2)
    expect([...seen].every((n) => n === 40 || n === 141)).toBe(true)
    expect(seen.has(40)).toBe(true)
    expect(await tables()).toEqual(['event_vd', 'profile_vd', 'user_aliases', 'user_ids'])
  })

  it('a failure inside leaves nothing visible: no rows, no table it created, no staging table', async () => {
    await with_((w) => w.appendRows('event_vd', EVENT, events(10, 20240101)))
    const err = await failure(
      with_((w) =>
        w.transaction(async () => {
          await w.addColumns('event_vd', [{ id: 'price', dataType: 'number' }])
          await w.appendRows('event_vd', [...EVENT, 'number'], events(70, 20240101).map((r) => [...r, 1.5]))
          await w.appendRows('profile_vd', PROFILE, [[1n, 'u1']])
          await w.run('CREATE TABLE dim_city (city String) ENGINE = MergeTree ORDER BY city')
          await w.appendRows('dim_city', ['string'], [['Paris']])
          throw new Error('the load failed half-way')
        }),
      ),
    )
    expect(err.message).toBe('the load failed half-way')
    expect(await count('event_vd')).toBe(10)
    expect(await count('profile_vd')).toBe(0)
    // the column stays (another writer may use it already), empty
    expect(await tables()).toEqual(['event_vd', 'profile_vd', 'user_aliases', 'user_ids'])
    expect((await admin.query('SELECT countIf(price IS NOT NULL) FROM uba_w2.event_vd')).rows).toEqual([[0n]])
  })

  it('a failed statement inside the work rolls back the rows staged before it', async () => {
    const err = await failure(
      with_((w) =>
        w.transaction(async () => {
          await w.appendRows('event_vd', EVENT, events(5, 20240101))
          await w.run('INSERT INTO event_vd SELECT no_such_column FROM event_vd')
        }),
      ),
    )
    expect(engineFailure(err)).toBe('other')
    expect(await count('event_vd')).toBe(0)
    expect(await tables()).toEqual(['event_vd', 'profile_vd', 'user_aliases', 'user_ids'])
  })

  it('rows of one partition are attached in one step; a snapshot keeps nothing it wrote', async () => {
    const out = await with_((w) => w.transaction(async () => (await w.appendRows('event_vd', EVENT, events(20, 20240201)), 'ok')))
    expect(out).toBe('ok')
    expect(await count('event_vd')).toBe(20)
    const read = await with_((w) =>
      w.snapshot(async () => {
        await w.appendRows('event_vd', EVENT, events(5, 20240101))
        await w.run('CREATE TABLE scratch (a Int32) ENGINE = MergeTree ORDER BY a')
        return w.rows('SELECT count() FROM event_vd')
      }),
    )
    expect(read).toEqual([[20n]])
    expect(await count('event_vd')).toBe(20)
    expect(await tables()).toEqual(['event_vd', 'profile_vd', 'user_aliases', 'user_ids'])
  })

  it('temporary tables live in the connection’s session; its requests queue instead of being refused', async () => {
    await with_(async (w) => {
      await w.run('CREATE TEMPORARY TABLE staged_rows (xwho String, n Int32) ENGINE = Memory')
      await w.appendRows('staged_rows', ['string', 'integer'], [['a', 1], ['b', 2], ["c'", 3]], { temp: true })
      const [a, b] = await Promise.all([w.rows('SELECT sum(n) FROM staged_rows'), w.rows('SELECT count() FROM staged_rows')])
      expect([a, b]).toEqual([[[6n]], [[3n]]])
      await w.transaction(async () => {
        expect(await w.run('INSERT INTO event_vd SELECT n, xwho, $1, 1700000000000 + n, 20231114 FROM staged_rows', ['pay'])).toBe(3)
      })
    })
    expect((await admin.query('SELECT xwho FROM uba_w2.event_vd ORDER BY xwho')).rows).toEqual([['a'], ['b'], ["c'"]])
    // another connection has no such table
    expect(await failure(with_((w) => w.rows('SELECT count() FROM staged_rows')))).toMatchObject({ code: 60 })
  })

  it('a column another writer added while a transaction ran is in place when it commits', async () => {
    await with_((a) =>
      a.transaction(async () => {
        await a.appendRows('event_vd', EVENT, events(40, 20240101))
        await with_(async (b) => {
          await b.addColumns('event_vd', [{ id: 'coupon', dataType: 'string' }])
          await b.appendRows('event_vd', [...EVENT, 'string'], events(3, 20240101).map((r) => [...r, 'C1']))
        })
      }),
    )
    expect((await admin.query('SELECT count(), countIf(coupon IS NOT NULL) FROM uba_w2.event_vd')).rows).toEqual([[43n, 3n]])
  })

  it('writes the work starts at once share one staging table and all land', async () => {
    await with_((w) =>
      w.transaction(async () => {
        await Promise.all([w.appendRows('event_vd', EVENT, events(30, 20240101, 'a')), w.appendRows('event_vd', EVENT, events(30, 20240101, 'b'))])
        expect((await admin.query("SELECT count() FROM system.tables WHERE database = 'uba_w2' AND startsWith(name, '_uba_stage_')")).rows).toEqual([[1n]])
      }),
    )
    expect(await count('event_vd')).toBe(60)
  })

  it('createProject drops what a crashed write left behind', async () => {
    await admin.command('CREATE TABLE uba_w2._uba_stage_0123456789ab_event_vd AS uba_w2.event_vd')
    await admin.command('CREATE TABLE uba_w2._uba_next_0123456789ab_event_vd AS uba_w2.event_vd')
    await host.createProject()
    expect(await tables()).toEqual(['event_vd', 'profile_vd', 'user_aliases', 'user_ids'])
  })

  it('interrupt kills the running query by its id; the connection keeps working', async () => {
    await with_(async (w) => {
      const running = w.rows('SELECT count() FROM system.numbers WHERE NOT ignore(sipHash64(number))')
      await expect.poll(() => w.busy).toBe(true)
      await expect.poll(async () => Number((await admin.query("SELECT count() FROM system.processes WHERE query LIKE '%sipHash64(number)%' AND query NOT LIKE '%processes%'")).rows[0][0]), { timeout: 10_000 }).toBe(1)
      w.interrupt()
      const err = await failure(running)
      expect(engineFailure(err)).toBe('interrupted')
      expect(w.interrupted).toBe(true)
      expect(await w.rows('SELECT 1')).toEqual([[1]])
      // a streamed read that is interrupted ends without an error; the reader checks `interrupted`
      let rows = 0
      for await (const chunk of w.stream('SELECT number FROM system.numbers')) {
        rows += chunk.length
        if (rows >= 4096) w.interrupt()
      }
      expect(rows).toBeGreaterThanOrEqual(4096)
    })
    await expect.poll(async () => Number((await admin.query("SELECT count() FROM system.processes WHERE query LIKE '%system.numbers%' AND query NOT LIKE '%processes%'")).rows[0][0]), { timeout: 10_000 }).toBe(0)
  })

  it('the host interrupts every running query of the project and counts them', async () => {
    const session = await host.session('p', ZONE)
    const running = session.rows('SELECT count() FROM system.numbers WHERE NOT ignore(sipHash64(number))')
    await expect.poll(() => session.busy).toBe(true)
    expect(host.interrupt()).toBe(1)
    expect(engineFailure(await failure(running))).toBe('interrupted')
    session.close()
    session.close()
    expect(host.interrupt()).toBe(0)
  })

  it('progress is the share of rows read from system.processes, -1 when nothing runs', async () => {
    await with_((w) => w.run("INSERT INTO event_vd SELECT number, 'u', 'pay', 0, 20240101 FROM system.numbers LIMIT 300000"))
    await with_(async (w) => {
      expect(w.progress).toBe(-1)
      const running = w.rows('SELECT count() FROM event_vd WHERE NOT ignore(sleepEachRow(0.00001))').catch((e: Error) => e)
      await expect.poll(() => w.progress, { timeout: 20_000, interval: 50 }).toBeGreaterThan(0)
      expect(w.progress).toBeLessThanOrEqual(100)
      w.interrupt()
      await running
      expect(w.progress).toBe(-1)
    })
    // why system.processes: 18.16 accepts send_progress_in_http_headers but sends no X-ClickHouse-Progress
    const res = await fetch(`${ch.url}/?database=uba_w2&send_progress_in_http_headers=1&http_headers_progress_interval_ms=100`, { method: 'POST', body: 'SELECT count() FROM event_vd WHERE NOT ignore(sleepEachRow(0.000005))' })
    expect(await res.text()).toBe('300000\n')
    expect([...res.headers.keys()].filter((h) => h.startsWith('x-clickhouse-progress'))).toEqual([])
  })
})
