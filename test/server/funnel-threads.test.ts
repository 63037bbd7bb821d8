import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'
import { Worker } from 'node:worker_threads'
import { beforeAll, describe, expect, it } from 'vitest'
import { funnelThreadState } from '../../src-main/domain/analysis/funnelThreads'
import { EVENT_ORDER } from '../../src-main/domain/ingest/sql'
import type { TestClickHouse } from '../helpers/clickhouse'
import { clickhouseProject, ENGINES, useEngine, type Engine, type Project } from '../helpers/engines'
import { fixture, importAndWait, newProject } from '../helpers/ingest'
import { startTestServer, type TestServer } from '../helpers/server'

/*
 * Funnel paths are followed on worker threads (funnelThreads.ts), so the server's own thread keeps
 * answering while a big funnel runs. The data: one imported user `seed` (view, cart, pay at
 * 10:00:00, :01, :02 on 2024-03-01 UTC: it puts the events in the plan), then USERS users written
 * straight into the warehouse, each with 33 rounds of view, cart, pay one second apart from
 * 00:00:00 that day (99 events each, about 1M in all: two parts, funnelFollow.ts). Funnel view -> cart -> pay over that day:
 * every user reaches the last step, on the day and over the range: USERS + 1 at each step; each
 * step follows the previous one after 1 s (the medians). Both engines: on ClickHouse the server
 * reads the candidate events and the same threads follow them, so the answers and the thread
 * counts are the same.
 */

const USERS = 10_000
const steps = ['view', 'cart', 'pay'].map((e) => ({ expression: `event.${e}` }))
const body = { crowds: ['$ALL'], steps, fromDate: '2024-03-01', toDate: '2024-03-01', useCache: false }

/** The rows of the big project, written straight into its warehouse in the engine's own SQL. */
function bigRows(engine: Engine, first: number): string[] {
  if (engine === 'duckdb') {
    return [
      `INSERT INTO user_ids SELECT 'u' || i, i FROM range(${first}, ${first + USERS}) r(i)`,
      `INSERT INTO profile_vd (distinct_id, xwho) SELECT i, 'u' || i FROM range(${first}, ${first + USERS}) r(i)`,
      `INSERT INTO event_vd (distinct_id, xwho, xwhat, xwhen, ds)
      SELECT u AS distinct_id, 'u' || u AS xwho, ['view', 'cart', 'pay'][1 + k % 3] AS xwhat, TIMESTAMPTZ '2024-03-01 00:00:00+00' + to_seconds(k) AS xwhen, 20240301 AS ds
      FROM range(${first}, ${first + USERS}) a(u), range(0, 99) b(k) ORDER BY ${EVENT_ORDER}`,
    ]
  }
  // ClickHouse: xwhen in epoch ms; a MergeTree sorts its rows by (xwho, xwhen) itself
  const users = `(SELECT toInt64(number) AS u FROM numbers(${first}, ${USERS}))`
  return [
    `INSERT INTO user_ids SELECT concat('u', toString(u)), u FROM ${users}`,
    `INSERT INTO profile_vd (distinct_id, xwho) SELECT u, concat('u', toString(u)) FROM ${users}`,
    `INSERT INTO event_vd (distinct_id, xwho, xwhat, xwhen, ds)
      SELECT u, concat('u', toString(u)), arrayElement(['view', 'cart', 'pay'], 1 + k % 3), toInt64(${Date.UTC(2024, 2, 1)} + k * 1000), 20240301
      FROM ${users} CROSS JOIN (SELECT toInt64(number) AS k FROM numbers(99))`,
  ]
}

async function bigProject(s: TestServer, ch: TestClickHouse | null, appKey: string): Promise<Project> {
  const p = ch ? await clickhouseProject(s, ch, appKey, 'UTC') : await newProject(s, appKey, 'UTC')
  const rec = (xwhat: string, second: number) => JSON.stringify({ xwho: 'seed', xwhat, xwhen: Date.parse(`2024-03-01T10:00:0${second}Z`), xcontext: {} })
  const job = await importAndWait(s, p, { path: fixture('seed.jsonl', [rec('view', 0), rec('cart', 1), rec('pay', 2)].join('\n')) })
  expect(job.state).toBe('succeeded')
  await s.app.ctx.warehouse.withConnection(appKey, 'UTC', async (conn) => {
    const [{ seed }] = await conn.query<{ seed: bigint }>('SELECT max(distinct_id) AS seed FROM user_ids')
    for (const sql of bigRows(ch ? 'clickhouse' : 'duckdb', Number(seed) + 1)) await conn.run(sql)
  })
  return p
}

function expectAllConverted(res: { status: number; body: any }): void {
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  expect(res.body.rows[0].stepsDetail.map((d: { convertedUser: number[] }) => d.convertedUser)).toEqual([
    [USERS + 1, USERS + 1],
    [USERS + 1, USERS + 1],
    [USERS + 1, USERS + 1],
  ])
  expect(res.body.rows[0].medianConvertedTime.map((m: { median: number[] }) => m.median)).toEqual([
    [1, 1],
    [1, 1],
  ])
}

describe.each(ENGINES)('funnel threads, on %s', (engine) => {
  const host = useEngine(engine, { memoryLimit: '1GB' })
  let s: TestServer
  let p: Project
  beforeAll(async () => {
    s = host.server
    p = await bigProject(s, host.clickhouse, 'big')
  }, 240_000)

  it('/health answers while a thread follows a big funnel, whose answer is exact', async () => {
    let answered = false
    const funnel = s.call('POST', '/uba/api/funnels/analyze', { headers: p, body }).finally(() => (answered = true))
    // polled back to back: each poll counts when a part was being followed before it was sent and still after its answer
    let duringFollowing = 0
    while (!answered) {
      const before = funnelThreadState(s.app.ctx).following
      const health = await fetch(`${s.url}/health`)
      expect(health.status).toBe(200)
      if (before > 0 && funnelThreadState(s.app.ctx).following > 0 && !answered) duringFollowing++
    }
    expectAllConverted(await funnel)
    expect(duringFollowing).toBeGreaterThan(0)
    // one thread per core by default, started by the funnel
    expect(funnelThreadState(s.app.ctx).started).toBe(availableParallelism())
  }, 240_000)

  it('gives the same answer on one thread, which the app stops when it closes', async () => {
    const one = await startTestServer({ memoryLimit: '1GB', analysisThreads: 1 })
    try {
      const q = await bigProject(one, host.clickhouse, 'bigone')
      expect(funnelThreadState(one.app.ctx).started).toBe(0)
      expectAllConverted(await one.call('POST', '/uba/api/funnels/analyze', { headers: q, body }))
      expect(funnelThreadState(one.app.ctx)).toEqual({ started: 1, following: 0 })
    } finally {
      await one.stop()
    }
    expect(funnelThreadState(one.app.ctx)).toEqual({ started: 0, following: 0 })
  }, 240_000)
})

describe('the built funnel thread', () => {
  const built = resolve(import.meta.dirname, '..', '..', 'out', 'main', 'funnelThread.js')
  it.runIf(existsSync(built))('(out/main, plain Node) follows a part and answers the rows and a cell\'s users', async () => {
    const worker = new Worker(built)
    try {
      const replies = new Map<number, any>()
      const all = new Promise<void>((done, fail) => {
        worker.on('message', (m: { id: number }) => {
          replies.set(m.id, m)
          if (replies.size === 2) done()
        })
        worker.on('error', fail)
      })
      // day field 1 (column 1); user 10: view at 0 s, pay at 5 s; user 11: view only
      const day = 2 ** 20
      const part = { uid: Int32Array.of(0, 0, 1), t: Float64Array.of(0, 5e6, 0), md: Float64Array.of(1 + day, 2 + day, 1 + day), li: null, labels: [], users: 2, firstUser: 10 }
      const options = { steps: 2, windowMicros: 100e6, columnOfDay: Int32Array.of(0, 1), labelStep: null, cell: { column: 0, label: null, step: 1, outcome: 'converted' } }
      worker.postMessage({ id: 1, kind: 'part', run: 7, options, part })
      worker.postMessage({ id: 2, kind: 'finish', run: 7, options, others: [] })
      await all
      expect(replies.get(1)).toEqual({ id: 1, done: true })
      expect(replies.get(2)).toEqual({
        id: 2,
        rows: [
          { column: 0, label: null, counts: [2, 1], medians: [5] },
          { column: 1, label: null, counts: [2, 1], medians: [5] },
        ],
        timeToConvert: [],
        users: [10],
      })
    } finally {
      await worker.terminate()
    }
  })
})
