// Identity merges ($alias, domain/ingest/alias.ts): what 20% merged users cost the analyses, how
// long merging them takes, and how soon one alias takes effect. BENCH_EVENTS sets the events (1M):
// 200k login ids, of which every fifth also browsed under an anonymous id (about half of its
// events), stored under its own distinct_id until the merge. Three projects hold the same events:
// one stays unmerged, one gets the aliases, one had them merged from the start ("born merged"). Each analysis runs on both in alternation (medians of 5, through HTTP with
// useCache false), right after the merge (which rewrote those events' distinct_id in place, then
// checkpointed: alias.ts settleMerges) and after another CHECKPOINT.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startApp, type RunningApp } from '../src-main/app'
import { collect } from '../src-main/domain/ingest/collector'
import { ensureUserIds } from '../src-main/domain/ingest/identity'
import { importFile } from '../src-main/domain/ingest/importer'
import { decodeUpload } from '../src-main/domain/ingest/uploadDecode'
import { EVENT_ORDER } from '../src-main/domain/ingest/sql'
import { createProject, StreamState } from '../src-main/domain/platform/projects'
import { addColumns } from '../src-main/domain/schema/columns'
import { emptyReported, recordReported } from '../src-main/domain/schema/plan'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000)
const USERS = 200_000
const FROM = '2024-03-01'
const TO = '2024-04-29'
const MERGED = `uid % 5 = 0`

/** `born`: the anonymous ids share their login id's distinct_id from the start (as if merged before any event was stored). */
async function load(app: RunningApp, appKey: string, born = false): Promise<void> {
  await app.ctx.warehouse.withConnection(appKey, 'UTC', async (conn) => {
    await ensureUserIds(conn)
    await addColumns(conn, 'event_vd', [{ id: '$platform', dataType: 'string' }])
    // login ids u<n> take 1..USERS; anonymous ids a<n> take USERS + n
    await conn.run(`INSERT INTO user_ids SELECT 'u' || i, i FROM range(1, ${USERS + 1}) r(i)`)
    await conn.run(`INSERT INTO user_ids SELECT 'a' || i, ${born ? '' : `${USERS} + `}i FROM range(1, ${USERS + 1}) r(i) WHERE i % 5 = 0`)
    if (born) await conn.run(`INSERT INTO user_aliases SELECT 'a' || i, 'u' || i, NULL FROM range(1, ${USERS + 1}) r(i) WHERE i % 5 = 0`)
    await conn.run(`INSERT INTO event_vd (distinct_id, xwho, xwhat, xwhen, ds, "$platform")
      SELECT CASE WHEN anon AND NOT ${born} THEN ${USERS} + uid ELSE uid END AS distinct_id, CASE WHEN anon THEN 'a' ELSE 'u' END || uid, event, ts AS xwhen, year(ts) * 10000 + month(ts) * 100 + day(ts), platform
      FROM (SELECT *, ${MERGED} AND hash(i * 23) % 2 = 0 AS anon FROM (
        SELECT i, CAST(hash(i) % ${USERS} AS BIGINT) + 1 AS uid,
               ['view', 'view', 'view', 'cart', 'cart', 'checkout', 'pay', 'search', 'search', 'view'][1 + CAST(hash(i * 7) % 10 AS BIGINT)] AS event,
               TIMESTAMPTZ '${FROM} 00:00:00+00' + to_seconds(CAST(hash(i * 13) % (60 * 86400) AS BIGINT)) AS ts,
               ['iOS', 'Android', 'Web'][1 + CAST(hash(i * 3) % 3 AS BIGINT)] AS platform
        FROM range(${EVENTS}) r(i))) ORDER BY ${EVENT_ORDER}`)
  })
  const reported = emptyReported()
  for (const e of ['view', 'cart', 'checkout', 'pay', 'search']) reported.events.set(e, { properties: new Set(['$platform']), platforms: new Set() })
  reported.eventProperties.set('$platform', 'string')
  recordReported(app.ctx.meta, appKey, reported)
}

/**
 * Medians of `runs` alternating runs of each (after a warm one each), wall time and CPU time (of
 * this process, DuckDB's threads included): load from other work hits both alike, and moves the
 * CPU time less than the wall time.
 */
async function alternate(a: () => Promise<void>, b: () => Promise<void>, runs = 7): Promise<{ ms: [number, number]; cpu: [number, number] }> {
  await a()
  await b()
  const ms: [number[], number[]] = [[], []]
  const cpu: [number[], number[]] = [[], []]
  for (let i = 0; i < runs; i++) {
    for (const [k, run] of [a, b].entries()) {
      const t = performance.now()
      const c = process.cpuUsage()
      await run()
      const used = process.cpuUsage(c)
      ms[k].push(performance.now() - t)
      cpu[k].push((used.user + used.system) / 1000)
    }
  }
  const median = (v: number[]) => v.sort((x, y) => x - y)[Math.floor(v.length / 2)]
  return { ms: [median(ms[0]), median(ms[1])], cpu: [median(cpu[0]), median(cpu[1])] }
}

export async function benchAlias(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'uba-bench-alias-'))
  try {
    const app = await startApp({ dataDir: join(dir, 'data'), port: 0, threads: 2, memoryLimit: '8GB' })
    await app.ctx.background.idle()
    // the same events in two projects: one stays unmerged, the other gets the aliases
    const creds = () => app.credentials().projects
    createProject(app.ctx, { name: 'merged', timeZone: 'UTC' }, null)
    createProject(app.ctx, { name: 'born merged', timeZone: 'UTC' }, null)
    await app.ctx.background.idle()
    const [plain, merged, born] = creds().map((p) => ({ appKey: p.appKey, token: p.token }))
    for (const p of [plain, merged, born]) {
      app.ctx.meta.prepare('UPDATE projects SET time_zone = ?, stream = ? WHERE app_key = ?').run('UTC', StreamState.started, p.appKey)
      await load(app, p.appKey, p === born)
      await app.ctx.warehouse.withConnection(p.appKey, 'UTC', (conn) => conn.run('CHECKPOINT'))
    }
    const scope = { appKey: merged.appKey, timeZone: 'UTC' }
    const post = (project: typeof plain, path: string, body: object) => async () => {
      const res = await fetch(`${app.url}${path}`, { method: 'POST', headers: { ...project, 'content-type': 'application/json' }, body: JSON.stringify({ crowds: ['$ALL'], fromDate: FROM, toDate: TO, useCache: false, ...body }) })
      await res.arrayBuffer()
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`)
    }
    const cases: [string, string, object][] = [
      ['events', '/uba/api/events/analyze', { measures: [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }, { expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' }], byFields: [{ expression: 'event.view.$platform' }] }],
      ['funnel', '/uba/api/funnels/analyze', { steps: ['view', 'cart', 'checkout', 'pay'].map((e) => ({ expression: `event.${e}` })), convertTime: 7, convertTimeUnit: 'DAY' }],
      ['retention', '/uba/api/retentions/analyze', { firstEvent: { expression: 'event.view' }, secondEvent: { expression: 'event.pay' }, byFieldIndex: -1, duration: 30, unit: 'DAY' }],
    ]
    const compare = async (label: string, base = plain, baseLabel = 'unmerged') => {
      for (const [name, path, body] of cases) {
        const { ms: [a, b], cpu: [ca, cb] } = await alternate(post(base, path, body), post(merged, path, body))
        const change = (x: number, y: number) => `${y >= x ? '+' : ''}${((y / x - 1) * 100).toFixed(0)}%`
        console.log(`${name.padEnd(10)} ${baseLabel} ${a.toFixed(0).padStart(5)} ms   ${label} ${b.toFixed(0).padStart(5)} ms ${change(a, b).padStart(5)}   CPU ${ca.toFixed(0)} / ${cb.toFixed(0)} ms ${change(ca, cb)}`)
      }
    }
    // the merges, as an import of historical $alias records: both ids have stored events (the rewrite path)
    const file = join(dir, 'aliases.jsonl')
    const lines: string[] = []
    for (let n = 5; n <= USERS; n += 5) lines.push(JSON.stringify({ xwho: `u${n}`, xwhat: '$alias', xwhen: Date.parse(`${TO}T12:00:00Z`), xcontext: { $original_id: `a${n}` } }))
    writeFileSync(file, lines.join('\n'))
    let t = performance.now()
    const done = await app.ctx.warehouse.withConnection(scope.appKey, scope.timeZone, (conn) => importFile(app.ctx, scope, conn, { file, format: 'json', kind: 'events', mapping: {}, onError: 'abort', dedupe: false }, async () => {}, async () => {}))
    const mergeMs = performance.now() - t
    console.log(`alias data: ${(EVENTS / 1e6).toFixed(1)}M events, ${USERS / 1000}k login ids, ${lines.length / 1000}k of them (${(100 * lines.length / USERS).toFixed(0)}% of the users) with an anonymous id`)
    console.log(`merge ${done.aliasesMerged} aliases (one import, their events rewritten)  ${mergeMs.toFixed(0)} ms`)
    await compare('merged')
    await app.ctx.warehouse.withConnection(scope.appKey, scope.timeZone, (conn) => conn.run('CHECKPOINT'))
    await compare('merged, after CHECKPOINT')
    // the cost of merging after the events were stored, against the same users merged from the start
    await compare('merged, after CHECKPOINT', born, 'born merged')
    // one live alias where both ids already have events: from the upload to a query that sees it
    const rec = (xwho: string, xwhat: string, xcontext = {}) => ({ appid: merged.appKey, xwho, xwhat, xwhen: Date.parse(`${TO}T13:00:00Z`), xcontext })
    const upload = (records: unknown[]) => decodeUpload({ query: '', body: Buffer.from(JSON.stringify(records)) })
    await collect(app.ctx, await upload([rec('late-anon', 'view'), rec('late-login', 'view')]))
    t = performance.now()
    const reply = await collect(app.ctx, await upload([rec('late-login', '$alias', { $original_id: 'late-anon' })]))
    const users = await app.ctx.warehouse.withConnection(scope.appKey, scope.timeZone, async (conn) =>
      (await conn.runAndReadAll("SELECT count(DISTINCT distinct_id) FROM event_vd WHERE xwho IN ('late-anon', 'late-login')")).getRows()[0][0])
    console.log(`one alias upload, both ids with stored events, until a query sees one user  ${(performance.now() - t).toFixed(0)} ms (merged ${reply.aliasesMerged}, users ${users})`)
    await app.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
