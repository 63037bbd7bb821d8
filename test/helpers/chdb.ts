import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect } from 'vitest'
import type { TwinsHost } from './twinProjects'

/**
 * A current ClickHouse (26.x) in-process through chDB, for the opt-in current-version tests:
 * UBA_CHDB names a folder where `npm install chdb` was run. chDB is not a dependency of the
 * project (546 MB); without UBA_CHDB those tests are skipped, loudly.
 */
export const CHDB = process.env.UBA_CHDB

/** Says once, loudly, that `what` is skipped for want of UBA_CHDB. */
export function warnWithoutChdb(what: string): void {
  if (!CHDB) console.warn(`\n*** ${what} SKIPPED: set UBA_CHDB to a folder with chdb installed (npm install chdb) ***\n`)
}

export interface Chdb {
  query(sql: string, format?: string): string
  /** A statement's rows (64-bit integers as numbers); [] for a statement that answers nothing. */
  rows(sql: string): unknown[][]
  /** Creates `database`, makes it the current one and copies into it these tables of the database of that name on a ClickHouse server. */
  copy(url: string, database: string, tables: string[]): Promise<void>
  close(): void
}

/** A chDB session over a fresh temporary folder (removed by `close`). */
export function openChdb(): Chdb {
  const { Session } = createRequire(join(CHDB!, 'node_modules', 'x.js'))('chdb') as { Session: new (path: string) => { query(sql: string, format?: string): string; cleanup?(): void } }
  const dir = mkdtempSync(join(tmpdir(), 'uba-desk-chdb-'))
  const session = new Session(dir)
  const query = (sql: string, format?: string) => session.query(sql, format)
  return {
    query,
    rows: (sql) => JSON.parse(query(`${sql} SETTINGS output_format_json_quote_64bit_integers = 0`, 'JSONCompact') || '{"data":[]}').data,
    async copy(url, database, tables) {
      query(`CREATE DATABASE ${database}`)
      query(`USE ${database}`)
      const http = async (sql: string) => {
        const res = await fetch(`${url}/?database=${database}`, { method: 'POST', body: sql })
        const text = await res.text()
        if (!res.ok) throw new Error(text)
        return text
      }
      for (const table of tables) {
        // SHOW CREATE escapes its newlines as TabSeparated text
        query((await http(`SHOW CREATE TABLE ${table} FORMAT TSVRaw`)).trim().replace(/\\n/g, '\n'))
        const values = (await http(`SELECT * FROM ${table} FORMAT Values`)).trim()
        if (values) query(`INSERT INTO ${table} VALUES ${values}`)
      }
    },
    close() {
      session.cleanup?.()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * The statements an analysis sends the ClickHouse twin (`explain=true`), run again on 18.16 and
 * on chDB in order (the chDB session holds a copy of the twin's tables); resolves to both answers
 * to the last statement. The temporary tables made on the way are dropped on both.
 */
async function onBothVersions(twins: TwinsHost, chdb: Chdb, path: string, body: unknown): Promise<{ old: unknown[][]; current: unknown[][]; statements: string[] }> {
  const res = await twins.server.call('POST', `${path}?explain=true`, { headers: twins.house, body })
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`)
  const statements = (res.body.sql as { sql: string }[]).map((x) => x.sql)
  const zone = twins.server.app.ctx.meta.prepare('SELECT time_zone FROM projects WHERE app_key = ?').pluck().get(twins.house.appKey) as string
  const old = await twins.server.app.ctx.warehouse.withConnection(twins.house.appKey, zone, async (w) => {
    for (const sql of statements.slice(0, -1)) await w.run(sql)
    const rows = await w.rows(statements[statements.length - 1])
    await w.dropTemporary()
    return rows
  })
  let current: unknown[][] = []
  for (const sql of statements) {
    try {
      current = chdb.rows(sql)
    } catch (e) {
      throw new Error(`current ClickHouse refused: ${(e as Error).message}\n${sql}`)
    }
  }
  for (const sql of statements) {
    const temporary = /^\s*CREATE TEMPORARY TABLE (?:IF NOT EXISTS )?(\S+)/i.exec(sql)
    if (temporary) chdb.query(`DROP TEMPORARY TABLE IF EXISTS ${temporary[1]}`)
  }
  return { old, current, statements }
}

/** Rows as comparable text: 64-bit integers as numbers, numbers rounded, in a fixed order. */
function canonical(rows: unknown[][]): string[] {
  const cell = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? Math.round(v * 1e6) / 1e6 : Array.isArray(v) ? v.map(cell) : v)
  return rows.map((r) => JSON.stringify(r.map(cell))).sort()
}

/** The tables of a project's events and users, as the current-version tests copy them. */
const TABLES = ['event_vd', 'profile_vd', 'user_ids', 'user_aliases']

export interface CurrentVersion {
  /** An analysis request (`/uba/api/<analysis>/analyze`): every statement it sent 18.16 runs on chDB, and the last answers alike (and not empty). */
  expectSame(analysis: string, body: unknown): Promise<void>
}

/**
 * For the enclosing describe block, after `useTwins`: a chDB session holding a copy of the
 * ClickHouse twin's tables, closed after the block.
 */
export function useCurrentVersion(twins: TwinsHost): CurrentVersion {
  let chdb: Chdb | undefined
  beforeAll(async () => {
    chdb = openChdb()
    await chdb.copy(twins.clickhouse.url, `uba_${twins.house.appKey}`, TABLES)
  }, 180_000)
  afterAll(() => chdb?.close())
  const opened = (): Chdb => {
    if (!chdb) throw new Error('useCurrentVersion: chDB opens in beforeAll; read it inside a hook or a test')
    return chdb
  }
  return {
    async expectSame(analysis, body) {
      const { old, current } = await onBothVersions(twins, opened(), `/uba/api/${analysis}/analyze`, body)
      expect(old.length).toBeGreaterThan(0)
      expect(canonical(current)).toEqual(canonical(old))
    },
  }
}
