import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { folderId } from '../../src-main/domain/platform/settings'
import { clickhouseAvailable, startClickHouse, type TestClickHouse } from '../helpers/clickhouse'
import { fixture, importAndWait } from '../helpers/ingest'
import { eventually, startTestServer, type TestServer } from '../helpers/server'
import { eventRule, members, settled, single } from '../server/cohorts-helpers'

/**
 * Two UBA Desks (two data folders) with projects on one ClickHouse database: each numbers its
 * cohorts and tags itself, so both have a cohort c1 and a tag t1, named alike there. The first to
 * compute one owns its table; the other's computation is refused naming the table and the owner,
 * recorded on its cohort or tag, and its delete leaves the owner's table alone.
 */

const DATABASE = 'uba_sets'
const T = Date.UTC(2024, 0, 2, 10)
const rec = (xwho: string, xwhat: string, xwhen: number) => JSON.stringify({ xwho, xwhat, xwhen, xcontext: { $lib: 'js' } })
const viewers = single(eventRule('event.view', 'TOTAL_COUNT', 'GTE', [1], { abs: ['2024-01-01', '2024-01-03'] }))
const payers = single(eventRule('event.pay', 'TOTAL_COUNT', 'GTE', [1], { abs: ['2024-01-01', '2024-01-03'] }))

describe.skipIf(!clickhouseAvailable())('two apps with cohorts and tags on one ClickHouse database (real clickhouse-server)', () => {
  let ch: TestClickHouse
  const apps: { s: TestServer; p: { appKey: string; token: string }; folder: string }[] = []
  const house = async (sql: string) => (await (await fetch(`${ch.url}/?database=${DATABASE}`, { method: 'POST', body: sql })).text()).trim()
  const cohortOf = async (i: number, content: unknown) => {
    const { s, p } = apps[i]
    const res = await s.call('POST', '/uba/api/cohort', { headers: p, body: { name: `cohort of ${p.appKey}`, dynamic: 0, content } })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return settled(s, p, res.body.id)
  }
  const tagOf = async (i: number, content: unknown) => {
    const { s, p } = apps[i]
    const res = await s.call('POST', '/uba/api/tags', { headers: p, body: { name: `tag of ${p.appKey}`, rules: [{ value: p.appKey, content }] } })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    let tag: any
    await eventually(async () => {
      tag = (await s.call('GET', '/uba/api/tags', { headers: p })).body.find((t: { code: string }) => t.code === res.body.code)
      return tag.status !== 'calculating'
    }, 30_000)
    return tag
  }
  const refusal = (table: string, owner: (typeof apps)[number]) =>
    new RegExp(
      `^the ClickHouse table ${DATABASE}\\.${table} belongs to another UBA Desk \\(data folder ${owner.folder}, project ${owner.p.appKey} on [^,]+, since \\d{4}-[^)]+\\) sharing this database: ` +
        'this one would overwrite its rows, so nothing was written\\. Projects of two apps need databases of their own for cohorts and tags',
    )

  beforeAll(async () => {
    ch = await startClickHouse()
    for (const appKey of ['left', 'right']) {
      const s = await startTestServer()
      const x = { xtoken: s.creds.xtoken }
      const made = await s.call('POST', '/uba/manage/enterprise/projects', { headers: x, body: { appKey, name: appKey, timeZone: 'UTC', warehouse: { engine: 'clickhouse', url: ch.url, database: DATABASE } } })
      expect(made.status, JSON.stringify(made.body)).toBe(200)
      await eventually(async () => (await s.call('GET', `/uba/manage/enterprise/projects/${appKey}`, { headers: x })).body.finish === true)
      const list = await s.call('GET', '/uba/manage/enterprise/projects', { headers: x })
      apps.push({ s, p: { appKey, token: list.body.find((q: { appKey: string }) => q.appKey === appKey).normalToken }, folder: folderId(s.app.ctx.meta) })
    }
    const job = await importAndWait(apps[0].s, apps[0].p, { path: fixture('records.jsonl', [rec('a', 'view', T), rec('b', 'view', T + 1000), rec('a', 'pay', T + 2000)].join('\n')) })
    expect(job.state).toBe('succeeded')
    // right's plan learns its events from its own import (the rows go to the same tables)
    const own = await importAndWait(apps[1].s, apps[1].p, { path: fixture('right.jsonl', rec('r', 'pay', T + 3000)) })
    expect(own.state).toBe('succeeded')
  }, 120_000)

  afterAll(async () => {
    for (const { s } of apps) await s.stop()
    await ch?.stop()
  })

  it("the second app's cohort c1 is refused, naming the table and its owner; once the owner deletes its cohort, the second computes into the table", async () => {
    const left = await cohortOf(0, viewers)
    expect({ code: left.code, status: left.status, userNumber: left.userNumber }).toEqual({ code: 'c1', status: 'success', userNumber: 2 })
    const right = await cohortOf(1, payers)
    expect({ code: right.code, status: right.status }).toEqual({ code: 'c1', status: 'failed' })
    expect(right.failReason).toMatch(refusal('cohort_c1', apps[0]))
    // left's members are untouched
    expect((await members(apps[0].s, apps[0].p, 'c1')).sort()).toEqual(['a', 'b'])
    expect(await house('SELECT count() FROM cohort_c1')).toBe('2')
    // left deletes its cohort: the table and its claim go; right's cohort c1 then computes into it
    expect((await apps[0].s.call('DELETE', `/uba/api/cohort/${left.id}`, { headers: apps[0].p })).status).toBe(200)
    expect(await house(`SELECT count() FROM system.tables WHERE database = '${DATABASE}' AND name = 'cohort_c1'`)).toBe('0')
    expect((await apps[1].s.call('POST', `/uba/api/cohort/${right.id}/recalculate`, { headers: apps[1].p })).status).toBe(200)
    const again = await settled(apps[1].s, apps[1].p, right.id)
    expect({ status: again.status, userNumber: again.userNumber, failReason: again.failReason ?? null }).toEqual({ status: 'success', userNumber: 2, failReason: null })
    expect((await members(apps[1].s, apps[1].p, 'c1')).sort()).toEqual(['a', 'r'])
  }, 120_000)

  it("the second app's tag t1 is refused the same way, and its delete leaves the owner's versions", async () => {
    const left = await tagOf(0, viewers)
    expect({ code: left.code, status: left.status }).toEqual({ code: 't1', status: 'success' })
    const right = await tagOf(1, payers)
    expect({ code: right.code, status: right.status }).toEqual({ code: 't1', status: 'failed' })
    expect(right.failReason).toMatch(refusal('tag_t1', apps[0]))
    expect(await house('SELECT version, count(), any(value) FROM tag_t1 GROUP BY version')).toBe('1\t2\tleft')
    // right deleting its tag t1 drops nothing of left's
    expect((await apps[1].s.call('DELETE', '/uba/api/tags/t1', { headers: apps[1].p })).status).toBe(200)
    expect(await house('SELECT count() FROM tag_t1')).toBe('2')
    expect((await apps[0].s.call('GET', '/uba/api/tags', { headers: apps[0].p })).body.find((t: { code: string }) => t.code === 't1')).toMatchObject({ status: 'success' })
  }, 120_000)
})
