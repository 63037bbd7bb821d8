import { describe, expect, it } from 'vitest'
import { clickhouseAvailable } from '../helpers/clickhouse'
import { askBoth, type Twin, useTwins } from '../helpers/twinProjects'
import { createCohort, members, single, userRule } from '../server/cohorts-helpers'
import { cohortData, ZONE } from './peopleData'

/**
 * People on a ClickHouse project give what they give on DuckDB: a user's detail, the behaviour
 * sequence and its exports, a cohort's users exported, and the users behind a cell of the event
 * and distribution analyses (paged, exported, saved as a cohort). The users are peopleData.ts's.
 */

describe.skipIf(!clickhouseAvailable())('people on ClickHouse and DuckDB (real clickhouse-server)', () => {
  const twins = useTwins('pe', ZONE, cohortData)

  const projects = (): [string, Twin][] => [['DuckDB', twins.duck], ['ClickHouse', twins.house]]
  /** The body of a POST as text, byte-order mark kept. */
  const text = async (p: Twin, path: string, body: unknown) => {
    const res = await fetch(twins.server.url + path, { method: 'POST', headers: { ...p, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    expect(res.status, path).toBe(200)
    return new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer())
  }
  const textOnBoth = async (path: string, body: unknown) => {
    const out = []
    for (const [, p] of projects()) out.push(await text(p, path, body))
    return out
  }

  it('shows a user\'s detail: a profile, no profile, and a merged user found by its anonymous id', async () => {
    const properties = ['xwho', 'city', 'age', 'vip', '$signup_time']
    const [a, a2] = await askBoth(twins.server, twins, 'POST', '/uba/api/users/personal', { xwho: 'a', properties })
    expect(a).toEqual({ xwho: 'a', city: 'X', age: 30, vip: true, $signup_time: '2023-12-31 09:30:05' })
    expect(a2).toEqual(a)
    for (const answer of await askBoth(twins.server, twins, 'POST', '/uba/api/cohort/users/c', { properties })) expect(answer).toEqual({ xwho: 'c', city: null, age: null, vip: null, $signup_time: null })
    for (const answer of await askBoth(twins.server, twins, 'POST', '/uba/api/users/personal', { xwho: 'anon-d', properties: ['xwho', 'city'] })) expect(answer).toEqual({ xwho: 'dan', city: null })
    for (const [engine, p] of projects()) {
      const res = await twins.server.call('POST', '/uba/api/users/personal', { headers: p, body: { xwho: 'nobody' } })
      expect([res.status, res.body.data], engine).toEqual([400, ['xwho']])
    }
  })

  it('gives the behaviour sequence on local days, newest first, and of both ids of a merged user', async () => {
    const body = { fromDate: '2024-01-01', toDate: '2024-01-02' }
    for (const answer of await askBoth(twins.server, twins, 'POST', '/uba/api/cohort/users/a/sequence', body)) {
      expect(answer.rows).toEqual([
        { eventId: 'view', eventTime: '2024/01/02 00:30:00', properties: { price: 20 } },
        { eventId: 'view', eventTime: '2024/01/01 23:30:00', properties: { price: 10 } },
      ])
    }
    // a boolean and a datetime event property read as on DuckDB (ClickHouse stores 1 and epoch ms)
    for (const answer of await askBoth(twins.server, twins, 'POST', '/uba/api/cohort/users/a/sequence', { fromDate: '2024-01-03', toDate: '2024-01-03' })) {
      expect(answer.rows).toEqual([{ eventId: 'pay', eventTime: '2024/01/03 12:00:00', properties: { amount: 50, first: true, paid_at: '2024-01-03 12:00:05' } }])
    }
    for (const answer of await askBoth(twins.server, twins, 'POST', '/uba/api/users/sequence', { ...body, xwho: 'dan', events: ['view', 'pay'] })) {
      expect(answer.rows).toEqual([
        { eventId: 'pay', eventTime: '2024/01/02 12:00:00', properties: { amount: 7 } },
        { eventId: 'view', eventTime: '2024/01/01 10:00:00', properties: { price: 5 } },
      ])
    }
  })

  it('exports the sequence as CSV with a byte-order mark (Excel) and as JSON lines', async () => {
    const body = { fromDate: '2024-01-01', toDate: '2024-01-03', format: 'csv' }
    const [onDuck, onHouse] = await textOnBoth('/uba/api/cohort/users/a/sequence/export?csvUtfEncoding=0', body)
    expect(onHouse).toBe(onDuck)
    expect(onDuck.startsWith('\uFEFFxwhat,xwhen,')).toBe(true)
    expect(onDuck.split('\r\n').filter(Boolean).map((l) => l.split(',').slice(0, 2).join(','))).toEqual([
      '\uFEFFxwhat,xwhen', 'pay,2024-01-03 12:00:00', 'view,2024-01-02 00:30:00', 'view,2024-01-01 23:30:00',
    ])
    const [jsonDuck, jsonHouse] = await textOnBoth('/uba/api/users/sequence/export', { ...body, format: 'json', xwho: 'c' })
    expect(jsonHouse).toBe(jsonDuck)
    expect(jsonDuck.trim().split('\n').map((l) => JSON.parse(l))).toEqual([expect.objectContaining({ xwhat: 'view', price: 800 })])
  })

  it('exports a cohort\'s users as CSV (Excel) and JSON lines, with their properties', async () => {
    const files: string[][] = []
    for (const [, p] of projects()) {
      const cohort = await createCohort(twins.server, p, { content: single(userRule('user.xwho', 'NOT_NULL')) })
      const body = { cohortCode: cohort.code, properties: ['xwho', 'city', 'age', 'vip', '$signup_time'], format: 'csv' }
      files.push([await text(p, '/uba/api/cohort/users/export?csvUtfEncoding=0', body), await text(p, '/uba/api/cohort/users/export', { ...body, format: 'json' })])
    }
    expect(files[1]).toEqual(files[0])
    const [csv, json] = files[0]
    // in distinct_id order (the ids the import gave)
    expect(csv).toBe('\uFEFFxwho,city,age,vip,$signup_time,distinct_id\r\n' + ['a,X,30,true,2023-12-31 09:30:05,1', 'dan,,,,,2', 'b,Y,20,false,,3', 'c,,,,,4', 'e,X,,,,6'].join('\r\n') + '\r\n')
    expect(json.trim().split('\n').map((l) => JSON.parse(l).xwho)).toEqual(['a', 'dan', 'b', 'c', 'e'])
  })

  const eventBody = { crowds: ['$ALL'], fromDate: '2024-01-01', toDate: '2024-01-03', unit: 'DAY', measures: [{ expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' }] }

  it('finds the users behind an event-analysis cell, paged, and of the whole range', async () => {
    // views by local day: 01-01 anon-d (dan) and a; 01-02 a and b; 01-03 c
    for (const answer of await askBoth(twins.server, twins, 'POST', '/uba/api/events/users', { ...eventBody, cell: { measure: 0, period: '2024-01-02' }, properties: ['xwho'] })) {
      expect(answer).toMatchObject({ count: 2, page: 1, size: 2 })
      expect(answer.users.map((u: any) => u.xwho).sort()).toEqual(['a', 'b'])
    }
    for (const answer of await askBoth(twins.server, twins, 'POST', '/uba/api/events/users', { ...eventBody, cell: { measure: 0 }, properties: ['xwho'], page: 2, pageSize: 3 })) {
      expect(answer).toMatchObject({ count: 4, page: 2, pageSize: 3, size: 1 })
    }
  })

  it('finds the users behind a distribution cell and exports them', async () => {
    const body = { crowds: ['$ALL'], fromDate: '2024-01-01', toDate: '2024-01-03', unit: '', measure: { expression: 'event.view', aggregator: 'TOTAL_COUNT' } }
    // a 2 views; b, c, dan 1
    for (const answer of await askBoth(twins.server, twins, 'POST', '/uba/api/distributions/users', { ...body, cell: { byValue: 'all', bucket: '[1,2)' }, properties: ['xwho'] })) {
      expect(answer.users.map((u: any) => u.xwho).sort()).toEqual(['b', 'c', 'dan'])
    }
    const [onDuck, onHouse] = await textOnBoth('/uba/api/distributions/users/export', { ...body, cell: { byValue: 'all', bucket: '[2,3)' }, properties: ['xwho', 'city'], format: 'csv' })
    expect(onHouse).toBe(onDuck)
    expect(onDuck).toBe('xwho,city,distinct_id\r\na,X,1\r\n')
  })

  it('finds the users behind a user-attribute row (by a user property), and exports them', async () => {
    const body = { crowds: ['$ALL'], measure: { aggregator: 'USER_COUNT' }, byFields: [{ expression: 'user.city' }] }
    // profiles: a and e in X, b in Y
    for (const answer of await askBoth(twins.server, twins, 'POST', '/uba/api/userAttributes/users', { ...body, cell: { byValue: ['X'] }, properties: ['xwho'] })) {
      expect(answer).toMatchObject({ count: 2, size: 2 })
      expect(answer.users.map((u: any) => u.xwho).sort()).toEqual(['a', 'e'])
    }
    const [onDuck, onHouse] = await textOnBoth('/uba/api/userAttributes/users/export', { ...body, cell: { byValue: ['Y'] }, properties: ['xwho', 'age'], format: 'csv' })
    expect(onHouse).toBe(onDuck)
    expect(onDuck).toBe('xwho,age,distinct_id\r\nb,20,3\r\n')
  })

  it('saves the users of a cell as a static cohort', async () => {
    for (const [engine, p] of projects()) {
      const res = await twins.server.call('POST', '/uba/api/events/users/cohort', { headers: p, body: { ...eventBody, cell: { measure: 0, period: '2024-01-01' }, name: 'first day viewers' } })
      expect(res.status, `${engine}: ${JSON.stringify(res.body)}`).toBe(200)
      expect(res.body, engine).toMatchObject({ userNumber: 2 })
      expect((await members(twins.server, p, res.body.code)).sort(), engine).toEqual(['a', 'dan'])
    }
  })
})
