import { beforeAll, describe, expect, it } from 'vitest'
import { MASKED_VALUE } from '../../src-main/domain/schema/shownValues'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import type { TestServer } from '../helpers/server'
import { loadPeople, setMasking } from './people-fixture'

describe.each(ENGINES)('user detail and the personal lookup, on %s', (engine) => {
  const host = useEngine(engine)
  let s: TestServer
  let p: Project
  let ids: Record<string, number>

  beforeAll(async () => {
    ;({ s, p, ids } = await loadPeople(host, 'pdetail'))
    await setMasking(s, p, 'plan_user_properties', '$phone', 1)
  })

  const detail = (xwho: string, body: unknown = {}) => s.call('POST', `/uba/api/cohort/users/${encodeURIComponent(xwho)}`, { headers: p, body })
  const personal = (body: unknown) => s.call('POST', '/uba/api/users/personal', { headers: p, body })

  /** Every visible user property: xwho first, then the presets by id, then the custom ones by id. */
  const DEFAULT_KEYS = [
    'xwho', '$city', '$country', '$email', '$first_visit_language', '$first_visit_time', '$is_login', '$lib', '$lib_version',
    '$original_id', '$phone', '$platform', '$province', '$signup_time', '$time_zone', 'age', 'name', 'tags_list', 'vip',
  ]

  describe('user detail', () => {
    it('returns every visible user property by default, hidden distinct_id left out, empty ones null', async () => {
      const res = await detail('u1')
      expect(res.status).toBe(200)
      expect(Object.keys(res.body)).toEqual(DEFAULT_KEYS)
      expect(res.body).toEqual({
        xwho: 'u1', $city: 'Beijing', $country: null, $email: null, $first_visit_language: null, $first_visit_time: null,
        $is_login: null, $lib: null, $lib_version: null, $original_id: null, $phone: MASKED_VALUE, $platform: null, $province: null,
        // stored as the local time it was given, shown to the second, not shifted by the +08:00 zone
        $signup_time: '2024-01-02 09:30:00', $time_zone: null, age: 30, name: 'Ann', tags_list: ['a', 'b'], vip: true,
      })
    })

    it('returns the chosen properties in the order asked, a hidden one included when named, repeats once', async () => {
      const res = await detail('u1', { properties: ['vip', 'distinct_id', '$signup_time', 'vip', 'xwho', '$email'] })
      expect(res.status).toBe(200)
      expect(Object.keys(res.body)).toEqual(['vip', 'distinct_id', '$signup_time', 'xwho', '$email'])
      expect(res.body).toEqual({ vip: true, distinct_id: ids.u1, $signup_time: '2024-01-02 09:30:00', xwho: 'u1', $email: null })
    })

    it('shows a masked property as the marker, while the warehouse keeps the value; an empty masked value stays null', async () => {
      const [stored] = await host.rows(p, `SELECT "$phone" AS phone FROM profile_vd WHERE xwho = 'u1'`)
      expect(stored.phone).toBe('13800000000')
      expect((await detail('u1', { properties: ['$phone', 'name'] })).body).toEqual({ $phone: '******', name: 'Ann' })
      expect((await detail('u3', { properties: ['$phone', 'name'] })).body).toEqual({ $phone: null, name: 'Bo' })
    })

    it('knows a user with events and no profile: xwho and distinct_id, nulls elsewhere', async () => {
      const res = await detail('u2', { properties: ['xwho', 'distinct_id', 'name', 'age'] })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ xwho: 'u2', distinct_id: ids.u2, name: null, age: null })
      const all = await detail('u2')
      expect(Object.keys(all.body)).toEqual(DEFAULT_KEYS)
      expect(Object.entries(all.body).filter(([, v]) => v !== null)).toEqual([['xwho', 'u2']])
    })

    it('refuses an unknown user, naming xwho', async () => {
      const res = await detail('nobody')
      expect(res.status).toBe(400)
      expect(res.body.data).toEqual(['xwho'])
      expect(res.body.msg).toContain('nobody')
    })

    it('refuses an unknown property, naming properties[i]', async () => {
      const res = await detail('u1', { properties: ['name', 'no_such'] })
      expect(res.status).toBe(400)
      expect(res.body.data).toEqual(['properties[1]'])
      expect((await detail('u1', { properties: 'name' })).body.data).toEqual(['properties'])
      expect((await detail('u1', { properties: [7] })).body.data).toEqual(['properties[0]'])
    })

    it('refuses a tag that does not exist instead of leaving it out, and checks the tags shape', async () => {
      const res = await detail('u1', { tags: [{ code: 'spender' }] })
      expect(res.status).toBe(400)
      expect(res.body.data).toEqual(['tags[0].code'])
      expect(res.body.msg).toContain('spender')
      expect((await detail('u1', { tags: [{ version: 1 }] })).body.data).toEqual(['tags[0].code'])
      expect((await detail('u1', { tags: [{ code: 'x', version: 0 }] })).body.data).toEqual(['tags[0].version'])
      const none = await detail('u1', { properties: ['name'], tags: [] })
      expect(none.body).toEqual({ name: 'Ann' })
    })

    it('adds tag.<code> keys: the latest version by default, a chosen one, null for a user without a value', async () => {
      // the tag is put in place directly (tables of domain/tags), as computing one is another area's work
      const now = Date.now()
      const meta = s.app.ctx.meta
      const id = meta
        .prepare(`INSERT INTO tags (app_key, code, name, source, status, created_user, create_time, update_time) VALUES (?, 't1', 'Spend level', 'rule', 'success', 'api', ?, ?)`)
        .run(p.appKey, now, now).lastInsertRowid
      for (const version of [1, 2]) meta.prepare('INSERT INTO tag_versions (tag_id, version, user_number, calculated_time) VALUES (?, ?, 1, ?)').run(id, version, now)
      await s.app.ctx.warehouse.withConnection(p.appKey, 'Asia/Shanghai', async (conn) => {
        // the table as the tag computation makes it on the project's engine
        await conn.run(conn.dialect.tagVersionsTable('tag_t1'))
        await conn.run(`INSERT INTO tag_t1 VALUES (1, ${ids.u1}, 'low'), (2, ${ids.u1}, 'high')`)
      })
      expect((await detail('u1', { properties: ['name'], tags: [{ code: 't1' }] })).body).toEqual({ name: 'Ann', 'tag.t1': 'high' })
      expect((await detail('u1', { properties: ['name'], tags: [{ code: 't1', version: 1 }] })).body).toEqual({ name: 'Ann', 'tag.t1': 'low' })
      expect((await detail('u3', { properties: ['name'], tags: [{ code: 't1' }] })).body).toEqual({ name: 'Bo', 'tag.t1': null })
      const missing = await detail('u1', { tags: [{ code: 't1', version: 3 }] })
      expect(missing.status).toBe(400)
      expect(missing.body.data).toEqual(['tags[0].version'])
      expect((await personal({ xwho: 'u1', properties: [], tags: [{ code: 't1' }] })).body['tag.t1']).toBe('high')
    })

    it('ignores an unknown field and needs project credentials', async () => {
      const res = await detail('u1', { property: ['name'] })
      expect(res.status).toBe(200)
      expect(res.body).toEqual((await detail('u1')).body)
      const anon = await s.call('POST', '/uba/api/cohort/users/u1', { body: {} })
      expect(anon.status).toBe(401)
    })

    it('reads a user id with characters that need encoding in the path', async () => {
      const res = await detail('a b/c')
      expect(res.status).toBe(400)
      expect(res.body.data).toEqual(['xwho'])
      expect(res.body.msg).toContain('a b/c')
    })
  })

  describe('POST /uba/api/users/personal', () => {
    it('finds the user by distinctId, with the same result as by xwho', async () => {
      const byId = await personal({ distinctId: ids.u1 })
      expect(byId.status).toBe(200)
      expect(byId.body).toEqual((await detail('u1')).body)
      const chosen = await personal({ distinctId: ids.u1, properties: ['xwho', 'age'] })
      expect(chosen.body).toEqual({ xwho: 'u1', age: 30 })
    })

    it('finds the user by xwho', async () => {
      const res = await personal({ xwho: 'u3', properties: ['name', 'distinct_id'] })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ name: 'Bo', distinct_id: ids.u3 })
    })

    it('needs exactly one of distinctId and xwho, naming both', async () => {
      const both = await personal({ distinctId: ids.u1, xwho: 'u1' })
      expect(both.status).toBe(400)
      expect(both.body.data).toEqual(['distinctId', 'xwho'])
      const neither = await personal({ properties: ['name'] })
      expect(neither.status).toBe(400)
      expect(neither.body.data).toEqual(['distinctId', 'xwho'])
    })

    it('refuses an unknown user, naming the key used', async () => {
      const id = await personal({ distinctId: 987654 })
      expect(id.status).toBe(400)
      expect(id.body.data).toEqual(['distinctId'])
      const who = await personal({ xwho: 'ghost' })
      expect(who.status).toBe(400)
      expect(who.body.data).toEqual(['xwho'])
      const text = await personal({ distinctId: 'one' })
      expect(text.status).toBe(400)
      expect(text.body.data).toEqual(['distinctId'])
    })
  })
})
