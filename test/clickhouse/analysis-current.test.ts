import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clickhouseAvailable } from '../helpers/clickhouse'
import { useTwins } from '../helpers/twinProjects'
import { USER_LINES, ZONE } from './userpropsFixture'

/**
 * The statements the analyses send a ClickHouse project, run on a CURRENT ClickHouse too: each
 * request's statements (explain=true) are taken from the 18.16 project, run again on 18.16 and on
 * chDB (26.x) over a copy of the same tables, and their last answers compared. Like
 * dialect-current.test.ts, this runs only where UBA_CHDB names a folder with chdb installed (it is
 * not a dependency of the project), and needs the 18.16 server too.
 */
const CHDB = process.env.UBA_CHDB
if (!CHDB) console.warn('\n*** ClickHouse current-version analysis statements SKIPPED: set UBA_CHDB to a folder with chdb installed (npm install chdb) ***\n')

interface ChdbSession {
  query(sql: string, format?: string): string
  cleanup?(): void
}

const TABLES = ['event_vd', 'profile_vd', 'user_ids', 'user_aliases']
const base = { crowds: ['$ALL'], fromDate: '2024-01-01', toDate: '2024-01-03', unit: 'DAY' }
const views = { expression: 'event.view', aggregator: 'TOTAL_COUNT' }
const where = (...conditions: Record<string, unknown>[]) => ({ conditions, relation: 'AND' })

/** Requests that read user properties beside the events, and user attributes. */
const REQUESTS: [string, Record<string, unknown>][] = [
  ['events', { ...base, measures: [views, { expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' }], byFields: [{ expression: 'user.tier' }] }],
  ['events', { ...base, measures: [views], byFields: [{ expression: 'event.view.city' }, { expression: 'user.city' }] }],
  ['events', { ...base, measures: [views], byFields: [{ expression: 'user.tags' }], filter: where({ expression: 'user.age', function: 'GT', params: [35] }) }],
  ['events', { ...base, fromDate: '2024-01-02', measures: [views], byFields: [{ expression: 'user.tier' }], compare: 'previous' }],
  ['events', { ...base, measures: [views], filter: where({ expression: 'user.$signup_time', function: 'RELATIVE_TIME_OF_EVENT', params: [1, 'day', 'within'] }) }],
  ['distributions', { ...base, unit: '', measure: views, byField: { expression: 'user.tier' } }],
  ['distributions', { ...base, measure: views, filter: where({ expression: 'user.tags', function: 'NULL', params: [] }) }],
  ['userAttributes', { crowds: ['$ALL'], measure: { aggregator: 'AVG', expression: 'user.age' }, byFields: [{ expression: 'user.tier' }, { expression: 'user.tags' }] }],
]

/** Rows as comparable text: numbers rounded, in a fixed order. */
function canonical(rows: unknown[][]): string[] {
  const cell = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? Math.round(v * 1e6) / 1e6 : Array.isArray(v) ? v.map(cell) : v)
  return rows.map((r) => JSON.stringify(r.map(cell))).sort()
}

describe.skipIf(!CHDB || !clickhouseAvailable())('analysis statements on current ClickHouse (chDB) and 18.16: the same answers', () => {
  const twins = useTwins('cur', ZONE, USER_LINES)
  let session: ChdbSession
  let dir: string

  beforeAll(async () => {
    const database = `uba_${twins.house.appKey}`
    const { Session } = createRequire(join(CHDB!, 'node_modules', 'x.js'))('chdb') as { Session: new (path: string) => ChdbSession }
    dir = mkdtempSync(join(tmpdir(), 'uba-desk-chdb-'))
    session = new Session(dir)
    session.query(`CREATE DATABASE ${database}`)
    session.query(`USE ${database}`)
    const http = async (sql: string) => {
      const res = await fetch(`${twins.clickhouse.url}/?database=${database}`, { method: 'POST', body: sql })
      const text = await res.text()
      if (!res.ok) throw new Error(text)
      return text
    }
    for (const table of TABLES) {
      // SHOW CREATE escapes its newlines as TabSeparated text
      session.query((await http(`SHOW CREATE TABLE ${table} FORMAT TSVRaw`)).trim().replace(/\\n/g, '\n'))
      const values = (await http(`SELECT * FROM ${table} FORMAT Values`)).trim()
      if (values) session.query(`INSERT INTO ${table} VALUES ${values}`)
    }
  }, 180_000)

  afterAll(async () => {
    session?.cleanup?.()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  for (const [i, [analysis, body]] of REQUESTS.entries()) {
    it(`${analysis} #${i}: every statement runs on both, the last answers alike`, async () => {
      const res = await twins.server.call('POST', `/uba/api/${analysis}/analyze?explain=true`, { headers: twins.house, body })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const statements = (res.body.sql as { sql: string }[]).map((x) => x.sql)
      const last = statements[statements.length - 1]
      const old = await twins.server.app.ctx.warehouse.withConnection(twins.house.appKey, ZONE, async (w) => {
        for (const sql of statements.slice(0, -1)) await w.run(sql)
        const rows = await w.rows(last)
        await w.dropTemporary()
        return rows
      })
      let current: unknown[][] = []
      for (const sql of statements) current = JSON.parse(session.query(`${sql} SETTINGS output_format_json_quote_64bit_integers = 0`, 'JSONCompact') || '{"data":[]}').data
      for (const t of ['distribution_users']) session.query(`DROP TEMPORARY TABLE IF EXISTS ${t}`)
      expect(old.length).toBeGreaterThan(0)
      expect(canonical(current)).toEqual(canonical(old))
    })
  }
})
