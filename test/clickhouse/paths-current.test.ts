import { describe, expect, it } from 'vitest'
import { setSetting } from '../../src-main/domain/platform/settings'
import { CHDB, useCurrentVersion, warnWithoutChdb } from '../helpers/chdb'
import { clickhouseAvailable } from '../helpers/clickhouse'
import { askBoth, useTwins } from '../helpers/twinProjects'
import { FUNNEL_LINES, RETENTION_LINES, ZONE } from './pathsFixture'
import { USER_LINES } from './userpropsFixture'

/**
 * The funnel and retention statements on a CURRENT ClickHouse: each request's statements
 * (explain=true) are taken from the 18.16 project, run again on 18.16 and on chDB (26.x) over a
 * copy of the same tables, and the answers compared (18.16's are the hand-computed numbers of
 * analysis-funnel, analysis-retention and analysis-userprops-paths, through the API). Opt-in like
 * analysis-current.test.ts: UBA_CHDB names a folder with chdb installed; needs 18.16 too.
 * The data: the funnel's, retention's and user-property tests' events in one project (both zones
 * are Shanghai's).
 * The users behind a cell (POST /uba/api/<analysis>/users) and people's detail and sequences have
 * no explain=true: their statements are captured on their way to 18.16 (chdb.ts
 * expectSameStatements), replayed on both versions and compared statement by statement; their users
 * and answers are also those of the DuckDB twin. Cohort computation writes the cohort's table, which
 * a replay on 18.16 would clash with: its reads are replayed in cohorts-current.test.ts.
 */
warnWithoutChdb('ClickHouse current-version funnel and retention statements')

const range = { crowds: ['$ALL'], fromDate: '2024-01-01', toDate: '2024-01-03' }
const funnel = { ...range, steps: [{ expression: 'event.view' }, { expression: 'event.cart' }, { expression: 'event.pay' }], convertTime: 1, convertTimeUnit: 'DAY' }
const retention = { ...range, unit: 'DAY', duration: 2, firstEvent: { expression: 'event.login' }, secondEvent: { expression: 'event.buy' } }
/** The user-property tests' paths: view -> pay. */
const viewPay = { ...range, steps: [{ expression: 'event.view' }, { expression: 'event.pay' }], convertTime: 1, convertTimeUnit: 'DAY' }
const viewThenPay = { ...retention, firstEvent: { expression: 'event.view' }, secondEvent: { expression: 'event.pay' } }
const gold = { conditions: [{ expression: 'user.tier', function: 'EQ', params: ['gold'] }], relation: 'AND' }
const web = { conditions: [{ expression: 'event.login.ch', function: 'EQ', params: ['web'] }], relation: 'AND' }

const REQUESTS: [string, string, Record<string, unknown>][] = [
  ['funnels', 'every user, per entry day', funnel],
  ['funnels', 'strict order', { ...funnel, order: 'STRICT' }],
  ['funnels', 'any order', { ...funnel, order: 'ANY' }],
  ['funnels', 'an exclusion between steps 1 and 2', { ...funnel, exclusions: [{ expression: 'event.leave', fromStep: 0, toStep: 1 }] }],
  ['funnels', 'by an event property', { ...funnel, byField: { expression: 'event.view.src' } }],
  ['funnels', 'by a list property', { ...funnel, byField: { expression: 'event.view.tags' } }],
  ['funnels', 'a property held constant over the steps', { ...funnel, byField: { expression: 'event.view.plan' }, byStepIndex: -1 }],
  ['funnels', 'compared with the previous range', { ...funnel, compare: 'previous' }],
  ['funnels', 'time to convert', { ...funnel, timeToConvert: true }],
  ['funnels', 'any event as a step', { ...funnel, steps: [{ expression: 'event.view' }, { expression: 'event.$Anything' }] }],
  ['funnels', 'by a user property', { ...viewPay, byField: { expression: 'user.tier' } }],
  ['funnels', 'filtered by a user property', { ...viewPay, filter: gold }],
  ['retentions', 'on the day', retention],
  ['retentions', 'on or after the day', { ...retention, retentionMode: 'onOrAfter' }],
  ['retentions', 'first time only', { ...retention, firstTime: true }],
  ['retentions', 'by the initial event\'s property', { ...retention, byField: { expression: 'event.login.ch' }, byFieldIndex: 1 }],
  ['retentions', 'by the initial event\'s property, on or after', { ...retention, byField: { expression: 'event.login.ch' }, byFieldIndex: 1, retentionMode: 'onOrAfter' }],
  ['retentions', 'by the return event\'s property', { ...retention, byField: { expression: 'event.buy.ch' }, byFieldIndex: 2 }],
  ['retentions', 'by week', { ...retention, unit: 'WEEK', fromDate: '2024-01-01', toDate: '2024-01-07', duration: 1 }],
  ['retentions', 'a filtered initial event', { ...retention, firstEvent: { expression: 'event.login', filter: web } }],
  ['retentions', 'measures: summed', { ...retention, measures: [{ expression: 'event.buy.amount', aggregator: 'SUM' }] }],
  ['retentions', 'measures: per returning user', { ...retention, measures: [{ expression: 'event.buy.amount', aggregator: 'AVG_PER' }] }],
  ['retentions', 'measures: averaged', { ...retention, measures: [{ expression: 'event.buy.amount', aggregator: 'AVG' }] }],
  ['retentions', 'measures: the largest', { ...retention, measures: [{ expression: 'event.buy.amount', aggregator: 'MAX' }] }],
  ['retentions', 'measures: the smallest', { ...retention, measures: [{ expression: 'event.buy.amount', aggregator: 'MIN' }] }],
  ['retentions', 'measures: distinct numbers', { ...retention, measures: [{ expression: 'event.buy.amount', aggregator: 'REMOVE_DUMPLICATE' }] }],
  ['retentions', 'measures: distinct texts', { ...retention, measures: [{ expression: 'event.buy.ch', aggregator: 'REMOVE_DUMPLICATE' }] }],
  ['retentions', 'measures: distinct, of a filtered initial event', { ...retention, firstEvent: { expression: 'event.login', filter: web }, measures: [{ expression: 'event.buy.ch', aggregator: 'REMOVE_DUMPLICATE' }] }],
  ['retentions', 'measures: distinct, first time only', { ...retention, firstTime: true, measures: [{ expression: 'event.buy.amount', aggregator: 'REMOVE_DUMPLICATE' }] }],
  ['retentions', 'by a user property', { ...viewThenPay, byField: { expression: 'user.tier' } }],
  ['retentions', 'by a user property, first time only', { ...viewThenPay, firstTime: true, byField: { expression: 'user.tier' } }],
  ['retentions', 'filtered by a user property', { ...viewThenPay, filter: gold }],
]

const views = { expression: 'event.view', aggregator: 'TOTAL_COUNT' }
/** The users behind a cell (POST /uba/api/<analysis>/users, no explain=true): their statements are captured on the way out. */
const CELLS: [string, string, Record<string, unknown>][] = [
  ['funnels', 'entered', { ...funnel, cell: { step: 0 } }],
  ['funnels', 'converted at step 2', { ...funnel, cell: { step: 1, outcome: 'converted' } }],
  ['funnels', 'dropped off after step 2', { ...funnel, cell: { step: 1, outcome: 'dropped' } }],
  ['funnels', 'converted, one entry day', { ...funnel, cell: { step: 1, day: '2024-01-01' } }],
  ['funnels', 'dropped off, one breakdown value', { ...funnel, byField: { expression: 'event.view.src' }, cell: { step: 1, outcome: 'dropped', byValue: 'ad' } }],
  ['funnels', 'converted, a list property\'s value', { ...funnel, byField: { expression: 'event.view.tags' }, cell: { step: 2, byValue: 'p' } }],
  ['funnels', 'any order, converted', { ...funnel, order: 'ANY', cell: { step: 1 } }],
  ['funnels', 'dropped off, by a user property', { ...viewPay, byField: { expression: 'user.tier' }, cell: { step: 0, outcome: 'dropped', byValue: 'silver' } }],
  ['retentions', 'a cohort', { ...retention, cell: { day: '2024-01-01' } }],
  ['retentions', 'returned at +1', { ...retention, cell: { day: '2024-01-01', offset: 1 } }],
  ['retentions', 'not returned at +0', { ...retention, cell: { day: '2024-01-01', offset: 0, outcome: 'notReturned' } }],
  ['retentions', 'returned at +0 over the range, on or after', { ...retention, retentionMode: 'onOrAfter', cell: { offset: 0 } }],
  ['retentions', 'a breakdown row returned at +0', { ...retention, byField: { expression: 'event.login.ch' }, byFieldIndex: 1, cell: { byValue: 'web', offset: 0 } }],
  ['retentions', 'first time only, returned at +0', { ...retention, firstTime: true, cell: { offset: 0 } }],
  ['retentions', 'by a user property', { ...viewThenPay, byField: { expression: 'user.tier' }, cell: { byValue: 'gold' } }],
  ['events', 'one period', { ...range, unit: 'DAY', measures: [views], cell: { period: '2024-01-02' } }],
  ['events', 'by an event and a user property', { ...range, unit: 'DAY', measures: [views, { expression: 'event.pay', aggregator: 'TRIGGER_USER_COUNT' }], byFields: [{ expression: 'event.view.city' }, { expression: 'user.tier' }], cell: { byValue: ['X', 'gold'] } }],
  ['events', 'the second measure, filtered by a user property', { ...range, unit: 'DAY', measures: [views, { expression: 'event.pay', aggregator: 'TRIGGER_USER_COUNT' }], filter: { conditions: [{ expression: 'user.age', function: 'GT', params: [35] }], relation: 'AND' }, cell: { measure: 1 } }],
  ['userAttributes', 'a breakdown row', { crowds: ['$ALL'], measure: { aggregator: 'USER_COUNT' }, byFields: [{ expression: 'user.tier' }], cell: { byValue: ['gold'] } }],
  ['userAttributes', 'a list property\'s row', { crowds: ['$ALL'], measure: { aggregator: 'AVG', expression: 'user.age' }, byFields: [{ expression: 'user.tags' }], cell: { byValue: ['x'] } }],
  ['userAttributes', 'everybody', { crowds: ['$ALL'], measure: { aggregator: 'USER_COUNT' }, cell: {} }],
]
/** Distribution cells name an interval of the answer: taken from the answer (analyze) first. */
const DISTRIBUTIONS: [string, Record<string, unknown>][] = [
  ['views per user over the range', { ...range, measure: views }],
  ['views per user, per day', { ...range, unit: 'DAY', measure: views }],
  ['views per user, by a user property', { ...range, measure: views, byField: { expression: 'user.tier' } }],
]
/** People: a user's detail and behaviour sequence (ids of both projects are the same). */
const PEOPLE: [string, string, Record<string, unknown>][] = [
  ['a user\'s detail', '/uba/api/users/personal', { xwho: 'a', properties: ['xwho', 'tier', 'city', 'age', 'tags', '$signup_time'] }],
  ['a merged user\'s detail, by the anonymous id', '/uba/api/users/personal', { xwho: 'd0', properties: ['xwho', 'tier', 'age'] }],
  ['a sequence', '/uba/api/users/sequence', { xwho: 'u1', fromDate: '2024-01-01', toDate: '2024-01-02' }],
  ['a merged user\'s sequence of some events', '/uba/api/users/sequence', { xwho: 'd', fromDate: '2024-01-01', toDate: '2024-01-03', events: ['view', 'pay'] }],
  ['a sequence over a day\'s edge (UTC still the day before)', '/uba/api/cohort/users/r1/sequence', { fromDate: '2024-01-02', toDate: '2024-01-02' }],
]

describe.skipIf(!CHDB || !clickhouseAvailable())('funnel and retention statements on current ClickHouse (chDB) and 18.16: the same answers', () => {
  const twins = useTwins('paths', ZONE, [...FUNNEL_LINES, ...RETENTION_LINES, ...USER_LINES])
  const current = useCurrentVersion(twins)

  for (const [analysis, name, body] of REQUESTS) it(`${analysis}: ${name}`, () => current.expectSame(analysis, body))

  for (const [analysis, name, body] of CELLS) {
    it(`${analysis} users: ${name}`, async () => {
      await expectSameUsers(analysis, body)
    })
  }

  for (const [name, body] of DISTRIBUTIONS) {
    it(`distributions users: ${name}, each row's first counted interval`, async () => {
      const res = await twins.server.call('POST', '/uba/api/distributions/analyze', { headers: twins.house, body })
      expect(res.status).toBe(200)
      expect(res.body.rows.length).toBeGreaterThan(0)
      for (const row of res.body.rows as { byValue: string; values: number[] }[]) {
        await expectSameUsers('distributions', { ...body, cell: { byValue: row.byValue, bucket: res.body.series[row.values.findIndex((n) => n > 0)] } })
      }
    })
  }

  for (const [name, path, body] of PEOPLE) {
    it(`people: ${name}`, async () => {
      const { body: house } = await current.expectSameStatements('POST', path, body)
      const [duck] = await askBoth(twins.server, twins, 'POST', path, body)
      // the time of the answer is the only thing allowed to differ
      const answer = ({ reportUpdateTime: _, ...rest }: Record<string, unknown>) => rest
      expect(answer(house)).toEqual(answer(duck))
      expect(JSON.stringify(house)).toMatch(/"rows":\[\{|"xwho":"[a-z]/)
    })
  }

  /** The cell's statements alike on both versions, and its users those of the same cell on the DuckDB twin (and not none). */
  async function expectSameUsers(analysis: string, body: Record<string, unknown>): Promise<void> {
    const names = (answer: { users: { xwho: string }[] }) => answer.users.map((u) => u.xwho).sort()
    const { body: house } = await current.expectSameStatements('POST', `/uba/api/${analysis}/users`, { ...body, pageSize: 100 })
    const duck = await twins.server.call('POST', `/uba/api/${analysis}/users`, { headers: twins.duck, body: { ...body, pageSize: 100 } })
    expect(duck.status).toBe(200)
    expect(names(house)).toEqual(names(duck.body))
    expect(house.count).toBeGreaterThan(0)
  }

  it('funnels: the events read in parts (a small eventsPerPart)', async () => {
    setSetting(twins.server.app.ctx.meta, 'analysis.funnel.eventsPerPart', '4')
    try {
      await current.expectSame('funnels', { ...funnel, byField: { expression: 'event.view.src' } })
    } finally {
      setSetting(twins.server.app.ctx.meta, 'analysis.funnel.eventsPerPart', '2000000')
    }
  })
})
