import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setClock } from '../../src-main/domain/time/clock'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'
import type { TestServer } from '../helpers/server'
import { content, createCohort, eventRule, group, members, membersFor, settled, single, userRule } from './cohorts-helpers'

const rec = (xwho: string, xwhat: string, local: string, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen: Date.parse(`${local}+08:00`), xcontext })

describe.each(ENGINES)('cohorts, on %s', (engine) => {
  const host = useEngine(engine)
  let s: TestServer
  let p: Project

  /*
   * Project time zone Asia/Shanghai (UTC+8).
   *        city      age  vip    events (local time)
   *   u1   Beijing   20   true   buy 01-01 10:00 price 10, buy 01-02 10:00 price 20, view 01-01 11:00
   *   u2   Shanghai  35   false  buy 01-01 23:30 price 10 (15:30 UTC, 01-01), view 01-02 09:00
   *   u3   Beijing   50          buy 01-02 00:30 price 10 (16:30 UTC on 01-01, but 01-02 locally)
   *   u4   Shenzhen              (no events)
   *   u5   (no profile)          view 01-03 12:00
   */
  beforeAll(async () => {
    s = host.server
    p = await host.project('co', 'Asia/Shanghai')
    const lines = [
      rec('u1', '$profile_set', '2024-01-01T00:00:00', { city: 'Beijing', age: 20, vip: true }),
      rec('u2', '$profile_set', '2024-01-01T00:00:00', { city: 'Shanghai', age: 35, vip: false }),
      rec('u3', '$profile_set', '2024-01-01T00:00:00', { city: 'Beijing', age: 50 }),
      rec('u4', '$profile_set', '2024-01-01T00:00:00', { city: 'Shenzhen' }),
      rec('u1', 'buy', '2024-01-01T10:00:00', { price: 10 }),
      rec('u1', 'buy', '2024-01-02T10:00:00', { price: 20 }),
      rec('u1', 'view', '2024-01-01T11:00:00'),
      rec('u2', 'buy', '2024-01-01T23:30:00', { price: 10 }),
      rec('u2', 'view', '2024-01-02T09:00:00'),
      rec('u3', 'buy', '2024-01-02T00:30:00', { price: 10 }),
      rec('u5', 'view', '2024-01-03T12:00:00'),
    ]
    const job = await importAndWait(s, p, { path: fixture('co.jsonl', lines.join('\n')) })
    if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
  })
  afterAll(() => setClock())

  const days = (from: string, to: string) => ({ abs: [from, to] as [string, string] })

  describe('cohort rules, counted by hand', () => {
    it('selects users by a user property', async () => {
      expect(await membersFor(s, p, single(userRule('user.city', 'EQ', ['Beijing'])))).toEqual(['u1', 'u3'])
      expect(await membersFor(s, p, single(userRule('user.age', 'RANGE', [30, 60])))).toEqual(['u2', 'u3'])
      // u4 has a profile without vip, u5 no profile at all: NULL matches both
      expect(await membersFor(s, p, single(userRule('user.vip', 'NULL')))).toEqual(['u3', 'u4', 'u5'])
    })

    it('counts events in calendar days of the project time zone', async () => {
      // u2's 23:30 buy is on 01-01 there; u3's 00:30 buy is on 01-02 there although it is 01-01 in UTC
      expect(await membersFor(s, p, single(eventRule('event.buy', 'TOTAL_COUNT', 'GTE', [1], days('2024-01-01', '2024-01-01'))))).toEqual(['u1', 'u2'])
      expect(await membersFor(s, p, single(eventRule('event.buy', 'TOTAL_COUNT', 'GTE', [1], days('2024-01-02', '2024-01-02'))))).toEqual(['u1', 'u3'])
    })

    it('counts users without any such event as 0', async () => {
      expect(await membersFor(s, p, single(eventRule('event.buy', 'TOTAL_COUNT', 'EQ', [0], days('2024-01-01', '2024-01-02'))))).toEqual(['u4', 'u5'])
    })

    it('counts distinct values of a property with REMOVE_DUMPLICATE', async () => {
      // prices: u1 {10, 20}, u2 {10}, u3 {10}
      expect(await membersFor(s, p, single(eventRule('event.buy.price', 'REMOVE_DUMPLICATE', 'GTE', [2], days('2024-01-01', '2024-01-02'))))).toEqual(['u1'])
      expect(await membersFor(s, p, single(eventRule('event.buy.price', 'REMOVE_DUMPLICATE', 'EQ', [1], days('2024-01-01', '2024-01-02'))))).toEqual(['u2', 'u3'])
    })

    it('applies an event filter', async () => {
      const priceOver15 = { conditions: [{ expression: 'event.buy.price', function: 'GT', params: [15] }], relation: 'AND' }
      expect(await membersFor(s, p, single(eventRule('event.buy', 'TOTAL_COUNT', 'GTE', [1], days('2024-01-01', '2024-01-03'), priceOver15)))).toEqual(['u1'])
    })

    it('counts any event with event.$Anything, and a virtual event like the analyses do', async () => {
      // events 01-01..01-03: u1 3, u2 2, u3 1, u5 1
      expect(await membersFor(s, p, single(eventRule('event.$Anything', 'TOTAL_COUNT', 'GTE', [2], days('2024-01-01', '2024-01-03'))))).toEqual(['u1', 'u2'])
      const created = await s.call('POST', '/uba/api/meta/event/virtual', {
        headers: p,
        body: { id: 'big_or_view', events: [{ expression: 'event.view' }, { expression: 'event.buy', filter: { conditions: [{ expression: 'event.buy.price', function: 'GTE', params: [20] }] } }] },
      })
      expect(created.status).toBe(200)
      // views: u1, u2, u5; buys of 20 or more: u1 -> u1 has 2 events, u2 and u5 one each
      expect(await membersFor(s, p, single(eventRule('event.big_or_view', 'TOTAL_COUNT', 'GTE', [1], days('2024-01-01', '2024-01-03'))))).toEqual(['u1', 'u2', 'u5'])
      expect(await membersFor(s, p, single(eventRule('event.big_or_view', 'TOTAL_COUNT', 'EQ', [2], days('2024-01-01', '2024-01-03'))))).toEqual(['u1'])
    })

    it('combines rules with AND / OR inside groups and AND / AND_NOT between groups', async () => {
      const beijing = userRule('user.city', 'EQ', ['Beijing'])
      const shanghai = userRule('user.city', 'EQ', ['Shanghai'])
      const boughtOn2nd = eventRule('event.buy', 'TOTAL_COUNT', 'GTE', [1], days('2024-01-02', '2024-01-02'))
      const viewed = eventRule('event.view', 'TOTAL_COUNT', 'GTE', [1], days('2024-01-01', '2024-01-03'))
      // (Beijing OR Shanghai) = u1 u2 u3; AND_NOT bought on the 2nd (u1 u3) -> u2
      expect(await membersFor(s, p, content([group([beijing, shanghai], 'OR'), group([boughtOn2nd])], ['AND_NOT']))).toEqual(['u2'])
      // Beijing AND bought on the 2nd -> u1 u3; empty relations mean AND
      expect(await membersFor(s, p, content([group([beijing]), group([boughtOn2nd])]))).toEqual(['u1', 'u3'])
      // one relation applies between all three groups: Beijing AND_NOT viewed AND_NOT Shanghai -> u3
      expect(await membersFor(s, p, content([group([beijing]), group([viewed]), group([shanghai])], ['AND_NOT']))).toEqual(['u3'])
      // groups-1 relations, in order: (Beijing-or-Shanghai AND viewed) AND_NOT bought on the 2nd -> u2
      expect(await membersFor(s, p, content([group([beijing, shanghai], 'or'), group([viewed]), group([boughtOn2nd])], ['AND', 'AND_NOT']))).toEqual(['u2'])
    })

    it('computes an empty cohort as a success with 0 users', async () => {
      const cohort = await createCohort(s, p, { content: single(userRule('user.city', 'EQ', ['Nowhere'])) })
      expect(cohort).toMatchObject({ status: 'success', userNumber: 0, failReason: null })
      expect(await members(s, p, cohort.code)).toEqual([])
      expect(await host.rows(p, `SELECT count(*) AS n FROM cohort_${cohort.code}`)).toEqual([{ n: 0 }])
    })

    it('counts relative windows back from today in the project time zone', async () => {
      // 2024-01-02 01:00 in Shanghai is still 2024-01-01 in UTC
      setClock(Date.parse('2024-01-02T01:00:00+08:00'))
      try {
        expect(await membersFor(s, p, single(eventRule('event.buy', 'TOTAL_COUNT', 'GTE', [1], { rel: '0 day' })))).toEqual(['u1', 'u3'])
        expect(await membersFor(s, p, single(eventRule('event.buy', 'TOTAL_COUNT', 'GTE', [1], { rel: '1,1,day' })))).toEqual(['u1', 'u2'])
        expect(await membersFor(s, p, single(eventRule('event.buy', 'TOTAL_COUNT', 'GTE', [2], { rel: '6,0,day' })))).toEqual(['u1'])
        // the absolute window wins when both are sent
        const both = { ...eventRule('event.buy', 'TOTAL_COUNT', 'GTE', [1], { abs: ['2024-01-01', '2024-01-01'], rel: '0 day' }) }
        expect(await membersFor(s, p, single(both))).toEqual(['u1', 'u2'])
      } finally {
        setClock()
      }
    })
  })

  describe('cohort records', () => {
    it('answers creation at once and keeps the status, numbers and content', async () => {
      setClock(Date.parse('2024-03-01T09:30:00+08:00'))
      try {
        const res = await s.call('POST', '/uba/api/cohort', { headers: p, body: { name: 'Beijing users', dynamic: 1, content: { ruleGroup: [{ rules: [userRule('user.CITY', 'EQ', ['Beijing'])] }] } } })
        expect(res.status).toBe(200)
        expect(res.body).toEqual({
          id: expect.any(Number),
          code: `c${res.body.id}`,
          name: 'Beijing users',
          dynamic: 1,
          createTime: '2024-03-01 09:30:00',
          content: { ruleGroup: [{ relation: 'AND', rules: [{ type: 'user', expression: 'user.city', function: 'EQ', params: ['Beijing'] }] }], relations: [] },
        })
          const done = await settled(s, p, res.body.id)
        expect(done).toEqual({
          id: res.body.id,
          code: res.body.code,
          name: 'Beijing users',
          dynamic: 1,
          userNumber: 2,
          status: 'success',
          calculatedTime: '2024-03-01 09:30:00',
          source: 'rule',
          createdTime: '2024-03-01 09:30:00',
          createdUser: 'API',
          updatedTime: '2024-03-01 09:30:00',
          content: res.body.content,
          failReason: null,
        })
        const short = await s.call('GET', `/uba/api/cohort/${res.body.id}`, { headers: p })
        expect(Object.keys(short.body).sort()).toEqual(['calculatedTime', 'code', 'dynamic', 'id', 'name', 'status', 'userNumber'])
        // members are materialised as cohort_<code>
        expect(await host.rows(p, `SELECT distinct_id, xwho FROM cohort_${res.body.code} ORDER BY distinct_id`)).toEqual([
          { distinct_id: expect.any(Number), xwho: 'u1' },
          { distinct_id: expect.any(Number), xwho: 'u3' },
        ])
      } finally {
        setClock()
      }
    })

    it('lists cohorts, filtered by status', async () => {
      const all = await s.call('GET', '/uba/api/cohort', { headers: p })
      expect(all.status).toBe(200)
      expect(all.body.length).toBeGreaterThan(5)
      expect(all.body.every((c: any) => c.content === undefined)).toBe(true)
      const ok = await s.call('GET', '/uba/api/cohort?status=success&needMore=true', { headers: p })
      expect(ok.body.length).toBe(all.body.length)
      expect(ok.body[0].source).toBe('rule')
      const failed = await s.call('GET', '/uba/api/cohort?status=failed', { headers: p })
      expect(failed.body).toEqual([])
      expect((await s.call('GET', '/uba/api/cohort?status=done', { headers: p })).body.data).toEqual(['status'])
    })

    it('fails a computation with its reason when the plan no longer fits the rule', async () => {
      await s.call('POST', '/uba/api/meta/event/virtual', { headers: p, body: { id: 'short_lived', events: [{ expression: 'event.view' }] } })
      const rule = single(eventRule('event.short_lived', 'TOTAL_COUNT', 'GTE', [1], days('2024-01-01', '2024-01-03')))
      const cohort = await createCohort(s, p, { content: rule })
      expect(cohort.userNumber).toBe(3)
      // the virtual event is gone from the plan: the next computation fails, the last members stay
      s.app.ctx.meta.prepare("DELETE FROM plan_events WHERE app_key = ? AND id = 'short_lived'").run(p.appKey)
      const again = await s.call('POST', `/uba/api/cohort/${cohort.id}/recalculate`, { headers: p })
      expect(again.body).toEqual({ id: cohort.id, status: 'calculating' })
      const failed = await settled(s, p, cohort.id)
      expect(failed.status).toBe('failed')
      expect(failed.failReason).toContain('content.ruleGroup[0].rules[0].expression')
      expect(failed.userNumber).toBe(3)
      expect(await members(s, p, cohort.code)).toHaveLength(3)
    })

    it('recalculates a static cohort over new data', async () => {
      const cohort = await createCohort(s, p, { content: single(userRule('user.city', 'EQ', ['Hangzhou'])) })
      expect(cohort.userNumber).toBe(0)
      await importAndWait(s, p, { path: fixture('more.jsonl', rec('u6', '$profile_set', '2024-01-05T00:00:00', { city: 'Hangzhou' })) })
      expect((await s.call('GET', `/uba/api/cohort/${cohort.id}`, { headers: p })).body.userNumber).toBe(0)
      await s.call('POST', `/uba/api/cohort/${cohort.id}/recalculate`, { headers: p })
      expect((await settled(s, p, cohort.id)).userNumber).toBe(1)
      expect(await members(s, p, cohort.code)).toEqual(['u6'])
      expect((await s.call('POST', '/uba/api/cohort/999999/recalculate', { headers: p })).body.data).toEqual(['id'])
    })
  })
})
