import { beforeAll, describe, expect, it } from 'vitest'
import { clickhouseAvailable } from '../helpers/clickhouse'
import { eventually } from '../helpers/server'
import { askBoth, type Twin, useTwins } from '../helpers/twinProjects'
import { content, createCohort, eventRule, form, group, members, postForm, settled, single, userRule } from '../server/cohorts-helpers'
import { cohortData, ZONE } from './peopleData'

/**
 * Cohorts on a ClickHouse project have the members they have on DuckDB: the same rows in both
 * projects (`twinProjects`), the same rules, the same hand-computed members (peopleData.ts lists
 * the users and their events in Shanghai time).
 */

describe.skipIf(!clickhouseAvailable())('cohorts on ClickHouse and DuckDB (real clickhouse-server)', () => {
  const twins = useTwins('co', ZONE, cohortData)

  beforeAll(async () => {
    expect(twins.copied).toMatchObject({ user_ids: 6, user_aliases: 1 })
  })

  const projects = (): [string, Twin][] => [['DuckDB', twins.duck], ['ClickHouse', twins.house]]

  /** The sorted members of a new static cohort of `c` on each engine, and its userNumber. */
  const membersOnBoth = async (c: unknown): Promise<{ engine: string; members: string[]; userNumber: number }[]> => {
    const out = []
    for (const [engine, p] of projects()) {
      const cohort = await createCohort(twins.server, p, { content: c })
      expect(cohort.status, `${engine}: ${cohort.failReason}`).toBe('success')
      out.push({ engine, members: (await members(twins.server, p, cohort.code)).sort(), userNumber: cohort.userNumber })
    }
    return out
  }
  const both = async (c: unknown, expected: string[]) => {
    for (const answer of await membersOnBoth(c)) expect(answer, answer.engine).toEqual({ engine: answer.engine, members: expected, userNumber: expected.length })
  }

  const days = (from: string, to: string) => ({ abs: [from, to] as [string, string] })
  const views = (fn: string, params: number[], from = '2024-01-01', to = '2024-01-02', filter?: unknown) => eventRule('event.view', 'TOTAL_COUNT', fn, params, days(from, to), filter)
  const pays = (fn: string, params: number[], from = '2024-01-01', to = '2024-01-03') => eventRule('event.pay', 'TOTAL_COUNT', fn, params, days(from, to))

  it('selects by a user property; users without a profile never match', async () => {
    await both(single(userRule('user.city', 'EQ', ['X'])), ['a', 'e'])
    await both(single(userRule('user.age', 'GT', [25])), ['a'])
    // no profile (c, dan) or no city: NULL
    await both(single(userRule('user.city', 'NULL')), ['c', 'dan'])
  })

  it('counts events on the local days of the window (Shanghai): the 00:30 view is the next day', async () => {
    // a's views are 01-01 23:30 and 01-02 00:30 local, both on 2024-01-01 in UTC
    await both(single(views('GTE', [2], '2024-01-01', '2024-01-01')), [])
    await both(single(views('GTE', [2])), ['a'])
    // anon-d's view counts for dan, the login id it was merged into
    await both(single(views('GTE', [1])), ['a', 'b', 'dan'])
    await both(single(views('RANGE', [1, 1], '2024-01-01', '2024-01-03')), ['b', 'c', 'dan'])
    // within the last 3650 days (counted back from today's local day)
    await both(single(eventRule('event.view', 'TOTAL_COUNT', 'GTE', [1], { rel: '3650,0,day' })), ['a', 'b', 'c', 'dan'])
  })

  it('keeps users without a matching event where a count of 0 passes (did not do, fewer than)', async () => {
    await both(single(pays('EQ', [0])), ['b', 'c', 'e'])
    await both(single(pays('LT', [1], '2024-01-03', '2024-01-03')), ['b', 'c', 'dan', 'e'])
    await both(single(pays('NOT_EQ', [1])), ['b', 'c', 'e'])
    await both(single(pays('LTE', [1])), ['a', 'b', 'c', 'dan', 'e'])
  })

  it('counts distinct values of a property, and events that pass the rule\'s filter', async () => {
    await both(single(eventRule('event.view.price', 'REMOVE_DUMPLICATE', 'GTE', [2], days('2024-01-01', '2024-01-03'))), ['a'])
    const dear = { conditions: [{ expression: 'event.view.price', function: 'GT', params: [100] }], relation: 'AND' }
    await both(single(views('GTE', [1], '2024-01-01', '2024-01-03', dear)), ['b', 'c'])
    // a user property in an event rule's filter: the profile joined inside the rule's subquery
    const inX = { conditions: [{ expression: 'user.city', function: 'EQ', params: ['X'] }], relation: 'AND' }
    await both(single(views('GTE', [1], '2024-01-01', '2024-01-03', inX)), ['a'])
  })

  it('combines groups with OR inside, AND and AND_NOT between them', async () => {
    const cityOrViews = group([userRule('user.city', 'EQ', ['X']), views('GTE', [2])], 'OR')
    // {a, e} without the payers {a, dan}
    await both(content([cityOrViews, group([pays('GTE', [1])])], ['AND_NOT']), ['e'])
    // {a, e} and the payers
    await both(content([cityOrViews, group([pays('GTE', [1])])], ['AND']), ['a'])
    await both(content([group([userRule('user.city', 'EQ', ['X']), pays('EQ', [0])], 'AND')]), ['e'])
  })

  it('matches a file of user ids (an anonymous id finds its merged user) and of a user property', async () => {
    for (const [engine, p] of projects()) {
      const byId = await postForm(twins.server, '/uba/api/cohort/byfile', p, form({ name: 'ids' }, { name: 'ids.csv', data: 'a\nanon-d\nghost\n' }))
      expect(byId.body, engine).toMatchObject({ userNumber: 2, matched: 2, unmatched: 1 })
      expect((await members(twins.server, p, byId.body.code)).sort(), engine).toEqual(['a', 'dan'])
      const byCity = await postForm(twins.server, '/uba/api/cohort/byfile', p, form({ name: 'cities', property: 'city' }, { name: 'c.csv', data: 'Y\nZ\n' }))
      expect(byCity.body, engine).toMatchObject({ userNumber: 1, matched: 1, unmatched: 1 })
      expect(await members(twins.server, p, byCity.body.code), engine).toEqual(['b'])
    }
  })

  it('recomputes a cohort to the same members, and an empty cohort has no users', async () => {
    for (const [engine, p] of projects()) {
      const cohort = await createCohort(twins.server, p, { content: single(views('GTE', [1])), dynamic: 1 })
      const again = await twins.server.call('POST', `/uba/api/cohort/${cohort.id}/recalculate`, { headers: p })
      expect(again.status, engine).toBe(200)
      const after = await settled(twins.server, p, cohort.id)
      expect(after, engine).toMatchObject({ status: 'success', userNumber: 3 })
      expect((await members(twins.server, p, cohort.code)).sort(), engine).toEqual(['a', 'b', 'dan'])
      const empty = await createCohort(twins.server, p, { content: single(views('GTE', [9])) })
      expect(empty, engine).toMatchObject({ status: 'success', userNumber: 0 })
      const users = await twins.server.call('POST', '/uba/api/cohort/users', { headers: p, body: { cohortCode: empty.code } })
      expect(users.body, engine).toEqual({ count: 0, page: 1, size: 0, users: [] })
    }
  })

  it('serves a cohort as a crowd of the event analysis', async () => {
    const codes: string[] = []
    for (const [, p] of projects()) codes.push((await createCohort(twins.server, p, { content: single(userRule('user.city', 'EQ', ['X'])) })).code)
    const body = (code: string) => ({ crowds: [code], fromDate: '2024-01-01', toDate: '2024-01-03', unit: 'DAY', measures: [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }] })
    const answers = []
    for (const [i, [, p]] of projects().entries()) {
      const res = await twins.server.call('POST', '/uba/api/events/analyze', { headers: p, body: body(codes[i]) })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      answers.push(res.body.rows)
    }
    // a and e; only a viewed: 01-01 23:30 and 01-02 00:30
    for (const rows of answers) expect(rows).toEqual([{ byValue: [], sum: [2], values: [[1, 1, 0]] }])
    // the crowd beside a breakdown by a user property (the nested profile join)
    for (const [i, [, p]] of projects().entries()) {
      const res = await twins.server.call('POST', '/uba/api/events/analyze', { headers: p, body: { ...body(codes[i]), byFields: [{ expression: 'user.city' }] } })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.rows).toEqual([{ byValue: ['X'], sum: [2], values: [[1, 1, 0]] }])
    }
  })

  const tagOf = async (p: Twin, code: string, versions: number) => {
    let tag: any
    await eventually(async () => {
      tag = ((await twins.server.call('GET', '/uba/api/tags', { headers: p })).body as any[]).find((t) => t.code === code)
      return tag.status !== 'calculating' && tag.versions.length >= versions
    })
    return tag
  }

  it('computes tags from rules (the first rule a user matches wins) and from a file, in versions, on both', async () => {
    const values: Record<string, unknown>[] = []
    for (const [engine, p] of projects()) {
      const rules = [{ value: 'vip', content: single(userRule('user.city', 'EQ', ['X'])) }, { value: 'buyer', content: single(pays('GTE', [1])) }]
      const level = await twins.server.call('POST', '/uba/api/tags', { headers: p, body: { name: 'Level', rules } })
      expect(level.status, JSON.stringify(level.body)).toBe(200)
      // a and e live in X (a also paid: vip wins), dan paid
      expect(await tagOf(p, level.body.code, 1), engine).toMatchObject({ status: 'success', versions: [{ version: 1, userNumber: 3 }] })
      await twins.server.call('POST', `/uba/api/tags/${level.body.code}/recalculate`, { headers: p })
      expect((await tagOf(p, level.body.code, 2)).versions.map((v: any) => [v.version, v.userNumber]), engine).toEqual([[1, 3], [2, 3]])
      // anon-d and dan are one user: the login id's row wins
      const file = await postForm(twins.server, '/uba/api/tags/byfile', p, form({ name: 'Seg' }, { name: 'seg.csv', data: 'xwho,value\na,gold\nanon-d,silver\ndan,bronze\nghost,x\n' }))
      expect(file.body, engine).toMatchObject({ version: 1, userNumber: 2, matched: 3, unmatched: 1 })
      const everyone = await createCohort(twins.server, p, { content: single(userRule('user.xwho', 'NOT_NULL')) })
      const tags = [{ code: level.body.code, version: 1 }, { code: file.body.code }]
      const res = await twins.server.call('POST', '/uba/api/cohort/users', { headers: p, body: { cohortCode: everyone.code, properties: ['xwho', 'city'], tags } })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const [level1, seg] = [`tag.${level.body.code}`, `tag.${file.body.code}`]
      values.push(Object.fromEntries(res.body.users.map((u: any) => [u.xwho, [u.city, u[level1], u[seg]]])))
    }
    const expected = { a: ['X', 'vip', 'gold'], b: ['Y', null, null], c: [null, null, null], dan: [null, 'buyer', 'bronze'], e: ['X', 'vip', null] }
    for (const v of values) expect(v).toEqual(expected)
  })

  it('lists the cohorts with their member counts', async () => {
    const [onDuck, onHouse] = await askBoth(twins.server, twins, 'GET', '/uba/api/cohort')
    const counts = (list: any[]) => list.map((c) => [c.name.replace(/ \d+$/, ''), c.userNumber])
    expect(counts(onHouse)).toEqual(counts(onDuck))
  })
})
