import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setClock } from '../../src-main/domain/time/clock'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'
import type { TestServer } from '../helpers/server'
import { createCohort, eventRule, settled, single, userRule } from './cohorts-helpers'

describe.each(ENGINES)('analyses restricted to cohorts (crowds), on %s', (engine) => {
  const host = useEngine(engine)
  let s: TestServer
  let p: Project
  let B: string
  let S: string
  let BUY2: string

  const rec = (xwho: string, xwhat: string, utc: string, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen: Date.parse(`${utc}Z`), xcontext })

  /*
   * Project time zone UTC.
   *       city   events
   *   a   B      view 01-01 10:00, buy 01-01 11:00 (10), view 01-02 10:00, buy 01-02 11:00 (30)
   *   b   B      view 01-01 10:00, buy 01-03 11:00 (5)
   *   c   S      view 01-01 10:00, view 01-02 10:00
   *   d   S      buy 01-02 11:00 (7)
   * Cohorts: B = city B = {a, b}; S = city S = {c, d}; BUY2 = 2+ buys over 01-01..01-03 = {a}.
   */
  beforeAll(async () => {
    s = host.server
    p = await host.project('cc', 'UTC')
    const lines = [
      rec('a', '$profile_set', '2024-01-01T00:00:00', { city: 'B' }),
      rec('b', '$profile_set', '2024-01-01T00:00:00', { city: 'B' }),
      rec('c', '$profile_set', '2024-01-01T00:00:00', { city: 'S' }),
      rec('d', '$profile_set', '2024-01-01T00:00:00', { city: 'S' }),
      rec('a', 'view', '2024-01-01T10:00:00'),
      rec('a', 'buy', '2024-01-01T11:00:00', { price: 10 }),
      rec('a', 'view', '2024-01-02T10:00:00'),
      rec('a', 'buy', '2024-01-02T11:00:00', { price: 30 }),
      rec('b', 'view', '2024-01-01T10:00:00'),
      rec('b', 'buy', '2024-01-03T11:00:00', { price: 5 }),
      rec('c', 'view', '2024-01-01T10:00:00'),
      rec('c', 'view', '2024-01-02T10:00:00'),
      rec('d', 'buy', '2024-01-02T11:00:00', { price: 7 }),
    ]
    const job = await importAndWait(s, p, { path: fixture('cc.jsonl', lines.join('\n')) })
    if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
    B = (await createCohort(s, p, { content: single(userRule('user.city', 'EQ', ['B'])) })).code
    S = (await createCohort(s, p, { content: single(userRule('user.city', 'EQ', ['S'])) })).code
    BUY2 = (await createCohort(s, p, { content: single(eventRule('event.buy', 'TOTAL_COUNT', 'GTE', [2], { abs: ['2024-01-01', '2024-01-03'] })) })).code
  })
  afterAll(() => setClock())

  const analyze = async (kind: string, body: Record<string, unknown>) => {
    const res = await s.call('POST', `/uba/api/${kind}/analyze`, { headers: p, body })
    if (res.status !== 200) throw new Error(`${kind}: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body
  }
  const range = { fromDate: '2024-01-01', toDate: '2024-01-03' }

  it('event analysis counts the members only; several crowds are their union', async () => {
    const measures = [
      { expression: 'event.view', aggregator: 'TOTAL_COUNT' },
      { expression: 'event.buy', aggregator: 'TRIGGER_USER_COUNT' },
    ]
    const rows = async (crowds: string[]) => (await analyze('events', { ...range, measures, crowds })).rows
    // everyone: views a 2 + b 1 + c 2 = 5 (3, 2, 0 by day); buyers a, b, d (a | a d | b)
    expect(await rows(['$ALL'])).toEqual([{ byValue: [], sum: [5, 3], values: [[3, 2, 0], [1, 2, 1]] }])
    // B = a, b: views 3 (2, 1, 0); buyers a, b (a | a | b)
    expect(await rows([B])).toEqual([{ byValue: [], sum: [3, 2], values: [[2, 1, 0], [1, 1, 1]] }])
    // BUY2 = a
    expect(await rows([BUY2])).toEqual([{ byValue: [], sum: [2, 1], values: [[1, 1, 0], [1, 1, 0]] }])
    // B or S = everyone; B or BUY2 = B
    expect(await rows([B, S])).toEqual(await rows(['$ALL']))
    expect(await rows([B, BUY2])).toEqual(await rows([B]))
  })

  it('user attribute analysis counts the members with a profile', async () => {
    const count = async (crowds: string[]) => (await analyze('userAttributes', { measure: { aggregator: 'USER_COUNT' }, crowds, byFields: [{ expression: 'user.city' }] })).rows
    expect(await count(['$ALL'])).toEqual([{ value: 2, byValue: ['B'] }, { value: 2, byValue: ['S'] }])
    expect(await count([B])).toEqual([{ value: 2, byValue: ['B'] }])
    expect(await count([BUY2, S])).toEqual([{ value: 2, byValue: ['S'] }, { value: 1, byValue: ['B'] }])
  })

  it('funnel follows the members only', async () => {
    const steps = [{ expression: 'event.view' }, { expression: 'event.buy' }]
    const overall = async (crowds: string[]) => (await analyze('funnels', { ...range, steps, crowds })).rows[0].stepsDetail.map((d: any) => d.convertedUser[0])
    // entered: a, b, c (views); converted: a (01-01), b (01-03)
    expect(await overall(['$ALL'])).toEqual([3, 2])
    expect(await overall([B])).toEqual([2, 2])
    // S: c views and never buys; d buys without a view
    expect(await overall([S])).toEqual([1, 0])
  })

  it('retention follows the members only', async () => {
    const body = { fromDate: '2024-01-01', toDate: '2024-01-02', firstEvent: { expression: 'event.view' }, secondEvent: { expression: 'event.buy' }, duration: 1, unit: 'DAY' }
    const all = async (crowds: string[]) => {
      const row = (await analyze('retentions', { ...body, crowds })).rows[0]
      return [row.byValue, row.totalPeople, row.retentionPeoples]
    }
    // viewers a, b, c; a bought the same day (01-01, 01-02) and the next day (01-01 -> 01-02); b only two days later
    expect(await all(['$ALL'])).toEqual(['$ALL', 3, [1, 1]])
    expect(await all([B])).toEqual(['$ALL', 2, [1, 1]])
    expect(await all([S])).toEqual(['$ALL', 1, [0, 0]])
  })

  it('distribution counts the members only', async () => {
    const sums = async (crowds: string[]) => {
      const res = await analyze('distributions', { ...range, measure: { expression: 'event.view', aggregator: 'TOTAL_COUNT' }, crowds, unit: '' })
      const row = res.rows[0]
      return { users: row.sum, spread: row.values.reduce((a: number, b: number) => a + b, 0) }
    }
    // views per user: a 2, b 1, c 2
    expect(await sums(['$ALL'])).toEqual({ users: 3, spread: 3 })
    expect(await sums([B])).toEqual({ users: 2, spread: 2 })
    expect(await sums([S])).toEqual({ users: 1, spread: 1 })
  })

  it('serves no stale cached result after a cohort is recomputed', async () => {
    // buyers today: on 01-01 a; on 01-02 a and d
    setClock(Date.parse('2024-01-01T12:00:00Z'))
    const today = await createCohort(s, p, { dynamic: 1, content: single(eventRule('event.buy', 'TOTAL_COUNT', 'GTE', [1], { rel: '0 day' })) })
    const body = { measure: { aggregator: 'USER_COUNT' }, crowds: [today.code], useCache: true }
    expect((await analyze('userAttributes', body)).rows).toEqual([{ value: 1, byValue: [] }])
    setClock(Date.parse('2024-01-02T12:00:00Z'))
    await s.call('POST', `/uba/api/cohort/${today.id}/recalculate`, { headers: p })
    expect((await settled(s, p, today.id)).userNumber).toBe(2)
    expect((await analyze('userAttributes', body)).rows).toEqual([{ value: 2, byValue: [] }])
    setClock()
  })

  it('refuses an unknown cohort code, and a cohort without members yet, naming the crowd', async () => {
    const refuse = async (crowds: string[]) => {
      const res = await s.call('POST', '/uba/api/events/analyze', { headers: p, body: { ...range, measures: [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }], crowds } })
      expect(res.status).toBe(400)
      return res.body
    }
    expect((await refuse(['$ALL', 'c999999'])).data).toEqual(['crowds[1]'])
    // a cohort whose first computation has not finished (written straight into the metadata)
    const now = Date.now()
    const { lastInsertRowid } = s.app.ctx.meta
      .prepare("INSERT INTO cohorts (app_key, code, name, dynamic, source, status, created_user, create_time, update_time) VALUES (?, 'c888888', 'pending', 0, 'rule', 'calculating', 'API', ?, ?)")
      .run(p.appKey, now, now)
    try {
      const pending = await refuse(['c888888'])
      expect(pending.data).toEqual(['crowds[0]'])
      expect(pending.msg).toContain('no members yet')
    } finally {
      s.app.ctx.meta.prepare('DELETE FROM cohorts WHERE id = ?').run(lastInsertRowid)
    }
  })
})
