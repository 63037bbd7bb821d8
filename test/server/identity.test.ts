import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'
import type { TestServer } from '../helpers/server'
import { createCohort, eventRule, form, members, postForm, single } from './cohorts-helpers'
import { alias, eventUsers, loadAll, rec, startStream, upload, type Project } from './identity-fixture'

describe.each(ENGINES)('identity merge, on %s', (engine) => {
  const host = useEngine(engine)
  let s: TestServer
  let projects: Record<'imported' | 'streamed' | 'aliasFirst', Project>
  let loaded: Awaited<ReturnType<typeof loadAll>>

  beforeAll(async () => {
    s = host.server
    loaded = await loadAll(host)
    projects = loaded
  }, 120_000)

  const ways = ['imported', 'streamed', 'aliasFirst'] as const
  const range = { crowds: ['$ALL'], fromDate: '2024-01-01', toDate: '2024-01-03' }
  const post = async (p: Project, path: string, body: Record<string, unknown>) => {
    const res = await s.call('POST', path, { headers: p, body })
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body
  }

  describe('identity merge with $alias', () => {
    it('gives the anonymous and the login id one distinct_id, the same users however the records arrived', async () => {
      const expected = await eventUsers(host, projects.imported)
      const alice = ['alice', 'anon-1']
      const bob = ['anon-2', 'bob']
      expect(expected.map((e: any) => [e.xwho, e.xwhat, e.ids])).toEqual([
        ['anon-1', 'view', alice],
        ['alice', '$alias', alice],
        ['alice', 'login', alice],
        ['alice', 'pay', alice],
        ['anon-3', 'view', ['anon-3']],
        ['anon-2', 'view', bob],
        ['bob', '$alias', bob],
        ['bob', 'login', bob],
        ['carol', 'view', ['carol']],
        ['carol', 'login', ['carol']],
        ['carol', 'pay', ['carol']],
        ['bob', 'view', bob],
        ['bob', 'pay', bob],
        ['carol', 'view', ['carol']],
      ])
      for (const way of ways) expect(await eventUsers(host, projects[way]), way).toEqual(expected)
      expect(loaded.job.result).toEqual({ eventsWritten: 14, profilesChanged: 0, debugSkipped: 0, duplicatesSkipped: 0, aliasesMerged: 2, aliasesIgnored: 0, aliasProblems: [] })
      // uploads without $alias answer as before; those with one count it
      expect(loaded.replies.map((r) => [r.stored, r.aliasesMerged, r.aliasesIgnored])).toEqual([[6, undefined, undefined], [3, 1, 0], [3, undefined, undefined], [1, 1, 0], [1, undefined, undefined]])
    })

    it('counts merged users in a funnel view -> login -> pay', async () => {
      const steps = ['view', 'login', 'pay'].map((e) => ({ expression: `event.${e}` }))
      for (const way of ways) {
        const body = await post(projects[way], '/uba/api/funnels/analyze', { ...range, steps, convertTime: 1, convertTimeUnit: 'DAY' })
        // $ALL: 4 entered, alice bob carol logged in, alice carol paid; 01-01 alice (3) anon-3 (1);
        // 01-02 bob (2: his pay is 27 h after the view) carol (3); 01-03 bob's view, no login after
        expect(body.rows[0].stepsDetail.map((d: any) => d.convertedUser), way).toEqual([
          [4, 2, 2, 1],
          [3, 1, 2, 0],
          [2, 1, 1, 0],
        ])
      }
    })

    it('counts merged users in retention view -> pay', async () => {
      for (const way of ways) {
        const body = await post(projects[way], '/uba/api/retentions/analyze', {
          ...range, firstEvent: { expression: 'event.view' }, secondEvent: { expression: 'event.pay' }, duration: 2, unit: 'DAY',
        })
        // alice pays the day she viewed (as anon-1); bob pays the day after his anonymous view, and the day of his own
        expect(body.rows.map((r: any) => [r.byValue, r.totalPeople, r.retentionPeoples]), way).toEqual([
          ['$ALL', 4, [3, 1, 0]],
          ['2024/01/01 00:00:00', 2, [1, 0, 0]],
          ['2024/01/02 00:00:00', 2, [1, 1, 0]],
          ['2024/01/03 00:00:00', 1, [1, 0, 0]],
        ])
      }
    })

    it('shows the merged distinct_id in custom SQL, xwho as sent', async () => {
      for (const way of ways) {
        const body = await post(projects[way], '/uba/api/sql/query', { sql: 'SELECT count(DISTINCT distinct_id) AS users, count(DISTINCT xwho) AS ids FROM event_vd', format: 'json' })
        expect(body, way).toEqual([{ users: 4, ids: 6 }])
      }
    })

    it('finds the merged user by either id, named by its login id, with both ids\' events in its timeline', async () => {
      const p = projects.streamed
      const days = { fromDate: range.fromDate, toDate: range.toDate }
      const byAnon = await post(p, '/uba/api/users/sequence', { xwho: 'anon-2', ...days })
      const byLogin = await post(p, '/uba/api/users/sequence', { xwho: 'bob', ...days })
      expect(byAnon.rows).toEqual(byLogin.rows)
      expect(byAnon.rows.map((r: any) => [r.eventId, r.eventTime])).toEqual([
        ['pay', '2024/01/03 11:00:00'],
        ['view', '2024/01/03 10:00:00'],
        ['$alias', '2024/01/02 09:00:00'],
        ['login', '2024/01/02 09:00:00'],
        ['view', '2024/01/02 08:00:00'],
      ])
      const detail = await post(p, '/uba/api/users/personal', { xwho: 'anon-1', properties: ['xwho'] })
      expect(detail).toEqual({ xwho: 'alice' })
    })

    it('counts a merged user once in cohorts, by rule and by file (matched by any of its ids)', async () => {
      for (const way of ways) {
        const p = projects[way]
        const cohort = await createCohort(s, p, { content: single(eventRule('event.view', 'TOTAL_COUNT', 'GTE', [1], { abs: ['2024-01-01', '2024-01-03'] })) })
        expect(cohort.userNumber, way).toBe(4)
        expect((await members(s, p, cohort.code)).sort(), way).toEqual(['alice', 'anon-3', 'bob', 'carol'])
        const file = await postForm(s, '/uba/api/cohort/byfile', p, form({ name: `ids ${way}` }, { name: 'ids.csv', data: 'anon-1\nalice\nanon-2\nghost\n' }))
        expect(file.body, way).toMatchObject({ userNumber: 2, matched: 3, unmatched: 1 })
        expect((await members(s, p, file.body.code)).sort(), way).toEqual(['alice', 'bob'])
      }
    })
  })

  describe('identity merge in tags', () => {
    it('gives a merged user one value of a file tag, its login id\'s when both ids are listed', async () => {
      const p = projects.streamed
      const res = await postForm(s, '/uba/api/tags/byfile', p, form({ name: 'Segment' }, { name: 'seg.csv', data: 'xwho,value\nanon-1,A\nalice,B\nanon-2,C\ncarol,D\n' }))
      expect(res.body, JSON.stringify(res.body)).toMatchObject({ userNumber: 3, matched: 4, unmatched: 0 })
      const value = async (xwho: string) => (await post(p, '/uba/api/users/personal', { xwho, properties: ['xwho'], tags: [{ code: res.body.code }] }))[`tag.${res.body.code}`]
      expect([await value('anon-1'), await value('alice'), await value('bob'), await value('carol'), await value('anon-3')]).toEqual(['B', 'B', 'C', 'D', null])
    })
  })

  describe('identity merge rules', () => {
    let p: Project
    beforeAll(async () => {
      p = await host.project('rules', 'UTC')
      await startStream(s, p.appKey)
    })

    it('merges an anonymous id into its first login id only, and reports the later alias', async () => {
      await upload(s, p.appKey, [rec('a1', 'view', '2024-01-01 10:00'), rec('dave', 'view', '2024-01-01 09:00'), rec('erin', 'view', '2024-01-01 09:00')])
      const first = await upload(s, p.appKey, [alias('dave', 'a1', '2024-01-01 11:00')])
      expect(first).toMatchObject({ stored: 1, rejected: 0, aliasesMerged: 1, aliasesIgnored: 0, problems: [] })
      const second = await upload(s, p.appKey, [rec('erin', 'pay', '2024-01-01 12:00'), alias('erin', 'a1', '2024-01-01 13:00')])
      expect(second).toMatchObject({ stored: 2, rejected: 0, aliasesMerged: 0, aliasesIgnored: 1 })
      expect(second.problems).toEqual([
        { row: 2, property: '$original_id', value: 'a1', reason: 'was merged into dave before: an anonymous id merges into one login id (the first alias wins); this alias to erin was ignored' },
      ])
      const ids = await host.rows(p, 'SELECT xwho, distinct_id FROM user_ids ORDER BY xwho')
      const id = Object.fromEntries(ids.map((r) => [r.xwho, r.distinct_id]))
      expect(id.a1).toBe(id.dave)
      expect(id.erin).not.toBe(id.dave)
    })

    it('does nothing for an alias to itself or a repeated alias, and reports one without $original_id', async () => {
      const res = await upload(s, p.appKey, [alias('dave', 'dave', '2024-01-02 10:00'), alias('dave', 'a1', '2024-01-02 11:00'), alias('dave', undefined, '2024-01-02 12:00')])
      expect(res).toMatchObject({ stored: 3, aliasesMerged: 0, aliasesIgnored: 1 })
      expect(res.problems).toEqual([{ row: 3, property: '$original_id', value: null, reason: 'is missing: an $alias names the anonymous id to merge into its xwho; nothing was merged' }])
    })

    it('never merges a login id as an anonymous id', async () => {
      const res = await upload(s, p.appKey, [alias('erin', 'dave', '2024-01-02 13:00')])
      expect(res).toMatchObject({ aliasesMerged: 0, aliasesIgnored: 1 })
      expect(res.problems[0]).toMatchObject({ row: 1, value: 'dave', reason: 'is a login id (anonymous ids were merged into it): two login ids are not merged; this alias to erin was ignored' })
      const [users] = await host.rows(p, 'SELECT count(DISTINCT distinct_id) AS n FROM user_ids')
      expect(users.n).toBe(2)
    })

    it('applies the aliases of one import in xwhen order, whatever their order in the file', async () => {
      const q = await host.project('order', 'UTC')
      const lines = [alias('late', 'anon', '2024-01-01 13:00'), rec('anon', 'view', '2024-01-01 10:00'), alias('early', 'anon', '2024-01-01 11:00')]
      const job = await importAndWait(s, q, { path: fixture('order.jsonl', lines.map((r) => JSON.stringify(r)).join('\n')) })
      expect(job.result).toMatchObject({ eventsWritten: 3, aliasesMerged: 1, aliasesIgnored: 1 })
      expect(job.result.aliasProblems).toEqual([
        { row: 1, property: '$original_id', value: 'anon', reason: 'was merged into early before: an anonymous id merges into one login id (the first alias wins); this alias to late was ignored' },
      ])
      expect(await eventUsers(host, q)).toEqual([
        { xwho: 'anon', xwhat: 'view', t: Date.parse('2024-01-01T10:00:00Z'), ids: ['anon', 'early'] },
        { xwho: 'early', xwhat: '$alias', t: Date.parse('2024-01-01T11:00:00Z'), ids: ['anon', 'early'] },
        { xwho: 'late', xwhat: '$alias', t: Date.parse('2024-01-01T13:00:00Z'), ids: ['late'] },
      ])
    })

    it('merges profiles: the login id\'s values win, the anonymous one fills gaps, one row per user', async () => {
      await upload(s, p.appKey, [
        rec('a5', '$profile_set', '2024-01-03 08:00', { city: 'Paris', age: 20 }),
        rec('frank', '$profile_set', '2024-01-03 08:00', { city: 'Rome' }),
        rec('frank', 'view', '2024-01-03 08:00'),
      ])
      await upload(s, p.appKey, [alias('frank', 'a5', '2024-01-03 09:00')])
      expect(await host.rows(p, "SELECT xwho, city, age FROM profile_vd WHERE xwho IN ('a5', 'frank')")).toEqual([{ xwho: 'frank', city: 'Rome', age: 20 }])
      // a later operation by the anonymous id changes the merged user's profile
      await upload(s, p.appKey, [rec('a5', '$profile_set', '2024-01-03 10:00', { age: 21 })])
      expect(await host.rows(p, "SELECT xwho, city, age FROM profile_vd WHERE xwho IN ('a5', 'frank')")).toEqual([{ xwho: 'frank', city: 'Rome', age: 21 }])
      // a login id new in the upload joins the anonymous id's user; the profile is named by the login id
      await upload(s, p.appKey, [rec('a6', '$profile_set', '2024-01-03 08:00', { age: 30 })])
      await upload(s, p.appKey, [alias('gina', 'a6', '2024-01-03 09:00'), rec('gina', '$profile_set', '2024-01-03 09:00', { city: 'Oslo' })])
      expect(await host.rows(p, "SELECT xwho, city, age FROM profile_vd WHERE xwho IN ('a6', 'gina')")).toEqual([{ xwho: 'gina', city: 'Oslo', age: 30 }])
      // one profile row per user: frank's and gina's
      const attrs = await post(p, '/uba/api/userAttributes/analyze', { measure: { aggregator: 'USER_COUNT' }, byFields: [], crowds: ['$ALL'] })
      expect(attrs.rows).toEqual([{ value: 2, byValue: [] }])
    })
  })
})
