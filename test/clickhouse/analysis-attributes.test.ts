import { beforeAll, describe, expect, it } from 'vitest'
import { clickhouseAvailable } from '../helpers/clickhouse'
import { askBoth, twinProjects, type Twins, useTwins } from '../helpers/twinProjects'

/**
 * The user attribute analysis (users of profile_vd counted by their properties) on ClickHouse
 * gives DuckDB's numbers: the same rows in both projects, the same hand-computed answers.
 *
 * Profiles (the users with a profile row; c only has events and is never counted):
 *   a  tier gold,   age 30, tags [x, y], vip true, e E1 (a property called like the row alias)
 *   b  age 40 (tier, tags, vip missing)
 *   d  tier silver, tags [x] as d0 (anonymous), merged into d by `$alias`, then age 50
 *   f  tier gold,   age 20, tags [y, y], vip false
 */

const ZONE = 'Europe/Berlin'
const at = (local: string) => Date.parse(`${local.replace(' ', 'T')}:00+01:00`)
const rec = (xwho: string, xwhat: string, local: string, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen: at(local), xcontext })

const LINES = [
  rec('a', '$profile_set', '2024-01-01 08:00', { tier: 'gold', age: 30, tags: ['x', 'y'], vip: true, e: 'E1' }),
  rec('b', '$profile_set', '2024-01-01 08:00', { age: 40 }),
  rec('d0', '$profile_set', '2024-01-01 08:00', { tier: 'silver', tags: ['x'] }),
  rec('d', '$alias', '2024-01-02 09:00', { $original_id: 'd0' }),
  rec('d', '$profile_set', '2024-01-02 09:30', { age: 50 }),
  rec('f', '$profile_set', '2024-01-02 10:00', { tier: 'gold', age: 20, tags: ['y', 'y'], vip: false }),
  rec('c', 'view', '2024-01-02 11:00'),
]

describe.skipIf(!clickhouseAvailable())('user attribute analysis on ClickHouse and DuckDB (real clickhouse-server)', () => {
  const twins = useTwins('ua', ZONE, LINES)
  let empty: Twins

  beforeAll(async () => {
    expect(twins.copied).toMatchObject({ profile_vd: 4, user_aliases: 1 })
    empty = await twinProjects(twins.server, twins.clickhouse, 'none', ZONE, [])
  }, 120_000)

  const users = { aggregator: 'USER_COUNT' }
  const ask = async (body: Record<string, unknown>, on: Twins = twins) => (await askBoth(twins.server, on, 'POST', '/uba/api/userAttributes/analyze', { crowds: ['$ALL'], ...body })).map((b) => b.rows)
  const where = (...conditions: Record<string, unknown>[]) => ({ conditions, relation: 'AND' })

  it('counts the users with a profile (a merged user once), and breaks them down by text (a missing value is unknown)', async () => {
    for (const rows of await ask({ measure: users })) expect(rows).toEqual([{ value: 4, byValue: [] }])
    for (const rows of await ask({ measure: users, byFields: [{ expression: 'user.tier' }] })) {
      expect(rows).toEqual([
        { value: 2, byValue: ['gold'] },
        { value: 1, byValue: ['silver'] },
        { value: 1, byValue: ['unknown'] },
      ])
    }
  })

  it('breaks down by number buckets, by a boolean, and by each element of a list (a user once per element)', async () => {
    // a 30, f 20 | b 40 | d 50
    for (const rows of await ask({ measure: users, byFields: [{ expression: 'user.age', buckets: [35, 45] }] })) {
      expect(rows).toEqual([
        { value: 2, byValue: ['-∞~35'] },
        { value: 1, byValue: ['35~45'] },
        { value: 1, byValue: ['45~+∞'] },
      ])
    }
    for (const rows of await ask({ measure: users, byFields: [{ expression: 'user.vip' }] })) {
      expect(rows).toEqual([
        { value: 2, byValue: ['unknown'] },
        { value: 1, byValue: ['false'] },
        { value: 1, byValue: ['true'] },
      ])
    }
    // x: a, d; y: a, f (f's two y once); b has no list
    for (const rows of await ask({ measure: users, byFields: [{ expression: 'user.tier' }, { expression: 'user.tags' }] })) {
      expect(rows).toEqual([
        { value: 2, byValue: ['gold', 'y'] },
        { value: 1, byValue: ['gold', 'x'] },
        { value: 1, byValue: ['silver', 'x'] },
        { value: 1, byValue: ['unknown', 'unknown'] },
      ])
    }
  })

  it('aggregates a number property over filtered users, and counts distinct values', async () => {
    const over = (aggregator: string) => ({ aggregator, expression: 'user.age' })
    // age >= 30: a 30, b 40, d 50
    const filter = where({ expression: 'user.age', function: 'GTE', params: [30] })
    const expected: Record<string, number> = { USER_COUNT: 3, SUM: 120, AVG: 40, MAX: 50, MIN: 30, AVG_PER: 40 }
    for (const [aggregator, value] of Object.entries(expected)) {
      const measure = aggregator === 'USER_COUNT' ? users : over(aggregator)
      for (const rows of await ask({ measure, filter })) expect(rows, aggregator).toEqual([{ value, byValue: [] }])
    }
    for (const rows of await ask({ measure: { aggregator: 'REMOVE_DUMPLICATE', expression: 'user.tier' } })) expect(rows).toEqual([{ value: 2, byValue: [] }])
    // gold a 30 + f 20, silver d 50, unknown b 40
    for (const rows of await ask({ measure: over('SUM'), byFields: [{ expression: 'user.tier' }] })) {
      expect(rows).toEqual([
        { value: 50, byValue: ['gold'] },
        { value: 50, byValue: ['silver'] },
        { value: 40, byValue: ['unknown'] },
      ])
    }
  })

  it('filters by a missing value, by a list element and with OR', async () => {
    const cases: [Record<string, unknown>, number][] = [
      [where({ expression: 'user.tier', function: 'NULL', params: [] }), 1], // b
      [where({ expression: 'user.tags', function: 'CONTAIN', params: ['x'] }), 2], // a, d
      [where({ expression: 'user.tags', function: 'NOT_CONTAIN', params: ['x'] }), 1], // f (b has no list)
      [where({ expression: 'user.tags', function: 'NULL', params: [] }), 1], // b
      [where({ expression: 'user.tags', function: 'NOT_NULL', params: [] }), 3], // a, d, f
      [where({ expression: 'user.tier', function: 'NOT_EQ', params: ['gold'] }), 1], // d
      [{ relation: 'OR', conditions: [{ expression: 'user.vip', function: 'TRUE', params: [] }, { expression: 'user.age', function: 'GT', params: [45] }] }, 2], // a, d
    ]
    for (const [filter, value] of cases) for (const rows of await ask({ measure: users, filter })) expect(rows, JSON.stringify(filter)).toEqual([{ value, byValue: [] }])
  })

  it('reads the user id beside a user property called "e" (the profile then joins itself)', async () => {
    for (const rows of await ask({ measure: users, byFields: [{ expression: 'user.e' }, { expression: 'user.xwho' }] })) {
      expect(rows).toEqual([
        { value: 1, byValue: ['E1', 'a'] },
        { value: 1, byValue: ['unknown', 'b'] },
        { value: 1, byValue: ['unknown', 'd'] },
        { value: 1, byValue: ['unknown', 'f'] },
      ])
    }
  })

  it('answers an empty project: no users, a sum of 0, an average of null, no rows per value', async () => {
    // a new project has the preset user properties only ($city, distinct_id...), and no profile row
    for (const rows of await ask({ measure: users }, empty)) expect(rows).toEqual([{ value: 0, byValue: [] }])
    for (const rows of await ask({ measure: { aggregator: 'REMOVE_DUMPLICATE', expression: 'user.$city' } }, empty)) expect(rows).toEqual([{ value: 0, byValue: [] }])
    for (const rows of await ask({ measure: { aggregator: 'SUM', expression: 'user.distinct_id' } }, empty)) expect(rows).toEqual([{ value: 0, byValue: [] }])
    for (const rows of await ask({ measure: { aggregator: 'AVG', expression: 'user.distinct_id' } }, empty)) expect(rows).toEqual([{ value: null, byValue: [] }])
    for (const rows of await ask({ measure: users, byFields: [{ expression: 'user.$city' }] }, empty)) expect(rows).toEqual([])
  })
})
