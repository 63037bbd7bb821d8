import { describe, it } from 'vitest'
import { CHDB, useCurrentVersion, warnWithoutChdb } from '../helpers/chdb'
import { clickhouseAvailable } from '../helpers/clickhouse'
import { useTwins } from '../helpers/twinProjects'
import { USER_LINES, ZONE } from './userpropsFixture'

/**
 * The statements the analyses send a ClickHouse project, run on a CURRENT ClickHouse too: each
 * request's statements (explain=true) are taken from the 18.16 project, run again on 18.16 and on
 * chDB (26.x) over a copy of the same tables, and their last answers compared. Like
 * dialect-current.test.ts, this runs only where UBA_CHDB names a folder with chdb installed (it is
 * not a dependency of the project), and needs the 18.16 server too.
 */
warnWithoutChdb('ClickHouse current-version analysis statements')

const base = { crowds: ['$ALL'], fromDate: '2024-01-01', toDate: '2024-01-03', unit: 'DAY' }
const views = { expression: 'event.view', aggregator: 'TOTAL_COUNT' }
const where = (...conditions: Record<string, unknown>[]) => ({ conditions, relation: 'AND' })

/** Requests that read user properties beside the events, and user attributes. */
const REQUESTS: [string, Record<string, unknown>][] = [
  ['events', { ...base, measures: [views, { expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' }], byFields: [{ expression: 'user.tier' }] }],
  ['events', { ...base, measures: [views], byFields: [{ expression: 'event.view.city' }, { expression: 'user.city' }] }],
  ['events', { ...base, measures: [views], byFields: [{ expression: 'user.tags' }], filter: where({ expression: 'user.age', function: 'GT', params: [35] }) }],
  ['events', { ...base, fromDate: '2024-01-02', measures: [views], byFields: [{ expression: 'user.tier' }], compare: 'previous' }],
  ['events', { ...base, measures: [views], filter: where({ expression: 'user.$signup_time', function: 'RELATIVE_TIME_OF_EVENT', params: [1, 'day', 'within'] }) }],
  ['distributions', { ...base, unit: '', measure: views, byField: { expression: 'user.tier' } }],
  ['distributions', { ...base, measure: views, filter: where({ expression: 'user.tags', function: 'NULL', params: [] }) }],
  ['userAttributes', { crowds: ['$ALL'], measure: { aggregator: 'AVG', expression: 'user.age' }, byFields: [{ expression: 'user.tier' }, { expression: 'user.tags' }] }],
]

describe.skipIf(!CHDB || !clickhouseAvailable())('analysis statements on current ClickHouse (chDB) and 18.16: the same answers', () => {
  const twins = useTwins('cur', ZONE, USER_LINES)
  const current = useCurrentVersion(twins)

  for (const [i, [analysis, body]] of REQUESTS.entries()) {
    it(`${analysis} #${i}: every statement runs on both, the last answers alike`, () => current.expectSame(analysis, body))
  }
})
