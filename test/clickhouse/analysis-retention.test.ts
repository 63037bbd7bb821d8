import { beforeAll, describe, expect, it } from 'vitest'
import { clickhouseAvailable } from '../helpers/clickhouse'
import { askBoth, useTwins } from '../helpers/twinProjects'
import { RETENTION_LINES as lines, ZONE } from './pathsFixture'

/**
 * Retention on a ClickHouse project gives DuckDB's numbers: the same hand-made events in both
 * projects (`twinProjects`), the same requests, the same hand-computed answers.
 * The events are pathsFixture.ts's.
 */

const base = {
  crowds: ['$ALL'],
  fromDate: '2024-01-01',
  toDate: '2024-01-03',
  unit: 'DAY',
  duration: 2,
  firstEvent: { expression: 'event.login' },
  secondEvent: { expression: 'event.buy' },
}

type Row = { byValue: string; totalPeople: number; retentionPeoples: (number | null)[] }
const table = (rows: Row[]) => rows.map((r) => [r.byValue, r.totalPeople, r.retentionPeoples])
const day = (d: string) => `2024/01/0${d} 00:00:00`

describe.skipIf(!clickhouseAvailable())('retention on ClickHouse and DuckDB (real clickhouse-server)', () => {
  const twins = useTwins('ret', ZONE, lines)

  beforeAll(async () => {
    expect(twins.copied?.event_vd).toBe(lines.length)
  })

  const retention = async (body: Record<string, unknown>) => (await askBoth(twins.server, twins, 'POST', '/uba/api/retentions/analyze', { ...base, ...body })).map((a) => table(a.rows))

  it('counts who came back on each local day: +0 at the same ms, a Shanghai day that is another UTC day, a cell of nobody, a cell not observed yet', async () => {
    for (const rows of await retention({})) {
      expect(rows).toEqual([
        ['$ALL', 4, [2, 1, 1]],
        [day('1'), 2, [1, 1, 0]],
        [day('2'), 2, [0, 0, 1]],
        [day('3'), 1, [1, 0, null]],
      ])
    }
  })

  it('on or after: back at +k or any later offset followed', async () => {
    for (const rows of await retention({ retentionMode: 'onOrAfter' })) {
      expect(rows).toEqual([
        ['$ALL', 4, [3, 2, 1]],
        [day('1'), 2, [2, 1, 0]],
        [day('2'), 2, [1, 1, 1]],
        [day('3'), 1, [1, 0, null]],
      ])
    }
  })

  it('first time: only each user\'s first-ever login (r4 began before the range, r2\'s second login is no start)', async () => {
    for (const rows of await retention({ firstTime: true })) {
      expect(rows).toEqual([
        ['$ALL', 3, [1, 1, 0]],
        [day('1'), 2, [1, 1, 0]],
        [day('2'), 1, [0, 0, 0]],
        [day('3'), 0, [0, 0, null]],
      ])
    }
  })

  it('breaks down by the login\'s channel: a user counts under each value they started with', async () => {
    for (const rows of await retention({ byField: { expression: 'event.login.ch' }, byFieldIndex: 1 })) {
      expect(rows).toEqual([
        ['$ALL', 4, [2, 1, 1]],
        ['web', 3, [1, 1, 1]],
        ['app', 2, [1, 0, 0]],
      ])
    }
    for (const rows of await retention({ byField: { expression: 'event.login.ch' }, byFieldIndex: 1, retentionMode: 'onOrAfter' })) {
      expect(rows).toEqual([
        ['$ALL', 4, [3, 2, 1]],
        ['web', 3, [3, 2, 1]],
        ['app', 2, [1, 0, 0]],
      ])
    }
  })

  it('breaks down by the buy\'s channel: each value against every starter, a buy without one unknown', async () => {
    for (const rows of await retention({ byField: { expression: 'event.buy.ch' }, byFieldIndex: 2 })) {
      expect(rows).toEqual([
        ['$ALL', 4, [2, 1, 1]],
        ['unknown', 4, [1, 0, 1]],
        ['app', 4, [1, 0, 0]],
        ['web', 4, [0, 1, 0]],
      ])
    }
  })

  it('counts by week (Monday to Sunday): r4\'s Sunday 12-31 login is the week before', async () => {
    for (const rows of await retention({ unit: 'WEEK', fromDate: '2024-01-01', toDate: '2024-01-07', duration: 1 })) {
      expect(rows).toEqual([
        ['$ALL', 4, [3, null]],
        [day('1'), 4, [3, null]],
      ])
    }
  })

  it('draws the curve from the same cells (percentages of the starters)', async () => {
    for (const rows of await retention({ retentionMode: 'onOrAfter' })) {
      const [all] = rows
      expect((all[2] as number[]).map((n) => Math.round((100 * n) / (all[1] as number)))).toEqual([75, 50, 25])
    }
  })

  it('answers no starters and nothing observed for a range after the data', async () => {
    for (const rows of await retention({ fromDate: '2024-03-01', toDate: '2024-03-02' })) {
      expect(rows).toEqual([
        ['$ALL', 0, [null, null, null]],
        ['2024/03/01 00:00:00', 0, [null, null, null]],
        ['2024/03/02 00:00:00', 0, [null, null, null]],
      ])
    }
  })

  /** The users listed for a cell (by xwho); the list's count must be its length. */
  const listed = async (body: Record<string, unknown>, cell: Record<string, unknown>) =>
    (await askBoth(twins.server, twins, 'POST', '/uba/api/retentions/users', { ...base, ...body, cell, pageSize: 100, properties: [] })).map((page) => {
      expect(page.count).toBe(page.users.length)
      return page.users.map((u: { xwho: string }) => u.xwho).sort()
    })

  it('lists the users behind a cell: exactly those counted, a cell of zero users included', async () => {
    const cases: [Record<string, unknown>, Record<string, unknown>, string[]][] = [
      [{}, { day: '2024-01-01', offset: 1 }, ['r1']],
      [{}, { day: '2024-01-01', offset: 1, outcome: 'notReturned' }, ['r2']],
      [{}, { day: '2024-01-02', offset: 0 }, []],
      [{}, { day: '2024-01-02', offset: 0, outcome: 'notReturned' }, ['r2', 'r3']],
      [{}, { offset: 0 }, ['r2', 'r4']],
      [{}, { day: '2024-01-03' }, ['r4']],
      [{}, {}, ['r1', 'r2', 'r3', 'r4']],
      [{ retentionMode: 'onOrAfter' }, { offset: 1 }, ['r1', 'r2']],
      [{ firstTime: true }, { day: '2024-01-02' }, ['r3']],
      [{ byField: { expression: 'event.login.ch' }, byFieldIndex: 1 }, { byValue: 'web', offset: 2 }, ['r2']],
      [{ byField: { expression: 'event.login.ch' }, byFieldIndex: 1 }, { byValue: 'app', offset: 0, outcome: 'notReturned' }, ['r3']],
      [{ byField: { expression: 'event.buy.ch' }, byFieldIndex: 2 }, { byValue: 'unknown', offset: 0 }, ['r2']],
      [{ byField: { expression: 'event.buy.ch' }, byFieldIndex: 2 }, { byValue: 'web', offset: 0, outcome: 'notReturned' }, ['r1', 'r2', 'r3', 'r4']],
    ]
    for (const [body, cell, users] of cases) expect(await listed(body, cell), JSON.stringify({ body, cell })).toEqual([users, users])
  })

  it('measures the returning buys: their amount summed, and per returning user', async () => {
    const measures = async (aggregator: string) =>
      (await askBoth(twins.server, twins, 'POST', '/uba/api/retentions/analyze', { ...base, measures: [{ expression: 'event.buy.amount', aggregator }] })).map((a) => a.rows.map((r: { measures: unknown }) => r.measures))
    // pairs: 01-01 +0 r2 10, +1 r1 5; 01-02 +2 r2 20; 01-03 +0 r4 7
    for (const rows of await measures('SUM')) expect(rows).toEqual([[17, 5, 20], [10, 5, 0], [0, 0, 20], [7, 0, null]])
    for (const rows of await measures('AVG_PER')) expect(rows).toEqual([[8.5, 5, 20], [10, 5, null], [null, null, 20], [7, null, null]])
  })

  it('filters the initial event: only web logins start', async () => {
    const firstEvent = { expression: 'event.login', filter: { conditions: [{ expression: 'event.login.ch', function: 'EQ', params: ['web'] }] } }
    for (const rows of await retention({ firstEvent })) {
      expect(rows).toEqual([
        ['$ALL', 3, [1, 1, 1]],
        [day('1'), 1, [0, 1, 0]],
        [day('2'), 1, [0, 0, 1]],
        [day('3'), 1, [1, 0, null]],
      ])
    }
  })
})
