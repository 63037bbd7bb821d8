import { beforeAll, describe, expect, it } from 'vitest'
import { setSetting } from '../../src-main/domain/platform/settings'
import { clickhouseAvailable } from '../helpers/clickhouse'
import { askBoth, useTwins } from '../helpers/twinProjects'
import { FUNNEL_LINES as lines, ZONE } from './pathsFixture'

/**
 * The funnel on a ClickHouse project gives DuckDB's numbers: the same hand-made events in both
 * projects (`twinProjects`), the same requests, the same hand-computed answers, every option.
 * The events are pathsFixture.ts's.
 */

const base = {
  crowds: ['$ALL'],
  fromDate: '2024-01-01',
  toDate: '2024-01-03',
  steps: [{ expression: 'event.view' }, { expression: 'event.cart' }, { expression: 'event.pay' }],
  convertTime: 1,
  convertTimeUnit: 'DAY',
}

/** A row's users per step, by column [$ALL, 01-01, 01-02, 01-03]. */
const counts = (row: { stepsDetail: { convertedUser: number[] }[] }) => row.stepsDetail.map((s) => s.convertedUser)

describe.skipIf(!clickhouseAvailable())('funnels on ClickHouse and DuckDB (real clickhouse-server)', () => {
  const twins = useTwins('fun', ZONE, lines)

  beforeAll(async () => {
    expect(twins.copied?.event_vd).toBe(lines.length)
  })

  const funnel = (body: Record<string, unknown>) => askBoth(twins.server, twins, 'POST', '/uba/api/funnels/analyze', { ...base, ...body })

  it('counts each user at their deepest step per local entry day: a tie at one ms, the window\'s last ms, a Shanghai day that is another UTC day', async () => {
    for (const answer of await funnel({})) {
      expect(answer.dateList).toEqual(['$ALL', '2024/01/01 00:00:00', '2024/01/02 00:00:00', '2024/01/03 00:00:00'])
      expect(answer.rows).toHaveLength(1)
      expect(counts(answer.rows[0])).toEqual([[6, 4, 1, 1], [5, 3, 1, 1], [2, 2, 0, 0]])
      // view~cart: 300 (u1), 0 (u2), 3600 (u3), 3600 (u4), 120 (u5); cart~pay: 300 (u1), 82800 (u3)
      expect(answer.rows[0].medianConvertedTime.map((m: { median: unknown[] }) => m.median)).toEqual([[300, 3600, 0, 120], [41550, 41550, null, null]])
    }
  })

  it('gates a step by its filter', async () => {
    const steps = [{ expression: 'event.view', filter: { conditions: [{ expression: 'event.view.src', function: 'EQ', params: ['ad'] }] } }, { expression: 'event.cart' }, { expression: 'event.pay' }]
    for (const answer of await funnel({ steps })) expect(counts(answer.rows[0])).toEqual([[3, 3, 0, 0], [3, 3, 0, 0], [2, 2, 0, 0]])
  })

  it('takes any event as a step ($Anything): u3\'s share, u5\'s leave; u6 has nothing after its view', async () => {
    for (const answer of await funnel({ steps: [{ expression: 'event.view' }, { expression: 'event.$Anything' }] })) expect(counts(answer.rows[0])).toEqual([[6, 4, 1, 1], [5, 3, 1, 1]])
  })

  it('breaks down by the entry\'s event property, most entered first, unknown for a view without src', async () => {
    for (const answer of await funnel({ byField: { expression: 'event.view.src' } })) {
      expect(answer.byValues).toEqual([-1, 'ad', 'unknown', 'seo'])
      expect(answer.rows.map(counts)).toEqual([
        [[6, 4, 1, 1], [5, 3, 1, 1], [2, 2, 0, 0]],
        [[3, 3, 0, 0], [3, 3, 0, 0], [2, 2, 0, 0]],
        [[2, 1, 0, 1], [1, 0, 0, 1], [0, 0, 0, 0]],
        [[1, 0, 1, 0], [1, 0, 1, 0], [0, 0, 0, 0]],
      ])
    }
  })

  it('breaks down by each element of a list property (tags): u1 counts under p and q, views without tags are unknown', async () => {
    for (const answer of await funnel({ byField: { expression: 'event.view.tags' } })) {
      expect(answer.byValues).toEqual([-1, 'unknown', 'p', 'q'])
      expect(answer.rows.map(counts)).toEqual([
        [[6, 4, 1, 1], [5, 3, 1, 1], [2, 2, 0, 0]],
        [[4, 2, 1, 1], [3, 1, 1, 1], [0, 0, 0, 0]],
        [[2, 2, 0, 0], [2, 2, 0, 0], [2, 2, 0, 0]],
        [[1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 0, 0]],
      ])
    }
  })

  it('holds a property constant over the steps (byStepIndex -1): u1 goes A, A, then pays under B; the total is the plain funnel', async () => {
    for (const answer of await funnel({ byField: { expression: 'event.view.plan' }, byStepIndex: -1 })) {
      expect(answer.byValues).toEqual([-1, 'unknown', 'A'])
      expect(answer.rows.map(counts)).toEqual([
        [[6, 4, 1, 1], [5, 3, 1, 1], [2, 2, 0, 0]],
        [[5, 3, 1, 1], [4, 2, 1, 1], [1, 1, 0, 0]],
        [[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0]],
      ])
    }
  })

  it('strict order: share between u3\'s view and cart and leave between u5\'s interrupt; u2\'s leave at the cart\'s ms does not', async () => {
    for (const answer of await funnel({ order: 'STRICT' })) expect(counts(answer.rows[0])).toEqual([[6, 4, 1, 1], [3, 2, 1, 0], [1, 1, 0, 0]])
  })

  it('excludes leave between view and cart: u5 stops at view, u2\'s leave at the same ms does not stop it', async () => {
    for (const answer of await funnel({ exclusions: [{ expression: 'event.leave', fromStep: 0, toStep: 1 }] })) {
      expect(counts(answer.rows[0])).toEqual([[6, 4, 1, 1], [4, 3, 1, 0], [2, 2, 0, 0]])
    }
  })

  it('any order: u6\'s cart before its view counts', async () => {
    for (const answer of await funnel({ order: 'ANY' })) expect(counts(answer.rows[0])).toEqual([[6, 4, 1, 1], [6, 4, 1, 1], [2, 2, 0, 0]])
  })

  it('time to convert: u1 600 s, u3 86400 s (exactly the window)', async () => {
    for (const answer of await funnel({ timeToConvert: true })) {
      const users = Object.fromEntries(answer.timeToConvert.buckets.filter((b: { users: number }) => b.users > 0).map((b: { from: number; users: number }) => [b.from, b.users]))
      expect({ fromStep: answer.timeToConvert.fromStep, toStep: answer.timeToConvert.toStep, users }).toEqual({ fromStep: 0, toStep: 2, users: { 300: 1, 86400: 1 } })
      expect(answer.timeToConvert.buckets.at(-1)).toEqual({ from: 86400, to: null, users: 1 })
    }
  })

  it('compares with the previous three days: u7 enters on 12-31, its cart after that range\'s end', async () => {
    for (const answer of await funnel({ compare: 'previous' })) {
      expect(answer.compare).toMatchObject({ fromDate: '2023-12-29', toDate: '2023-12-31' })
      expect(answer.rows[0].previous.stepsDetail.map((x: { convertedUser: number[] }) => x.convertedUser)).toEqual([[1, 0, 0, 1], [1, 0, 0, 1], [0, 0, 0, 0]])
      expect(answer.rows[0].previous.medianConvertedTime[0].median).toEqual([7200, null, null, 7200])
      expect(counts(answer.rows[0])).toEqual([[6, 4, 1, 1], [5, 3, 1, 1], [2, 2, 0, 0]])
    }
  })

  it('gives the same answer followed in parts of the users, each part with a label dictionary of its own', async () => {
    setSetting(twins.server.app.ctx.meta, 'analysis.funnel.eventsPerPart', '4')
    try {
      for (const answer of await funnel({ byField: { expression: 'event.view.src' } })) {
        expect(answer.byValues).toEqual([-1, 'ad', 'unknown', 'seo'])
        expect(answer.rows.map(counts)).toEqual([
          [[6, 4, 1, 1], [5, 3, 1, 1], [2, 2, 0, 0]],
          [[3, 3, 0, 0], [3, 3, 0, 0], [2, 2, 0, 0]],
          [[2, 1, 0, 1], [1, 0, 0, 1], [0, 0, 0, 0]],
          [[1, 0, 1, 0], [1, 0, 1, 0], [0, 0, 0, 0]],
        ])
      }
    } finally {
      setSetting(twins.server.app.ctx.meta, 'analysis.funnel.eventsPerPart', '2000000')
    }
  })

  it('answers zeros for a range without events', async () => {
    for (const answer of await funnel({ fromDate: '2024-02-01', toDate: '2024-02-02' })) expect(counts(answer.rows[0])).toEqual([[0, 0, 0], [0, 0, 0], [0, 0, 0]])
  })

  /** The users listed for a cell (by xwho), and the count the list says. */
  const listed = async (body: Record<string, unknown>, cell: Record<string, unknown>) =>
    (await askBoth(twins.server, twins, 'POST', '/uba/api/funnels/users', { ...base, ...body, cell, pageSize: 100, properties: [] })).map((page) => {
      expect(page.count).toBe(page.users.length)
      return page.users.map((u: { xwho: string }) => u.xwho).sort()
    })

  it('lists the users behind a cell: exactly those counted (converted at a step, dropped off after it, on an entry day)', async () => {
    const cases: [Record<string, unknown>, Record<string, unknown>, string[]][] = [
      [{}, { step: 1 }, ['u1', 'u2', 'u3', 'u4', 'u5']],
      [{}, { step: 1, outcome: 'dropped' }, ['u2', 'u4', 'u5']],
      [{}, { step: 0, outcome: 'dropped' }, ['u6']],
      [{}, { step: 2, day: '2024-01-01' }, ['u1', 'u3']],
      [{}, { step: 0, day: '2024-01-02' }, ['u2']],
      [{ exclusions: [{ expression: 'event.leave', fromStep: 0, toStep: 1 }] }, { step: 0, outcome: 'dropped' }, ['u5', 'u6']],
      [{ byField: { expression: 'event.view.src' } }, { step: 1, byValue: 'ad', outcome: 'dropped' }, ['u4']],
      [{ order: 'STRICT' }, { step: 1 }, ['u1', 'u2', 'u4']],
      [{ fromDate: '2024-02-01', toDate: '2024-02-02' }, { step: 0 }, []],
    ]
    for (const [body, cell, users] of cases) expect(await listed(body, cell), JSON.stringify({ body, cell })).toEqual([users, users])
  })
})
