import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type EngineHost, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'

const at = Date.parse('2024-01-01T08:00:00+08:00')
const profile = (xwho: string, xcontext: Record<string, unknown>) => JSON.stringify({ xwho, xwhat: '$profile_set', xwhen: at, xcontext })
const event = (xwho: string, xwhat: string, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen: at, xcontext })

/*
 *        gender  age  city      vip    tags
 *   u1   f       20   Beijing   true   a b
 *   u2   m       20   Shanghai  false  a
 *   u3   f       50   Beijing          a a
 *   u4   m            Shenzhen
 *   u5           15
 *   u6   (events only, no profile: not a user of this analysis)
 */
async function loadUsers(host: EngineHost): Promise<Project> {
  const p = await host.project('ua', 'Asia/Shanghai')
  const lines = [
    profile('u1', { gender: 'f', age: 20, city: 'Beijing', vip: true, tags: ['a', 'b'] }),
    profile('u2', { gender: 'm', age: 20, city: 'Shanghai', vip: false, tags: ['a'] }),
    profile('u3', { gender: 'f', age: 50, city: 'Beijing', tags: ['a', 'a'] }),
    profile('u4', { gender: 'm', city: 'Shenzhen' }),
    profile('u5', { age: 15 }),
    event('u6', 'view', { price: 3 }),
    event('u1', 'view', { price: 4 }),
  ]
  const job = await importAndWait(host.server, p, { path: fixture('ua.jsonl', lines.join('\n')) })
  if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
  return p
}

const users = { aggregator: 'USER_COUNT' }
const age = (aggregator: string) => ({ aggregator, expression: 'user.age' })
const where = (conditions: unknown[], relation = 'AND') => ({ filter: { conditions, relation } })
const base = { crowds: ['$ALL'] }

describe.each(ENGINES)('user attribute analysis, on %s', (engine) => {
  const host = useEngine(engine)
  let p: Project
  beforeAll(async () => {
    p = await loadUsers(host)
  })
  const analyze = (body: Record<string, unknown>, query = '', headers: Record<string, string> = p) => host.server.call('POST', `/uba/api/userAttributes/analyze${query}`, { headers, body })

  // DuckDB only: its statement text with bound values (ClickHouse 18.16 binds nothing: the dialect prints checked literals)
  it.runIf(engine === 'duckdb')('shows the SQL it ran with explain=true, over profile_vd with values bound', async () => {
    const res = await analyze({ ...base, measure: users, ...where([{ expression: 'user.gender', function: 'EQ', params: ['f'] }]) }, '?explain=true')
    expect(res.body.sql).toHaveLength(1)
    expect(res.body.sql[0].sql).toContain('FROM profile_vd')
    expect(res.body.sql[0].sql).not.toContain('event_vd')
    expect(res.body.sql[0].params).toEqual(['f'])
  })

  it('counts the users with a profile', async () => {
    const res = await analyze({ ...base, measure: users, byFields: [] })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ measure: 'users', byFields: [], rows: [{ value: 5, byValue: [] }], reportUpdateTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/) })
  })

  it('counts users by a string property, a missing value as unknown, largest first', async () => {
    const res = await analyze({ ...base, measure: users, byFields: [{ expression: 'user.gender' }] })
    expect(res.body.byFields).toEqual(['user.gender'])
    expect(res.body.rows).toEqual([
      { value: 2, byValue: ['f'] },
      { value: 2, byValue: ['m'] },
      { value: 1, byValue: ['unknown'] },
    ])
    const top = await analyze({ ...base, measure: users, byFields: [{ expression: 'user.gender' }], limit: 1 })
    expect(top.body.rows).toEqual([{ value: 2, byValue: ['f'] }])
  })

  it('counts users by number buckets, the lower bound included', async () => {
    const res = await analyze({ ...base, measure: users, byFields: [{ expression: 'user.age', buckets: [20, 40] }] })
    // u5 15 | u1 20, u2 20 | u3 50 | u4 none
    expect(res.body.rows).toEqual([
      { value: 2, byValue: ['20~40'] },
      { value: 1, byValue: ['-∞~20'] },
      { value: 1, byValue: ['40~+∞'] },
      { value: 1, byValue: ['unknown'] },
    ])
  })

  it('crosses two breakdowns, and counts a user once per element of a list', async () => {
    const two = await analyze({ ...base, measure: users, byFields: [{ expression: 'user.gender' }, { expression: 'user.city' }] })
    expect(two.body.rows).toEqual([
      { value: 2, byValue: ['f', 'Beijing'] },
      { value: 1, byValue: ['m', 'Shanghai'] },
      { value: 1, byValue: ['m', 'Shenzhen'] },
      { value: 1, byValue: ['unknown', 'unknown'] },
    ])
    const tags = await analyze({ ...base, measure: users, byFields: [{ expression: 'user.tags' }] })
    // a: u1 u2 u3 (u3 lists it twice); b: u1; none: u4 u5
    expect(tags.body.rows).toEqual([
      { value: 3, byValue: ['a'] },
      { value: 2, byValue: ['unknown'] },
      { value: 1, byValue: ['b'] },
    ])
  })

  it('aggregates a number property over the users that have it', async () => {
    const values = async (aggregator: string) => (await analyze({ ...base, measure: age(aggregator) })).body.rows
    expect(await values('SUM')).toEqual([{ value: 105, byValue: [] }])
    expect(await values('AVG')).toEqual([{ value: 26.25, byValue: [] }])
    expect(await values('MAX')).toEqual([{ value: 50, byValue: [] }])
    expect(await values('MIN')).toEqual([{ value: 15, byValue: [] }])
    expect(await values('REMOVE_DUMPLICATE')).toEqual([{ value: 3, byValue: [] }])
    const named = await analyze({ ...base, measure: age('AVG') })
    expect(named.body.measure).toBe('age · average')
  })

  it('aggregates per group, ordered by value, with 0 or null where a group has no value', async () => {
    const sum = await analyze({ ...base, measure: age('SUM'), byFields: [{ expression: 'user.gender' }] })
    expect(sum.body.rows).toEqual([
      { value: 70, byValue: ['f'] },
      { value: 20, byValue: ['m'] },
      { value: 15, byValue: ['unknown'] },
    ])
    const cities = await analyze({ ...base, measure: { aggregator: 'REMOVE_DUMPLICATE', expression: 'user.city' }, byFields: [{ expression: 'user.gender' }] })
    expect(cities.body.rows).toEqual([
      { value: 2, byValue: ['m'] },
      { value: 1, byValue: ['f'] },
      { value: 0, byValue: ['unknown'] },
    ])
    const avg = await analyze({ ...base, measure: age('AVG'), byFields: [{ expression: 'user.city' }] })
    expect(avg.body.rows).toEqual([
      { value: 35, byValue: ['Beijing'] },
      { value: 20, byValue: ['Shanghai'] },
      { value: 15, byValue: ['unknown'] },
      { value: null, byValue: ['Shenzhen'] },
    ])
  })

  it('filters by user properties with every kind of operator', async () => {
    const count = async (filter: Record<string, unknown>) => (await analyze({ ...base, measure: users, ...filter })).body.rows[0].value
    expect(await count(where([{ expression: 'user.gender', function: 'EQ', params: ['f'] }]))).toBe(2)
    expect(await count(where([{ expression: 'user.age', function: 'GTE', params: [20] }, { expression: 'user.city', function: 'NOT_EQ', params: ['Shanghai'] }]))).toBe(2) // u1 u3
    expect(await count(where([{ expression: 'user.city', function: 'CONTAIN', params: ['Shen'] }, { expression: 'user.age', function: 'LT', params: [18] }], 'or'))).toBe(2) // u4 u5
    expect(await count(where([{ expression: 'user.age', function: 'NULL' }]))).toBe(1)
    expect(await count(where([{ expression: 'user.age', function: 'RANGE', params: [15, 20] }]))).toBe(3)
    expect(await count(where([{ expression: 'user.vip', function: 'TRUE' }]))).toBe(1)
    expect(await count(where([{ expression: 'user.tags', function: 'CONTAIN', params: ['b'] }]))).toBe(1)
    expect(await count(where([{ expression: 'user.xwho', function: 'EQ', params: ['u1', 'u5', 'u6'] }]))).toBe(2)
    const split = await analyze({ ...base, measure: users, byFields: [{ expression: 'user.gender' }], ...where([{ expression: 'user.city', function: 'EQ', params: ['Beijing'] }]) })
    expect(split.body.rows).toEqual([{ value: 2, byValue: ['f'] }])
  })

  it('answers a filter that keeps nobody with 0, null, or no rows', async () => {
    const nobody = where([{ expression: 'user.xwho', function: 'EQ', params: ['nobody'] }])
    expect((await analyze({ ...base, measure: users, ...nobody })).body.rows).toEqual([{ value: 0, byValue: [] }])
    expect((await analyze({ ...base, measure: age('AVG'), ...nobody })).body.rows).toEqual([{ value: null, byValue: [] }])
    expect((await analyze({ ...base, measure: users, byFields: [{ expression: 'user.gender' }], ...nobody })).body.rows).toEqual([])
  })

  it('reads xwho and a user property named "e" side by side', async () => {
    const q = await host.project('uae', 'Asia/Shanghai')
    await importAndWait(host.server, q, { path: fixture('e.jsonl', [profile('p1', { e: 'x' }), profile('p2', { e: 'y' }), profile('p3', { age: 1 })].join('\n')) })
    const res = await analyze({ ...base, measure: users, byFields: [{ expression: 'user.e' }], ...where([{ expression: 'user.xwho', function: 'NOT_EQ', params: ['p2'] }]) }, '', q)
    expect(res.status).toBe(200)
    expect(res.body.rows).toEqual([
      { value: 1, byValue: ['x'] },
      { value: 1, byValue: ['unknown'] },
    ])
  })

  it.each([
    [{ measure: undefined }, ['measure']],
    [{ measure: [] }, ['measure']],
    [{ measure: { aggregator: 'TOTAL_COUNT' } }, ['measure.aggregator']],
    [{ measure: { aggregator: 'SUM' } }, ['measure.expression']],
    [{ measure: { aggregator: 'SUM', expression: 'user.city' } }, ['measure.aggregator']],
    [{ measure: { aggregator: 'SUM', expression: 'event.view.price' } }, ['measure.expression']],
    [{ measure: { aggregator: 'USER_COUNT', expression: 'user.age' } }, ['measure.expression']],
    [{ measure: { aggregator: 'SUM', expression: 'user.nope' } }, ['measure.expression']],
    [where([{ expression: 'event.view.price', function: 'GT', params: [1] }]), ['filter.conditions[0].expression']],
    [where([{ expression: 'user.age', function: 'GT', params: [1] }, { expression: 'event.view.price', function: 'GT', params: [1] }]), ['filter.conditions[1].expression']],
    [where([{ expression: 'user.age', function: 'CONTAIN', params: ['1'] }]), ['filter.conditions[0].function']],
    [where([{ expression: 'user.age', function: 'RANGE', params: [5, 1] }]), ['filter.conditions[0].params']],
    [where([{ expression: 'user.$signup_time', function: 'RELATIVE_TIME_OF_EVENT', params: [1, 'day', 'within'] }]), ['filter.conditions[0].function']],
    [{ filter: { conditions: [], relation: 'XOR' } }, ['filter.relation']],
    [{ byFields: { expression: 'user.gender' } }, ['byFields']],
    [{ byFields: [{ expression: 'event.view.price' }] }, ['byFields[0].expression']],
    [{ byFields: [{ expression: 'user.nope' }] }, ['byFields[0].expression']],
    [{ byFields: [{ expression: 'user.gender' }, { expression: 'user.gender', buckets: [1] }] }, ['byFields[1].buckets']],
    [{ crowds: undefined }, ['crowds']],
    [{ crowds: ['vip'] }, ['crowds[0]']],
    [{ limit: 0 }, ['limit']],
    [{ useCache: 'yes' }, ['useCache']],
  ])('answers %j with 400 naming %j', async (override, data) => {
    const res = await analyze({ ...base, measure: users, ...override })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe(400)
    expect(res.body.data).toEqual(data)
  })
})
