import * as XLSX from 'xlsx'
import { beforeAll, describe, expect, it } from 'vitest'
import { tagValuesFor } from '../../src-main/domain/userSets/tagVersions'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'
import { eventually, type TestServer } from '../helpers/server'
import { createCohort, eventRule, form, postForm, single, userRule } from './cohorts-helpers'

describe.each(ENGINES)('tags, on %s', (engine) => {
  const host = useEngine(engine)
  let s: TestServer
  let p: Project
  let everyone: string
  let level: { id: number; code: string }

  const rec = (xwho: string, xwhat: string, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen: Date.parse('2024-01-01T10:00:00Z'), xcontext })

  /*   u1 age 50 buys; u2 age 20 buys; u3 age 10; u4 age 45. */
  beforeAll(async () => {
    s = host.server
    p = await host.project('tg', 'UTC')
    await s.call('POST', '/uba/manage/enterprise/accounts', { headers: { xtoken: s.creds.xtoken }, body: { email: 'ann@example.com', name: 'Ann' } })
    const lines = [rec('u1', '$profile_set', { age: 50 }), rec('u2', '$profile_set', { age: 20 }), rec('u3', '$profile_set', { age: 10 }), rec('u4', '$profile_set', { age: 45 }), rec('u1', 'buy'), rec('u2', 'buy')]
    await importAndWait(s, p, { path: fixture('tg.jsonl', lines.join('\n')) })
    everyone = (await createCohort(s, p, { content: single(userRule('user.xwho', 'NOT_NULL')) })).code
  })

  const oldies = single(userRule('user.age', 'GTE', [40]))
  const buyers = single(eventRule('event.buy', 'TOTAL_COUNT', 'GTE', [1], { abs: ['2024-01-01', '2024-01-31'] }))
  const listTags = async () => (await s.call('GET', '/uba/api/tags', { headers: p })).body as any[]
  const tagOf = async (code: string) => (await listTags()).find((t) => t.code === code)
  const settledTag = async (code: string, versions: number) => {
    let tag: any
    await eventually(async () => {
      tag = await tagOf(code)
      return tag.status !== 'calculating' && tag.versions.length >= versions
    })
    return tag
  }
  const tagValues = async (tags: unknown[]) => {
    const res = await s.call('POST', '/uba/api/cohort/users', { headers: p, body: { cohortCode: everyone, properties: [], tags } })
    if (res.status !== 200) return res.body
    return Object.fromEntries(res.body.users.map((u: any) => [u.xwho, Object.fromEntries(Object.entries(u).filter(([k]) => k.startsWith('tag.')))]))
  }

  describe('tags from rules, with versions', () => {
    it('gives each user the value of the first rule they match', async () => {
      const res = await s.call('POST', '/uba/api/tags?loginUser=ann@example.com', { headers: p, body: { name: 'Level', rules: [{ value: 'gold', content: oldies }, { value: 'silver', content: buyers }] } })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body).toEqual({ id: expect.any(Number), code: `t${res.body.id}`, name: 'Level', status: 'calculating', createTime: expect.any(String) })
      level = res.body
      const tag = await settledTag(level.code, 1)
      expect(tag).toMatchObject({ name: 'Level', source: 'rule', status: 'success', failReason: null, createdUser: 'Ann', versions: [{ version: 1, userNumber: 3, calculatedTime: expect.any(String) }] })
      expect(tag.rules.map((r: any) => r.value)).toEqual(['gold', 'silver'])
      // u1 is old and a buyer: the first rule wins
      const key = `tag.${level.code}`
      expect(await tagValues([{ code: level.code }])).toEqual({ u1: { [key]: 'gold' }, u2: { [key]: 'silver' }, u3: { [key]: null }, u4: { [key]: 'gold' } })
    })

    it('adds a version on recalculate and keeps the earlier ones readable', async () => {
      await importAndWait(s, p, { path: fixture('more.jsonl', rec('u3', 'buy')) })
      const again = await s.call('POST', `/uba/api/tags/${level.code}/recalculate`, { headers: p })
      expect(again.body).toEqual({ code: level.code, status: 'calculating' })
      const tag = await settledTag(level.code, 2)
      expect(tag.versions.map((v: any) => [v.version, v.userNumber])).toEqual([[1, 3], [2, 4]])
      const key = `tag.${level.code}`
      expect((await tagValues([{ code: level.code }])).u3).toEqual({ [key]: 'silver' })
      expect((await tagValues([{ code: level.code, version: 2 }])).u3).toEqual({ [key]: 'silver' })
      expect((await tagValues([{ code: level.code, version: 1 }])).u3).toEqual({ [key]: null })
      expect(await host.rows(p, `SELECT version, count(*) AS n FROM tag_${level.code} GROUP BY version ORDER BY version`)).toEqual([{ version: 1, n: 3 }, { version: 2, n: 4 }])
    })

    it('serves tag values to user details through tagValuesFor', async () => {
      const ids = (await host.rows(p, "SELECT distinct_id FROM user_ids WHERE xwho IN ('u1', 'u3') ORDER BY xwho")).map((r) => Number(r.distinct_id))
      const values = await tagValuesFor(s.app.ctx, { appKey: p.appKey, timeZone: 'UTC' }, [...ids, 999999], [{ code: level.code, version: 1 }])
      const key = `tag.${level.code}`
      expect(values.get(ids[0])).toEqual({ [key]: 'gold' })
      expect(values.get(ids[1])).toEqual({ [key]: null })
      expect(values.get(999999)).toEqual({ [key]: null })
    })

    it('shows computed tag values in the user detail endpoints', async () => {
      const key = `tag.${level.code}`
      const byPath = await s.call('POST', '/uba/api/cohort/users/u3', { headers: p, body: { properties: ['age'], tags: [{ code: level.code, version: 1 }] } })
      expect(byPath.body).toEqual({ age: 10, [key]: null })
      const personal = await s.call('POST', '/uba/api/users/personal', { headers: p, body: { xwho: 'u3', properties: ['age'], tags: [{ code: level.code }] } })
      expect(personal.body).toEqual({ age: 10, [key]: 'silver' })
    })

    it('refuses unknown tags and versions, naming them', async () => {
      expect((await tagValues([{ code: 't999999' }])).data).toEqual(['tags[0].code'])
      expect((await tagValues([{ code: level.code, version: 9 }])).data).toEqual(['tags[0].version'])
      expect((await tagValues([{ code: level.code }, { code: level.code, version: 1 }])).data).toEqual(['tags[1].code'])
      expect((await tagValues([{ version: 1 }])).data).toEqual(['tags[0].code'])
    })

    it('refuses malformed rules with their path, and a name in use', async () => {
      const create = (body: unknown) => s.call('POST', '/uba/api/tags', { headers: p, body })
      const badRule = single(userRule('user.age', 'CONTAIN', ['x']))
      expect((await create({ name: 'bad', rules: [{ value: 'a', content: oldies }, { value: 'b', content: badRule }] })).body.data).toEqual(['rules[1].content.ruleGroup[0].rules[0].function'])
      expect((await create({ name: 'bad', rules: [{ content: oldies }] })).body.data).toEqual(['rules[0].value'])
      expect((await create({ name: 'bad', rules: [{ value: 'a' }] })).body.data).toEqual(['rules[0].content'])
      expect((await create({ name: 'bad', rules: [] })).body.data).toEqual(['rules'])
      const taken = await create({ name: 'Level', rules: [{ value: 'a', content: oldies }] })
      expect(taken.status).toBe(501)
      expect(taken.body.code).toBe(50101)
      expect((await s.call('POST', '/uba/api/tags/t999999/recalculate', { headers: p })).body.data).toEqual(['code'])
    })

    it('lets only the creator delete a tag, with all its versions', async () => {
      const byApi = await s.call('DELETE', `/uba/api/tags/${level.code}`, { headers: p })
      expect(byApi.status).toBe(400)
      expect(byApi.body.data).toEqual(['loginUser'])
      const byAnn = await s.call('DELETE', `/uba/api/tags/${level.code}?loginUser=ann@example.com`, { headers: p })
      expect(byAnn.body).toEqual({ success: 0 })
      expect(await tagOf(level.code)).toBeUndefined()
      // the engine's own catalog
    const catalog = engine === 'clickhouse' ? 'SELECT name FROM system.tables WHERE database = currentDatabase() AND name = ' : 'SELECT table_name FROM information_schema.tables WHERE table_name = '
    expect(await host.rows(p, `${catalog}'tag_${level.code}'`)).toEqual([])
      expect((await tagValues([{ code: level.code }])).data).toEqual(['tags[0].code'])
    })
  })

  describe('tags from a file', () => {
    const byFile = (name: string, file: { name: string; data: Buffer | string }) => postForm(s, '/uba/api/tags/byfile', p, form({ name }, file))

    it('reads xwho and value from a CSV, the last row of an xwho winning, and counts the unmatched', async () => {
      const res = await byFile('Segment', { name: 'seg.csv', data: 'xwho,value\nu1,A\nu2,B\nghost,C\nu1,D\nu3,\n' })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body).toEqual({ id: expect.any(Number), code: `t${res.body.id}`, name: 'Segment', version: 1, userNumber: 2, matched: 2, unmatched: 1 })
      const key = `tag.${res.body.code}`
      const values = await tagValues([{ code: res.body.code }])
      expect([values.u1, values.u2, values.u3]).toEqual([{ [key]: 'D' }, { [key]: 'B' }, { [key]: null }])
      expect(await tagOf(res.body.code)).toMatchObject({ source: 'file', rules: null, createdUser: 'API', versions: [{ version: 1, userNumber: 2 }] })
      // recalculate matches the kept rows again as version 2
      await importAndWait(s, p, { path: fixture('ghost.jsonl', rec('ghost', '$profile_set', { age: 1 })) })
      await s.call('POST', `/uba/api/tags/${res.body.code}/recalculate`, { headers: p })
      expect((await settledTag(res.body.code, 2)).versions.map((v: any) => v.userNumber)).toEqual([2, 3])
    })

    it('reads an Excel sheet of two columns', async () => {
      const book = XLSX.utils.book_new()
      XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['u4', 1], ['u2', 'x']]), 's')
      const res = await byFile('Excel segment', { name: 'seg.xlsx', data: XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer })
      expect(res.body).toMatchObject({ version: 1, userNumber: 2, matched: 2, unmatched: 0 })
      const values = await tagValues([{ code: res.body.code }])
      expect(values.u4).toEqual({ [`tag.${res.body.code}`]: '1' })
    })

    it('refuses a third column, an empty file and a missing name', async () => {
      expect((await byFile('three', { name: 'x.csv', data: 'u1,a,b\n' })).body.data).toEqual(['file'])
      expect((await byFile('empty', { name: 'x.csv', data: 'xwho,value\n' })).body.data).toEqual(['file'])
      expect((await postForm(s, '/uba/api/tags/byfile', p, form({}, { name: 'x.csv', data: 'u1,a\n' }))).body.data).toEqual(['name'])
    })
  })
})
