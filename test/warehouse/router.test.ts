import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AppError } from '../../src-main/errors'
import type { Warehouses } from '../../src-main/warehouse'
import { DuckDBWarehouses } from '../../src-main/warehouse/duckdb'
import { duckdbDialect } from '../../src-main/warehouse/duckdb/dialect'
import { WarehouseRouter, type RemoteConnection, type WarehouseChoice } from '../../src-main/warehouse/router'

// The "remote" engine here is a second DuckDB folder: this file tests the routing only (which
// host and which dialect each project reaches). ClickHouse itself is tested on a real server.
const remoteDialect = { ...duckdbDialect }
const connection: RemoteConnection = { url: 'http://ch.example:8123', database: 'uba_b', user: 'u', password: 'secret' }

let dir: string
let embedded: DuckDBWarehouses
let remote: DuckDBWarehouses
let opened: (RemoteConnection & { stagingDir: string })[]
let choices: Map<string, WarehouseChoice>
let zones: string[]

function router(withEngine = true): WarehouseRouter {
  return new WarehouseRouter({
    embedded,
    embeddedDialect: duckdbDialect,
    choiceOf: (appKey) => choices.get(appKey) ?? { engine: 'duckdb' },
    clickhouse: withEngine
      ? {
          open: (options): Warehouses => {
            opened.push(options)
            return remote
          },
          dialect: (timeZone) => {
            zones.push(timeZone)
            return remoteDialect
          },
        }
      : undefined,
  })
}

const tables = (w: Warehouses, appKey: string) =>
  w.withConnection(appKey, 'UTC', async (conn) => (await conn.query<{ name: string }>("SELECT table_name AS name FROM information_schema.tables ORDER BY 1")).map((r) => r.name))

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'uba-desk-router-'))
  embedded = new DuckDBWarehouses({ dir: join(dir, 'embedded'), threads: 1, memoryLimit: '256MB' })
  remote = new DuckDBWarehouses({ dir: join(dir, 'remote'), threads: 1, memoryLimit: '256MB' })
  opened = []
  zones = []
  choices = new Map<string, WarehouseChoice>([['b', { engine: 'clickhouse', connection, timeZone: 'Asia/Shanghai' }]])
})

afterEach(async () => {
  await embedded.close()
  await remote.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('the warehouse router: each project reaches its own engine', () => {
  it('creates, reads and writes an embedded project on the embedded engine and a ClickHouse project on the remote one', async () => {
    const r = router()
    await r.createProject('a', 'UTC')
    await r.createProject('b', 'UTC')
    expect(existsSync(embedded.fileOf('a'))).toBe(true)
    expect(existsSync(embedded.fileOf('b'))).toBe(false)
    expect(existsSync(remote.fileOf('b'))).toBe(true)
    expect(existsSync(remote.fileOf('a'))).toBe(false)

    await r.withConnection('b', 'UTC', (conn) => conn.run('CREATE TABLE only_remote (x INTEGER)'))
    const s = await r.session('a', 'UTC')
    await s.run('CREATE TABLE only_embedded (x INTEGER)')
    s.close()
    expect(await tables(remote, 'b')).toContain('only_remote')
    expect(await tables(embedded, 'a')).toContain('only_embedded')
    expect(await tables(r, 'b')).not.toContain('only_embedded')
    expect(r.exists('a')).toBe(true)
    expect(r.exists('b')).toBe(true)
    expect(r.exists('c')).toBe(false)
  })

  it('hands each project the dialect of its engine, a ClickHouse one made once per time zone', () => {
    const r = router()
    expect(r.dialectOf('a')).toBe(duckdbDialect)
    expect(r.dialectOf('b')).toBe(remoteDialect)
    expect(r.dialectOf('b')).toBe(remoteDialect)
    expect(zones).toEqual(['Asia/Shanghai'])
    expect(r.engineOf('b')).toBe('clickhouse')
    expect(r.engineOf('unknown')).toBe('duckdb')
  })

  it('opens one host per ClickHouse project, with its connection and the local staging folder', async () => {
    const r = router()
    await r.createProject('b', 'UTC')
    await r.withConnection('b', 'UTC', async () => undefined)
    r.dialectOf('b')
    expect(opened).toEqual([{ ...connection, stagingDir: embedded.stagingDirOf('b') }])
    expect(r.stagingDirOf('b')).toBe(embedded.stagingDirOf('b'))
  })

  it('interrupts the running queries of the engine the project is on', async () => {
    const r = router()
    await r.createProject('a', 'UTC')
    await r.createProject('b', 'UTC')
    const slow = 'SELECT count(*) FROM range(10000000000) t(i) WHERE i % 7 = 3'
    const running = r.withConnection('b', 'UTC', (conn) => conn.query(slow))
    const failed = running.then(() => null, (e: unknown) => e)
    // interrupts until the query ends: an interrupt that comes after the connection is open but before
    // its statement started is lost in DuckDB (which a loaded machine hit once); this tests the routing
    let ended = false
    let reached = 0
    void failed.then(() => (ended = true))
    while (!ended) {
      reached = Math.max(reached, r.interrupt('b'))
      await new Promise((done) => setTimeout(done, 10))
    }
    expect(reached).toBe(1)
    expect(await failed).toBeInstanceOf(Error)
    expect(r.interrupt('a')).toBe(0)
  })

  it('answers 503 for a ClickHouse project when the build has no ClickHouse engine, and leaves embedded projects working', async () => {
    const r = router(false)
    const err = await r.withConnection('b', 'UTC', async () => 1).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(AppError)
    expect((err as AppError).status).toBe(503)
    expect((err as AppError).message).toMatch(/no ClickHouse engine/)
    expect(() => r.dialectOf('b')).toThrow(/no ClickHouse engine/)
    expect(r.exists('b')).toBe(false)
    expect(r.interrupt('b')).toBe(0)
    await r.createProject('a', 'UTC')
    expect(await r.withConnection('a', 'UTC', async (conn) => (await conn.rows('SELECT 1'))[0][0])).toBe(1)
  })

  it('closes every engine it opened, and reaches no ClickHouse project afterwards', async () => {
    const r = router()
    await r.createProject('a', 'UTC')
    await r.createProject('b', 'UTC')
    await r.close()
    for (const appKey of ['a', 'b']) {
      const err = await r.withConnection(appKey, 'UTC', async () => 1).catch((e: unknown) => e)
      expect((err as AppError).status).toBe(503)
    }
  })
})
