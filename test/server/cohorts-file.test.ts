import * as XLSX from 'xlsx'
import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'
import type { TestServer } from '../helpers/server'
import { form, members, postForm, readCohort, settled } from './cohorts-helpers'

describe.each(ENGINES)('cohorts from a file, on %s', (engine) => {
  const host = useEngine(engine)
  let s: TestServer
  let p: Project

  const profile = (xwho: string, xcontext: Record<string, unknown>) => JSON.stringify({ xwho, xwhat: '$profile_set', xwhen: Date.parse('2024-01-01T00:00:00Z'), xcontext })

  /*   u1 phone 100, u2 phone 200, u3 phone 200, u4 phone 007, u5 no phone; age is a number property. */
  beforeAll(async () => {
    s = host.server
    p = await host.project('cf', 'UTC')
    const lines = [
      profile('u1', { phone: '100', age: 1 }),
      profile('u2', { phone: '200' }),
      profile('u3', { phone: '200' }),
      profile('u4', { phone: '007' }),
      profile('u5', { age: 5 }),
    ]
    const job = await importAndWait(s, p, { path: fixture('cf.jsonl', lines.join('\n')) })
    if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
  })

  function workbook(rows: unknown[][]): Buffer {
    const book = XLSX.utils.book_new()
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(rows), 'values')
    return XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer
  }

  const byFile = (fields: Record<string, string>, file?: { name: string; data: Buffer | string }, query = '') => postForm(s, `/uba/api/cohort/byfile${query}`, p, form(fields, file))

  it('selects users by xwho from a CSV, skipping a header row and counting unmatched values', async () => {
    const res = await byFile({ name: 'csv by xwho' }, { name: 'ids.csv', data: 'xwho\nu1\nu3\nghost\n\nu1\n' })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    // distinct values u1, u3, ghost: two match
    expect(res.body).toEqual({ id: expect.any(Number), code: `c${res.body.id}`, name: 'csv by xwho', dynamic: 0, userNumber: 2, matched: 2, unmatched: 1 })
    const cohort = await readCohort(s, p, res.body.id)
    expect(cohort).toMatchObject({ status: 'success', userNumber: 2, dynamic: 0, source: 'file', content: '', createdUser: 'API' })
    expect(await members(s, p, res.body.code)).toEqual(['u1', 'u3'])
  })

  it('selects users by a string property from an Excel sheet, number cells read as their digits', async () => {
    const data = workbook([['Phone'], ['200'], [100], ['999']])
    const res = await byFile({ name: 'excel by phone', property: 'phone' }, { name: 'phones.xlsx', data })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    // 200 -> u2, u3; 100 -> u1; 999 -> nobody
    expect(res.body).toMatchObject({ userNumber: 3, matched: 2, unmatched: 1 })
    expect(await members(s, p, res.body.code)).toEqual(['u1', 'u2', 'u3'])
  })

  it('reads a workbook without a telling file name, and keeps CSV values as written (007 stays 007)', async () => {
    const excel = await byFile({ name: 'no extension', property: 'phone' }, { name: 'upload', data: workbook([['007']]) })
    expect(excel.body).toMatchObject({ userNumber: 1, matched: 1, unmatched: 0 })
    const csv = await byFile({ name: 'leading zeros', property: 'phone' }, { name: 'phones.csv', data: '007\n7\n' })
    expect(csv.body).toMatchObject({ userNumber: 1, matched: 1, unmatched: 1 })
    expect(await members(s, p, csv.body.code)).toEqual(['u4'])
  })

  it('keeps a first row that is not the property name as a value', async () => {
    const res = await byFile({ name: 'no header' }, { name: 'ids.csv', data: 'u2\nu4\n' })
    expect(res.body).toMatchObject({ userNumber: 2, matched: 2, unmatched: 0 })
  })

  it('matches the kept values again on recalculate', async () => {
    const res = await byFile({ name: 'later users' }, { name: 'ids.csv', data: 'u1\nlater\n' })
    expect(res.body).toMatchObject({ userNumber: 1, unmatched: 1 })
    await importAndWait(s, p, { path: fixture('later.jsonl', profile('later', { phone: '300' })) })
    await s.call('POST', `/uba/api/cohort/${res.body.id}/recalculate`, { headers: p })
    expect((await settled(s, p, res.body.id)).userNumber).toBe(2)
    expect(await members(s, p, res.body.code)).toEqual(['u1', 'later'])
  })

  it('refuses a file over 10 MB, naming file', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 'a')
    const res = await byFile({ name: 'too big' }, { name: 'big.csv', data: big })
    expect(res.status).toBe(400)
    expect(res.body.data).toEqual(['file'])
    expect(res.body.msg).toContain('10 MB')
    expect((await s.call('GET', '/uba/api/cohort', { headers: p })).body.some((c: any) => c.name === 'too big')).toBe(false)
  })

  it('refuses bad files and fields, naming them', async () => {
    const refused = async (fields: Record<string, string>, file?: { name: string; data: Buffer | string }) => {
      const res = await byFile(fields, file)
      expect(res.status, JSON.stringify(res.body)).toBe(400)
      return res.body.data
    }
    const ids = { name: 'ids.csv', data: 'u1\n' }
    expect(await refused({ name: 'two columns' }, { name: 'two.csv', data: 'u1,x\n' })).toEqual(['file'])
    expect(await refused({ name: 'two columns xlsx' }, { name: 'two.xlsx', data: workbook([['u1', 'x']]) })).toEqual(['file'])
    expect(await refused({ name: 'empty' }, { name: 'empty.csv', data: '\n\n' })).toEqual(['file'])
    expect(await refused({ name: 'header only' }, { name: 'h.csv', data: 'xwho\n' })).toEqual(['file'])
    expect(await refused({ name: 'not a workbook' }, { name: 'broken.xlsx', data: Buffer.from('PK\u0003\u0004 broken') })).toEqual(['file'])
    expect(await refused({ name: 'no file' })).toEqual(['file'])
    expect(await refused({ name: 'number property', property: 'age' }, ids)).toEqual(['property'])
    expect(await refused({ name: 'unknown property', property: 'nope' }, ids)).toEqual(['property'])
    expect(await refused({}, ids)).toEqual(['name'])
    const json = await s.call('POST', '/uba/api/cohort/byfile', { headers: p, body: { name: 'json' } })
    expect(json.status).toBe(400)
    expect(json.body.data).toEqual(['file'])
  })

  it('refuses a name in use with 501/50101', async () => {
    const res = await byFile({ name: 'csv by xwho' }, { name: 'ids.csv', data: 'u1\n' })
    expect(res.status).toBe(501)
    expect(res.body.code).toBe(50101)
  })
})
