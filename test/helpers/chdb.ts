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
  /**
   * Any request (e.g. POST /uba/api/<analysis>/users, which has no explain=true): the statements
   * it sent the ClickHouse project are captured on their way out, then run again in order on 18.16
   * (in a session of their own) and on chDB, and each statement's answers compared. Resolves to the
   * request's answer and the statements.
   */
  expectSameStatements(method: string, path: string, body: unknown): Promise<{ body: any; statements: string[] }>
}

/** What the app itself asks of any connection, not of the request: left out of the replay. */
const HOUSEKEEPING = /^\s*(?:USE |SELECT timezone\(\)|KILL QUERY )/i

/**
 * The SQL the app sends to the ClickHouse database `database` at `url` while `work` runs, in the
 * order sent. The client posts each statement as the request body (warehouse/clickhouse/client.ts);
 * bulk inserts stream their rows and put the statement in the URL: those are taken as
 * `INSERT ... FORMAT TabSeparated` without rows, and refused here (a request replayed without its
 * rows would not be the same request).
 */
export async function captureStatements(url: string, database: string, work: () => Promise<void>): Promise<string[]> {
  const original = globalThis.fetch
  const statements: string[] = []
  const streamed: string[] = []
  globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
    const target = new URL(String(input instanceof Request ? input.url : input))
    if (target.origin === url && target.searchParams.get('database') === database) {
      if (typeof init?.body !== 'string') streamed.push(String(target.searchParams.get('query')))
      else if (!HOUSEKEEPING.test(init.body)) statements.push(init.body)
    }
    return original(input, init)
  }) as typeof fetch
  try {
    await work()
  } finally {
    globalThis.fetch = original
  }
  if (streamed.length) throw new Error(`captureStatements: streamed statements cannot be replayed: ${streamed.join('; ')}`)
  return statements
}

const READS = /^\s*(?:SELECT|WITH|SHOW|DESCRIBE|EXISTS)\b/i

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
    async expectSameStatements(method, path, body) {
      const database = `uba_${twins.house.appKey}`
      let answer: { status: number; body: any } | undefined
      const statements = await captureStatements(twins.clickhouse.url, database, async () => {
        answer = await twins.server.call(method, path, { headers: twins.house, body })
      })
      if (answer!.status !== 200) throw new Error(`${path}: ${answer!.status} ${JSON.stringify(answer!.body)}`)
      expect(statements.length).toBeGreaterThan(0)
      const session = `chdb-replay-${Math.random().toString(36).slice(2)}`
      const old = async (sql: string): Promise<unknown[][]> => {
        const search = new URLSearchParams({ database, session_id: session, default_format: 'JSONCompact', output_format_json_quote_64bit_integers: '0' })
        const res = await fetch(`${twins.clickhouse.url}/?${search}`, { method: 'POST', body: sql })
        const text = await res.text()
        if (!res.ok) throw new Error(`18.16 refused the replay: ${text}\n${sql}`)
        return text ? JSON.parse(text).data : []
      }
      const chdb = opened()
      // a session's database is the one it USEs (as the app's sessions do)
      await old(`USE ${database}`)
      try {
        for (const sql of statements) {
          const before = await old(sql)
          let now: unknown[][]
          try {
            now = READS.test(sql) ? chdb.rows(sql) : (chdb.query(sql), [])
          } catch (e) {
            throw new Error(`current ClickHouse refused: ${(e as Error).message}\n${sql}`)
          }
          // DESCRIBE's columns after name and type differ between versions (26.x adds codec and TTL): the app reads those two
          const compared = (rows: unknown[][]) => canonical(/^\s*DESCRIBE\b/i.test(sql) ? rows.map((r) => r.slice(0, 2)) : rows)
          expect(compared(now), sql).toEqual(compared(before))
        }
      } finally {
        for (const sql of statements) {
          const temporary = /^\s*CREATE TEMPORARY TABLE (?:IF NOT EXISTS )?(\S+)/i.exec(sql)
          if (temporary) chdb.query(`DROP TEMPORARY TABLE IF EXISTS ${temporary[1]}`)
        }
      }
      return { body: answer!.body, statements }
    },
  }
}
