import { beforeAll, describe, expect, it } from 'vitest'
import { clickhouseAvailable } from '../helpers/clickhouse'
import { askBoth, useTwins } from '../helpers/twinProjects'
import { USER_LINES, ZONE } from './userpropsFixture'

/**
 * User properties read beside the events on ClickHouse (18.16 takes one JOIN per SELECT: the
 * profile join is nested under the calendar's) give DuckDB's numbers: the same rows in both
 * projects, the same requests, the same hand-computed answers.
 *
 * The users and their events: userpropsFixture.ts (a user without a profile, a NULL value, a
 * property that is only a user property and one that is both, a merged user).
 */

describe.skipIf(!clickhouseAvailable())('user properties beside events on ClickHouse and DuckDB (real clickhouse-server)', () => {
  const twins = useTwins('up', ZONE, USER_LINES)

  beforeAll(async () => {
    // a, b and d have profiles (d's is d0's, merged); c has none; one alias
    expect(twins.copied).toMatchObject({ profile_vd: 3, user_aliases: 1 })
  })

  const base = { crowds: ['$ALL'], fromDate: '2024-01-01', toDate: '2024-01-03', unit: 'DAY' }
  const views = { expression: 'event.view', aggregator: 'TOTAL_COUNT' }
  const viewers = { expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' }
  const events = async (body: Record<string, unknown>) => (await askBoth(twins.server, twins, 'POST', '/uba/api/events/analyze', { ...base, ...body })).map((b) => b.rows)
  const where = (...conditions: Record<string, unknown>[]) => ({ conditions, relation: 'AND' })

  it('breaks down by a user-only property: no profile row and a NULL value are unknown, a merged user counts once under its profile', async () => {
    // gold a: 01-01, 01-02; silver d: 01-01 (as d0), 01-02; unknown b (NULL) 01-02, c (no profile) 01-03
    for (const rows of await events({ measures: [views, viewers], byFields: [{ expression: 'user.tier' }] })) {
      expect(rows).toEqual([
        { byValue: ['gold'], sum: [2, 1], values: [[1, 1, 0], [1, 1, 0]] },
        { byValue: ['silver'], sum: [2, 1], values: [[1, 1, 0], [1, 1, 0]] },
        { byValue: ['unknown'], sum: [2, 2], values: [[0, 1, 1], [0, 1, 1]] },
      ])
    }
  })

  it('reads user.city from the profile and event.view.city from the event, in one breakdown', async () => {
    for (const rows of await events({ measures: [views], byFields: [{ expression: 'user.city' }] })) {
      expect(rows).toEqual([
        { byValue: ['unknown'], sum: [4], values: [[1, 2, 1]] },
        { byValue: ['PA'], sum: [2], values: [[1, 1, 0]] },
      ])
    }
    // a (X, PA) twice; d0 (Y, -) and b (Y, -); d (-, -) and c (-, -)
    for (const rows of await events({ measures: [views], byFields: [{ expression: 'event.view.city' }, { expression: 'user.city' }] })) {
      expect(rows).toEqual([
        { byValue: ['X', 'PA'], sum: [2], values: [[1, 1, 0]] },
        { byValue: ['Y', 'unknown'], sum: [2], values: [[1, 1, 0]] },
        { byValue: ['unknown', 'unknown'], sum: [2], values: [[0, 1, 1]] },
      ])
    }
  })

  it('breaks down by number buckets of a user property (the merged user has the age set after the alias)', async () => {
    // a 30: 2 views; b 40: 1; d 50: 2; c none: 1
    for (const rows of await events({ measures: [views], byFields: [{ expression: 'user.age', buckets: [35, 45] }] })) {
      expect(rows).toEqual([
        { byValue: ['-∞~35'], sum: [2], values: [[1, 1, 0]] },
        { byValue: ['45~+∞'], sum: [2], values: [[1, 1, 0]] },
        { byValue: ['35~45'], sum: [1], values: [[0, 1, 0]] },
        { byValue: ['unknown'], sum: [1], values: [[0, 0, 1]] },
      ])
    }
  })

  it('filters on user properties: NULL takes users without a profile, NOT_EQ and GT need a value, an OR mixes event and user conditions', async () => {
    const cases: [Record<string, unknown>, number[]][] = [
      [where({ expression: 'user.tier', function: 'NULL', params: [] }), [0, 1, 1]], // b, c
      [where({ expression: 'user.tier', function: 'EQ', params: ['gold'] }), [1, 1, 0]], // a
      [where({ expression: 'user.tier', function: 'NOT_EQ', params: ['gold'] }), [1, 1, 0]], // d
      [where({ expression: 'user.age', function: 'GT', params: [35] }), [1, 2, 0]], // b, d
      [where({ expression: 'user.city', function: 'EQ', params: ['PA'] }, { expression: 'event.view.city', function: 'EQ', params: ['X'] }), [1, 1, 0]], // a
      // views in city Y (d0, b) or by a gold user (a)
      [{ relation: 'OR', conditions: [{ expression: 'event.view.city', function: 'EQ', params: ['Y'] }, { expression: 'user.tier', function: 'EQ', params: ['gold'] }] }, [2, 2, 0]],
    ]
    for (const [filter, values] of cases) {
      const sum = values.reduce((a, b) => a + b, 0)
      for (const rows of await events({ measures: [views], filter })) expect(rows, JSON.stringify(filter)).toEqual([{ byValue: [], sum: [sum], values: [values] }])
    }
  })

  it('filters on a datetime user property: an absolute range, and within a day before the event', async () => {
    const by = [{ expression: 'user.tier' }]
    // signed up on 12-30..12-31: a
    for (const rows of await events({ measures: [views], byFields: by, filter: where({ expression: 'user.$signup_time', function: 'ABSOLUTE_TIME', params: ['2023/12/30 00:00', '2023/12/31 23:59'] }) })) {
      expect(rows).toEqual([{ byValue: ['gold'], sum: [2], values: [[1, 1, 0]] }])
    }
    // signed up at most a day before the view: d (01-01 11:00; views 01-01 12:00 and 01-02 10:30), not a (12-31 00:00; views 01-01 10:00, 01-02 10:00)
    for (const rows of await events({ measures: [views], byFields: by, filter: where({ expression: 'user.$signup_time', function: 'RELATIVE_TIME_OF_EVENT', params: [1, 'day', 'within'] }) })) {
      expect(rows).toEqual([{ byValue: ['silver'], sum: [2], values: [[1, 1, 0]] }])
    }
  })

  it('applies a user property in a measure\'s own filter', async () => {
    const measures = [views, { ...viewers, filter: where({ expression: 'user.age', function: 'GTE', params: [40] }) }]
    // b (40) views 01-02; d (50) views 01-01, 01-02: 2 users
    for (const rows of await events({ measures })) expect(rows).toEqual([{ byValue: [], sum: [6, 2], values: [[2, 3, 1], [1, 2, 0]] }])
  })

  it('compares with the previous range beside a user-property breakdown (the calendar with its sides, and the profile)', async () => {
    // 01-02..03 against 12-31..01-01
    for (const rows of await events({ fromDate: '2024-01-02', measures: [views], byFields: [{ expression: 'user.tier' }], compare: 'previous' })) {
      expect(rows).toEqual([
        { byValue: ['unknown'], sum: [2], values: [[1, 1]], previous: { sum: [0], values: [[0, 0]] } },
        { byValue: ['gold'], sum: [1], values: [[1, 0]], previous: { sum: [1], values: [[0, 1]] } },
        { byValue: ['silver'], sum: [1], values: [[1, 0]], previous: { sum: [1], values: [[0, 1]] } },
      ])
    }
  })

  it('breaks down by each element of a user\'s list (users without one are unknown), and filters on a missing list', async () => {
    for (const rows of await events({ measures: [views, viewers], byFields: [{ expression: 'user.tags' }] })) {
      expect(rows).toEqual([
        { byValue: ['unknown'], sum: [4, 3], values: [[1, 2, 1], [1, 2, 1]] },
        { byValue: ['x'], sum: [2, 1], values: [[1, 1, 0], [1, 1, 0]] },
        { byValue: ['y'], sum: [2, 1], values: [[1, 1, 0], [1, 1, 0]] },
      ])
    }
    // b, c and d have no list (ClickHouse stores it as [], which reads as missing)
    for (const rows of await events({ measures: [views], filter: where({ expression: 'user.tags', function: 'NULL', params: [] }) })) expect(rows).toEqual([{ byValue: [], sum: [4], values: [[1, 2, 1]] }])
    for (const rows of await events({ measures: [views], filter: where({ expression: 'user.tags', function: 'NOT_CONTAIN', params: ['z'] }) })) expect(rows).toEqual([{ byValue: [], sum: [2], values: [[1, 1, 0]] }])
  })

  it('counts a virtual event whose member filter reads a user property', async () => {
    const members = [{ expression: 'event.view', filter: where({ expression: 'user.tier', function: 'EQ', params: ['gold'] }) }, { expression: 'event.pay' }]
    for (const p of [twins.duck, twins.house]) expect((await twins.server.call('POST', '/uba/api/meta/event/virtual', { headers: p, body: { id: 'gold_or_pay', events: members } })).status).toBe(200)
    // a's views 01-01, 01-02; b's pay 01-02, d's pay 01-03
    for (const rows of await events({ measures: [{ expression: 'event.gold_or_pay', aggregator: 'TOTAL_COUNT' }] })) expect(rows).toEqual([{ byValue: [], sum: [4], values: [[1, 2, 1]] }])
    // per user: a 2, b 1, d 1
    for (const answer of await distribution({ unit: '', measure: { expression: 'event.gold_or_pay', aggregator: 'TOTAL_COUNT' } })) {
      expect(answer).toEqual({ series: ['[1,2)', '[2,3)'], rows: [{ byValue: 'all', sum: 3, values: [2, 1] }] })
    }
  })

  const distribution = async (body: Record<string, unknown>) =>
    (await askBoth(twins.server, twins, 'POST', '/uba/api/distributions/analyze', { ...base, measure: views, ...body })).map((b) => ({ series: b.series, rows: b.rows }))

  it('distribution: by a user property, and per day with a user-property filter', async () => {
    // views per user: a 2 (gold), d 2 (silver), b 1 and c 1 (unknown)
    for (const answer of await distribution({ unit: '', byField: { expression: 'user.tier' } })) {
      expect(answer).toEqual({
        series: ['[1,2)', '[2,3)'],
        rows: [
          { byValue: 'unknown', sum: 2, values: [2, 0] },
          { byValue: 'gold', sum: 1, values: [0, 1] },
          { byValue: 'silver', sum: 1, values: [0, 1] },
        ],
      })
    }
    // a (gold, PA) views once on 01-01 and once on 01-02
    for (const answer of await distribution({ unit: 'DAY', filter: where({ expression: 'user.city', function: 'EQ', params: ['PA'] }) })) {
      expect(answer).toEqual({
        series: ['[1,2)'],
        rows: [
          { byValue: '2024-01-01', sum: 1, values: [1] },
          { byValue: '2024-01-02', sum: 1, values: [1] },
          { byValue: '2024-01-03', sum: 0, values: [0] },
        ],
      })
    }
  })
})
