import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DuckDBWarehouses as Warehouse } from '../../src-main/warehouse/duckdb'

let dir: string
let wh: Warehouse

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'uba-wh-'))
  wh = new Warehouse({ dir, threads: 1, memoryLimit: '256MB' })
})
afterEach(async () => {
  await wh.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('warehouse store', () => {
  it('creates one database file per project with event_vd and profile_vd', async () => {
    await wh.createProject('p1', 'UTC')
    await wh.createProject('p2', 'UTC')
    expect(existsSync(join(dir, 'p1', 'warehouse.duckdb'))).toBe(true)
    expect(existsSync(join(dir, 'p2', 'warehouse.duckdb'))).toBe(true)
    await wh.withConnection('p1', 'UTC', (c) => c.run("INSERT INTO profile_vd VALUES (1, 'u1')"))
    const count = (p: string) => wh.withConnection(p, 'UTC', async (c) => (await c.runAndReadAll('SELECT count(*)::INT AS n FROM profile_vd')).getRowObjectsJS()[0].n)
    expect(await count('p1')).toBe(1)
    expect(await count('p2')).toBe(0)
  })

  it('shares one creation between concurrent calls for the same project', async () => {
    await Promise.all([wh.createProject('twice', 'UTC'), wh.createProject('twice', 'UTC'), wh.createProject('twice', 'UTC')])
    await wh.createProject('twice', 'UTC')
    const tables = await wh.withConnection('twice', 'UTC', async (c) =>
      (await c.runAndReadAll('SELECT table_name FROM information_schema.tables ORDER BY 1')).getRowObjectsJS().map((r) => r.table_name),
    )
    expect(tables).toEqual(['event_vd', 'profile_vd'])
  })

  it('sets each connection to the project time zone, so days are the analyst\'s days', async () => {
    await wh.createProject('tz', 'Asia/Shanghai')
    // 2024-01-01 20:00 UTC is already 2 January in Shanghai
    const day = await wh.withConnection('tz', 'Asia/Shanghai', async (c) => {
      const r = await c.runAndReadAll("SELECT current_setting('TimeZone') AS zone, strftime(TIMESTAMPTZ '2024-01-01 20:00:00+00', '%Y%m%d') AS ds")
      return r.getRowObjectsJS()[0]
    })
    expect(day).toEqual({ zone: 'Asia/Shanghai', ds: '20240102' })
    const utcDay = await wh.withConnection('tz', 'UTC', async (c) =>
      (await c.runAndReadAll("SELECT strftime(TIMESTAMPTZ '2024-01-01 20:00:00+00', '%Y%m%d') AS ds")).getRowObjectsJS()[0].ds,
    )
    expect(utcDay).toBe('20240101')
  })

  it('interrupts a running query of a project', async () => {
    await wh.createProject('slow', 'UTC')
    const running = wh.withConnection('slow', 'UTC', (c) => c.run('SELECT count(*) FROM range(100000000000) a'))
    await new Promise((r) => setTimeout(r, 200))
    expect(wh.interrupt('slow')).toBe(1)
    await expect(running).rejects.toThrow(/interrupt/i)
    expect(wh.interrupt('slow')).toBe(0)
  })

  it('refuses new work once closed', async () => {
    await wh.createProject('c', 'UTC')
    await wh.close()
    await expect(wh.withConnection('c', 'UTC', (c) => c.run('SELECT 1'))).rejects.toMatchObject({ status: 503 })
  })
})
