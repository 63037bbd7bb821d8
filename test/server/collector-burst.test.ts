import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writerQueue } from '../../src-main/domain/ingest/uploadBatches'
import { withWriteLock } from '../../src-main/domain/writeLock'
import { callJson, credentialsOf, killAll, serveProcess } from '../helpers/child'
import { sdkRecord, switchStreamAndWait } from '../helpers/collector'
import { newProject, warehouseRows } from '../helpers/ingest'
import { eventually, startTestServer, type TestServer } from '../helpers/server'

/**
 * A burst of the SDKs' small batches at one project (many browsers, many server threads): the
 * uploads that arrive while the project's writer is busy are written together in one transaction
 * (uploadBatches.ts), each answered with its own counts and problems, stored as if one by one.
 */

let s: TestServer
let shop: { appKey: string; token: string }
beforeAll(async () => {
  s = await startTestServer()
  shop = await newProject(s, 'shop', 'UTC')
  await switchStreamAndWait(s, 'shop', true)
})
afterAll(async () => {
  killAll()
  await s.stop()
})

const upload = async (records: unknown[]): Promise<{ status: number; body: any }> => {
  const res = await fetch(`http://127.0.0.1:${s.app.port}/up?appid=shop`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(records) })
  return { status: res.status, body: await res.json() }
}
const views = (who: string, n: number, extra: Record<string, unknown> = {}) => Array.from({ length: n }, (_, i) => sdkRecord('shop', `${who}_${i}`, 'view', { n: i, ...extra }))

/** Holds the project's writer (as an import would) until released; uploads queue behind it meanwhile. */
function holdWriter(): () => void {
  let release!: () => void
  const held = new Promise<void>((r) => (release = r))
  void withWriteLock(s.app.ctx, 'shop', () => held)
  return release
}

describe('a burst of uploads at one project', () => {
  it('stores all 100 uploads of 50 records sent at once, each once, each answered 200 with its own counts', async () => {
    const answers = await Promise.all(Array.from({ length: 100 }, (_, k) => upload(views(`burst${k}`, 50))))
    expect(answers.map((a) => a.status)).toEqual(Array(100).fill(200))
    for (const a of answers) expect(a.body).toMatchObject({ code: 200, received: 50, stored: 50, rejected: 0, problems: [], valuesDropped: 0 })
    expect(await warehouseRows(s, 'shop', "SELECT count(*) AS n, count(DISTINCT xwho) AS users FROM event_vd WHERE xwho LIKE 'burst%'")).toEqual([{ n: 5000, users: 5000 }])
  }, 120_000)

  it("keeps a bad upload's problems to itself: the good ones beside it land, its refusals are logged and answered under it", async () => {
    const release = holdWriter()
    const first = upload(views('first', 5, { shade: 'red' }))
    await eventually(async () => writerQueue(s.app.ctx, 'shop').writing)
    // no usable xwho: every record refused
    const bad = upload(Array.from({ length: 30 }, (_, i) => ({ ...sdkRecord('shop', 'x', 'view', { n: i }), xwho: '' })))
    await eventually(async () => writerQueue(s.app.ctx, 'shop').waiting === 1)
    const good = upload(views('good', 10))
    await eventually(async () => writerQueue(s.app.ctx, 'shop').waiting === 2)
    // a known property (n, a number) sent as text: the value is left out, the record stored
    const mixed = upload([...views('mixed', 4), sdkRecord('shop', 'mixed_4', 'view', { n: 'four' })])
    await eventually(async () => writerQueue(s.app.ctx, 'shop').waiting === 3)
    release()
    const [a, b, g, m] = await Promise.all([first, bad, good, mixed])
    expect(a.body).toMatchObject({ received: 5, stored: 5, rejected: 0, problems: [] })
    expect(b.status).toBe(200)
    expect(b.body).toMatchObject({ received: 30, stored: 0, rejected: 30, valuesDropped: 0, dropped: [] })
    expect(b.body.problems).toHaveLength(20)
    expect(b.body.problems.map((p: any) => p.row)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
    expect(b.body.problems[0]).toMatchObject({ property: 'xwho' })
    expect(g.body).toMatchObject({ received: 10, stored: 10, rejected: 0, problems: [], valuesDropped: 0, dropped: [] })
    expect(m.body).toMatchObject({ received: 5, stored: 5, rejected: 0, problems: [], valuesDropped: 1, dropped: [{ row: 5, property: 'n', value: '"four"', reason: 'is not a number' }] })
    expect(await warehouseRows(s, 'shop', "SELECT xwho, n FROM event_vd WHERE xwho LIKE 'mixed%' OR xwho LIKE 'good%' ORDER BY xwho")).toEqual([
      ...Array.from({ length: 10 }, (_, i) => ({ xwho: `good_${i}`, n: i })).sort((x, y) => x.xwho.localeCompare(y.xwho)),
      ...[0, 1, 2, 3].map((i) => ({ xwho: `mixed_${i}`, n: i })),
      { xwho: 'mixed_4', n: null },
    ])
    const log = (await s.call('GET', '/uba/api/ingest/problems', { headers: shop })).body
    const counts = Object.fromEntries(log.counts.map((c: any) => [`${c.kind} ${c.property}`, c.count]))
    expect(counts).toMatchObject({ 'refused xwho': 30, 'dropped n': 1 })
    // the examples are the bad upload's own records and the mixed one's
    expect(log.examples.filter((e: any) => e.kind === 'refused').every((e: any) => e.record.includes('"xwho":""'))).toBe(true)
    expect(log.examples.find((e: any) => e.kind === 'dropped').record).toContain('"mixed_4"')
  }, 120_000)

  it('applies a profile_set then a profile_unset sent in two uploads of one batch in arrival order, whatever their times', async () => {
    const release = holdWriter()
    const filler = upload(views('filler', 1))
    await eventually(async () => writerQueue(s.app.ctx, 'shop').writing)
    const at = 1717300000000
    const set = upload([{ appid: 'shop', xwho: 'p1', xwhat: '$profile_set', xwhen: at + 60_000, xcontext: { $lib: 'JS', $is_login: true, city: 'Paris', plan: 'gold' } }])
    await eventually(async () => writerQueue(s.app.ctx, 'shop').waiting === 1)
    const unset = upload([{ appid: 'shop', xwho: 'p1', xwhat: '$profile_unset', xwhen: at, xcontext: { $lib: 'JS', $is_login: true, city: '' } }])
    await eventually(async () => writerQueue(s.app.ctx, 'shop').waiting === 2)
    release()
    const answers = await Promise.all([filler, set, unset])
    expect(answers.map((a) => [a.status, a.body.received, a.body.rejected])).toEqual([[200, 1, 0], [200, 1, 0], [200, 1, 0]])
    expect(await warehouseRows(s, 'shop', "SELECT xwho, city, plan FROM profile_vd WHERE xwho = 'p1'")).toEqual([{ xwho: 'p1', city: null, plan: 'gold' }])
  }, 120_000)
})

describe('uploads loaded together store what they would one by one', () => {
  it('a new property keeps the type its first upload gave it, and new users are numbered in arrival order', async () => {
    const release = holdWriter()
    const filler = upload(views('filler2', 1))
    await eventually(async () => writerQueue(s.app.ctx, 'shop').writing)
    const sent: Promise<{ status: number; body: any }>[] = []
    const batch = [
      [sdkRecord('shop', 'ty_b', 'visit', { seen_at: '2024-01-02 10:00:00' })],
      [sdkRecord('shop', 'ty_a', 'visit', { seen_at: 'yesterday' })],
      [sdkRecord('shop', 'id_z', 'visit', {})],
      [sdkRecord('shop', 'id_a', 'visit', {})],
    ]
    for (const [k, records] of batch.entries()) {
      sent.push(upload(records))
      await eventually(async () => writerQueue(s.app.ctx, 'shop').waiting === k + 1)
    }
    release()
    await filler
    const [first, second, ...rest] = await Promise.all(sent)
    expect(first.body).toMatchObject({ stored: 1, valuesDropped: 0 })
    // typed datetime by the first upload: the second's text is left out, as if it came after the first's commit
    expect(second.body).toMatchObject({ stored: 1, valuesDropped: 1, dropped: [{ row: 1, property: 'seen_at', value: '"yesterday"' }] })
    for (const r of rest) expect(r.body).toMatchObject({ stored: 1, rejected: 0, valuesDropped: 0 })
    expect(await warehouseRows(s, 'shop', "SELECT data_type FROM information_schema.columns WHERE table_name = 'event_vd' AND column_name = 'seen_at'")).toEqual([{ data_type: 'TIMESTAMP' }])
    const ids = await warehouseRows(s, 'shop', "SELECT xwho FROM user_ids WHERE xwho IN ('ty_b', 'ty_a', 'id_z', 'id_a') ORDER BY distinct_id")
    expect(ids.map((r) => r.xwho)).toEqual(['ty_b', 'ty_a', 'id_z', 'id_a'])
  }, 120_000)
})

describe('a shared write that fails', () => {
  it('is written again one upload at a time, so that the upload the engine refuses refuses none of the others', async () => {
    // a column the plan does not know, of another type than the upload's values: the engine fails the insert
    await warehouseRows(s, 'shop', 'ALTER TABLE event_vd ADD COLUMN poison INTEGER')
    const release = holdWriter()
    const filler = upload(views('filler3', 1))
    await eventually(async () => writerQueue(s.app.ctx, 'shop').writing)
    // sent at once: all three wait behind the held writer and are taken into one batch
    const sent = [views('before_poison', 3), [sdkRecord('shop', 'poisoned', 'view', { poison: 'not a number' })], views('after_poison', 3)].map(upload)
    await eventually(async () => writerQueue(s.app.ctx, 'shop').waiting === 3)
    release()
    await filler
    const [before, poisoned, after] = await Promise.all(sent)
    expect(before.body).toMatchObject({ code: 200, received: 3, stored: 3 })
    expect(after.body).toMatchObject({ code: 200, received: 3, stored: 3 })
    expect(poisoned.status).not.toBe(200)
    expect(await warehouseRows(s, 'shop', "SELECT count(*) AS n FROM event_vd WHERE xwho LIKE 'before_poison%' OR xwho LIKE 'after_poison%' OR xwho = 'poisoned'")).toEqual([{ n: 6 }])
  }, 120_000)
})

describe('a crash inside the write of a batch', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'uba-burst-crash-'))
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it('stores every upload answered 200 in full and no part of any other', async () => {
    let server = await serveProcess(dataDir, { UBA_DESK_TEST_PAUSE: 'before-batch-commit' })
    const creds = credentialsOf(dataDir)
    const project = creds.projects[0]
    const x = { xtoken: creds.xtoken }
    await callJson(`${server.url}/uba/manage/enterprise/projects/${project.appKey}/stream`, 'POST', x, { streamSwitch: true })
    while ((await callJson(`${server.url}/uba/manage/enterprise/projects/${project.appKey}`, 'GET', x)).body.stream !== 2) await new Promise((r) => setTimeout(r, 50))
    const answered = new Set<number>()
    const url = server.url
    // the first upload is written alone (nothing waits), the others gather behind it into a batch that pauses before its commit
    Array.from({ length: 30 }, (_, k) =>
      fetch(`${url}/up?appid=${project.appKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(Array.from({ length: 20 }, (_, i) => ({ ...sdkRecord(project.appKey, `c${k}_${i}`, 'tap'), xcontext: { $lib: 'Node', weight: i } }))) })
        .then((res) => (res.status === 200 ? answered.add(k) : undefined))
        .catch(() => undefined),
    )
    const paused = await server.printed(/test pause: before-batch-commit load of (\d+) uploads/)
    expect(Number(paused[1])).toBeGreaterThan(1)
    // the first upload's answer was sent before the batch began
    await eventually(async () => answered.size > 0)
    await server.kill()

    server = await serveProcess(dataDir)
    const rows = await callJson(`${server.url}/uba/api/sql/query`, 'POST', project, { sql: "SELECT split_part(xwho, '_', 1) AS k, count(*) AS n FROM event_vd GROUP BY 1", format: 'json' })
    const stored = new Map<string, number>(rows.body.map((r: any) => [r.k, Number(r.n)]))
    for (let k = 0; k < 30; k++) {
      const n = stored.get(`c${k}`) ?? 0
      // whole or nothing; answered means stored
      expect([0, 20]).toContain(n)
      if (answered.has(k)) expect(n).toBe(20)
    }
    expect(30 - stored.size).toBeGreaterThanOrEqual(Number(paused[1]))
    await server.kill()
  }, 240_000)
})
