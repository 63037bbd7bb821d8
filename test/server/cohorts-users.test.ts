import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'
import type { TestServer } from '../helpers/server'
import { createCohort, single, userRule } from './cohorts-helpers'

describe.each(ENGINES)('users of a cohort and their export, on %s', (engine) => {
  const host = useEngine(engine)
  let s: TestServer
  let p: Project
  let everyone: string
  let many: string

  const profile = (xwho: string, xcontext: Record<string, unknown>) => JSON.stringify({ xwho, xwhat: '$profile_set', xwhen: Date.parse('2024-01-01T00:00:00Z'), xcontext })

  /* Five users u1..u5 (distinct ids in that order), and 5,000 users m0000..m4999 for the export. */
  beforeAll(async () => {
    s = host.server
    p = await host.project('cu', 'UTC')
    const lines = [
      profile('u1', { city: 'Beijing', age: 20, vip: true, phone: '100', $signup_time: '2024-01-05 10:20:30', hobbies: ['go', 'tea'] }),
      profile('u2', { city: 'Shanghai', age: 30, vip: false, phone: '200' }),
      profile('u3', { city: 'Beijing', age: 40 }),
      profile('u4', { city: 'Shenzhen' }),
      profile('u5', { age: 50 }),
    ]
    await importAndWait(s, p, { path: fixture('cu.jsonl', lines.join('\n')) })
    const bulk = Array.from({ length: 5000 }, (_, i) => profile(`m${String(i).padStart(4, '0')}`, { city: 'Bulk', age: i }))
    await importAndWait(s, p, { path: fixture('bulk.jsonl', bulk.join('\n')) })
    everyone = (await createCohort(s, p, { content: single(userRule('user.xwho', 'CONTAIN', ['u'])) })).code
    many = (await createCohort(s, p, { content: single(userRule('user.city', 'EQ', ['Bulk'])) })).code
  })

  const users = (body: Record<string, unknown>) => s.call('POST', '/uba/api/cohort/users', { headers: p, body: { cohortCode: everyone, ...body } })
  const xwhos = (res: { body: any }) => res.body.users.map((u: any) => u.xwho)

  describe('users of a cohort', () => {
    it('returns each user with the visible properties of the plan, distinct_id and xwho, in distinct_id order', async () => {
      const res = await users({})
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ count: 5, page: 1, size: 5 })
      expect(xwhos(res)).toEqual(['u1', 'u2', 'u3', 'u4', 'u5'])
      const [u1] = res.body.users
      expect(u1).toMatchObject({ xwho: 'u1', city: 'Beijing', age: 20, vip: true, phone: '100', $signup_time: '2024-01-05 10:20:30', hobbies: ['go', 'tea'], $city: null, $email: null })
      expect(typeof u1.distinct_id).toBe('number')
      const ids = res.body.users.map((u: any) => u.distinct_id)
      expect([...ids].sort((a: number, b: number) => a - b)).toEqual(ids)
      // distinct_id is a hidden preset: not among the defaults, but always there
      expect(Object.keys(u1)).toContain('distinct_id')
    })

    it('returns the requested properties only, null where a user has no value', async () => {
      const res = await users({ properties: ['city', 'AGE', '$signup_time'] })
      expect(res.body.users).toEqual([
        { city: 'Beijing', age: 20, $signup_time: '2024-01-05 10:20:30', distinct_id: expect.any(Number), xwho: 'u1' },
        { city: 'Shanghai', age: 30, $signup_time: null, distinct_id: expect.any(Number), xwho: 'u2' },
        { city: 'Beijing', age: 40, $signup_time: null, distinct_id: expect.any(Number), xwho: 'u3' },
        { city: 'Shenzhen', age: null, $signup_time: null, distinct_id: expect.any(Number), xwho: 'u4' },
        { city: null, age: 50, $signup_time: null, distinct_id: expect.any(Number), xwho: 'u5' },
      ])
      expect(Object.keys(res.body.users[0])).toEqual(['city', 'age', '$signup_time', 'distinct_id', 'xwho'])
      expect((await users({ properties: ['city', 'nope'] })).body.data).toEqual(['properties[1]'])
    })

    it('reads a list property a user does not have as null, in the listing and the user detail', async () => {
      // ClickHouse stores a missing list as []: it read [] (and a masked one '******') there
      const res = await users({ properties: ['hobbies'] })
      expect(res.body.users.map((u: any) => u.hobbies)).toEqual([['go', 'tea'], null, null, null, null])
      const detail = await s.call('POST', '/uba/api/cohort/users/u2', { headers: p, body: { properties: ['hobbies'] } })
      expect(detail.body).toEqual({ hobbies: null })
      s.app.ctx.meta.prepare("UPDATE plan_user_properties SET masking = 1 WHERE app_key = ? AND id = 'hobbies'").run(p.appKey)
      try {
        expect((await users({ properties: ['hobbies'] })).body.users.map((u: any) => u.hobbies)).toEqual(['******', null, null, null, null])
      } finally {
        s.app.ctx.meta.prepare("UPDATE plan_user_properties SET masking = 0 WHERE app_key = ? AND id = 'hobbies'").run(p.appKey)
      }
    })

    it('masks the values of a masked property', async () => {
      s.app.ctx.meta.prepare("UPDATE plan_user_properties SET masking = 1 WHERE app_key = ? AND id = 'phone'").run(p.appKey)
      try {
        const res = await users({ properties: ['phone'] })
        expect(res.body.users.map((u: any) => u.phone)).toEqual(['******', '******', null, null, null])
      } finally {
        s.app.ctx.meta.prepare("UPDATE plan_user_properties SET masking = 0 WHERE app_key = ? AND id = 'phone'").run(p.appKey)
      }
    })

    it('returns the first limit users without paging (default 1000)', async () => {
      expect(xwhos(await users({ limit: 2 }))).toEqual(['u1', 'u2'])
      const big = await s.call('POST', '/uba/api/cohort/users', { headers: p, body: { cohortCode: many, properties: [] } })
      expect(big.body).toMatchObject({ count: 5000, page: 1, size: 1000 })
      expect(big.body.users[999].xwho).toBe('m0999')
    })

    it('pages from 1 with pageSize, over the first limit users (default: all)', async () => {
      const page = async (body: Record<string, unknown>) => {
        const res = await users(body)
        return { page: res.body.page, size: res.body.size, count: res.body.count, users: xwhos(res) }
      }
      expect(await page({ page: 1, pageSize: 2 })).toEqual({ page: 1, size: 2, count: 5, users: ['u1', 'u2'] })
      expect(await page({ page: 2, pageSize: 2 })).toEqual({ page: 2, size: 2, count: 5, users: ['u3', 'u4'] })
      expect(await page({ page: 3, pageSize: 2 })).toEqual({ page: 3, size: 1, count: 5, users: ['u5'] })
      expect(await page({ page: 4, pageSize: 2 })).toEqual({ page: 4, size: 0, count: 5, users: [] })
      // limit 3: the pages cover u1..u3 only
      expect(await page({ page: 2, pageSize: 2, limit: 3 })).toEqual({ page: 2, size: 1, count: 5, users: ['u3'] })
      const bulk = await s.call('POST', '/uba/api/cohort/users', { headers: p, body: { cohortCode: many, page: 3, pageSize: 2000, properties: ['age'] } })
      expect(bulk.body).toMatchObject({ count: 5000, page: 3, size: 1000 })
      expect(bulk.body.users[0]).toEqual({ age: 4000, distinct_id: expect.any(Number), xwho: 'm4000' })
    })

    it('refuses broken paging and unknown cohorts, naming the parameter', async () => {
      const refused = async (body: Record<string, unknown>) => {
        const res = await s.call('POST', '/uba/api/cohort/users', { headers: p, body })
        expect(res.status, JSON.stringify(res.body)).toBe(400)
        return res.body.data
      }
      expect(await refused({ cohortCode: everyone, page: 1 })).toEqual(['pageSize'])
      expect(await refused({ cohortCode: everyone, pageSize: 2 })).toEqual(['page'])
      expect(await refused({ cohortCode: everyone, page: 1, pageSize: 4, limit: 3 })).toEqual(['pageSize'])
      expect(await refused({ cohortCode: everyone, page: 0, pageSize: 2 })).toEqual(['page'])
      expect(await refused({ cohortCode: everyone, limit: 0 })).toEqual(['limit'])
      expect(await refused({ cohortCode: everyone, limit: 100001 })).toEqual(['limit'])
      expect(await refused({ cohortCode: 'c999999' })).toEqual(['cohortCode'])
      expect(await refused({})).toEqual(['cohortCode'])
      expect(await refused({ cohortCode: everyone, tags: [{ code: 't999999' }] })).toEqual(['tags[0].code'])
    })
  })

  describe('export of the users of a cohort', () => {
    const exported = async (body: Record<string, unknown>) => {
      const res = await fetch(`${s.url}/uba/api/cohort/users/export`, { method: 'POST', headers: { ...p, 'content-type': 'application/json' }, body: JSON.stringify(body) })
      return { status: res.status, type: res.headers.get('content-type'), text: await res.text() }
    }

    it('streams one JSON user per line, all users by default', async () => {
      const res = await exported({ cohortCode: many, properties: ['age'] })
      expect(res.status).toBe(200)
      expect(res.type).toContain('application/x-ndjson')
      const lines = res.text.trimEnd().split('\n')
      expect(lines).toHaveLength(5000)
      expect(res.text.endsWith('\n')).toBe(true)
      const rows = lines.map((l) => JSON.parse(l))
      expect(rows[0]).toEqual({ age: 0, distinct_id: expect.any(Number), xwho: 'm0000' })
      expect(rows[4999]).toEqual({ age: 4999, distinct_id: expect.any(Number), xwho: 'm4999' })
      expect(rows.every((r, i) => i === 0 || r.distinct_id > rows[i - 1].distinct_id)).toBe(true)
    })

    it('stops at limit and shapes users as the listing does', async () => {
      const res = await exported({ cohortCode: everyone, limit: 2, properties: ['city', '$signup_time'] })
      expect(res.text.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual([
        { city: 'Beijing', $signup_time: '2024-01-05 10:20:30', distinct_id: expect.any(Number), xwho: 'u1' },
        { city: 'Shanghai', $signup_time: null, distinct_id: expect.any(Number), xwho: 'u2' },
      ])
    })

    it('answers an ordinary JSON error before the stream starts', async () => {
      const unknown = await exported({ cohortCode: 'c999999' })
      expect(unknown.status).toBe(400)
      expect(JSON.parse(unknown.text).data).toEqual(['cohortCode'])
      const property = await exported({ cohortCode: everyone, properties: ['nope'] })
      expect(JSON.parse(property.text).data).toEqual(['properties[0]'])
      const limit = await exported({ cohortCode: everyone, limit: 'all' })
      expect(JSON.parse(limit.text).data).toEqual(['limit'])
    })

    it('streams nothing for an empty cohort', async () => {
      const empty = (await createCohort(s, p, { content: single(userRule('user.city', 'EQ', ['Nowhere'])) })).code
      const res = await exported({ cohortCode: empty })
      expect(res.status).toBe(200)
      expect(res.text).toBe('')
    })
  })
})
