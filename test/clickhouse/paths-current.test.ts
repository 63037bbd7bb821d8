import { describe, it } from 'vitest'
import { setSetting } from '../../src-main/domain/platform/settings'
import { CHDB, useCurrentVersion, warnWithoutChdb } from '../helpers/chdb'
import { clickhouseAvailable } from '../helpers/clickhouse'
import { useTwins } from '../helpers/twinProjects'
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
  ['retentions', 'by a user property', { ...viewThenPay, byField: { expression: 'user.tier' } }],
  ['retentions', 'by a user property, first time only', { ...viewThenPay, firstTime: true, byField: { expression: 'user.tier' } }],
  ['retentions', 'filtered by a user property', { ...viewThenPay, filter: gold }],
]

describe.skipIf(!CHDB || !clickhouseAvailable())('funnel and retention statements on current ClickHouse (chDB) and 18.16: the same answers', () => {
  const twins = useTwins('paths', ZONE, [...FUNNEL_LINES, ...RETENTION_LINES, ...USER_LINES])
  const current = useCurrentVersion(twins)

  for (const [analysis, name, body] of REQUESTS) it(`${analysis}: ${name}`, () => current.expectSame(analysis, body))

  it('funnels: the events read in parts (a small eventsPerPart)', async () => {
    setSetting(twins.server.app.ctx.meta, 'analysis.funnel.eventsPerPart', '4')
    try {
      await current.expectSame('funnels', { ...funnel, byField: { expression: 'event.view.src' } })
    } finally {
      setSetting(twins.server.app.ctx.meta, 'analysis.funnel.eventsPerPart', '2000000')
    }
  })
})
