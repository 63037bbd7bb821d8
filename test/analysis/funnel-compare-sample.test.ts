import { beforeAll, describe, expect, it } from 'vitest'
import { machineTimeZone } from '../../src-main/domain/platform/projects'
import { setSetting } from '../../src-main/domain/platform/settings'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { eventually } from '../helpers/server'

/**
 * A funnel's compared range comes from the same pass over the events as the answer's when the days
 * the two read meet (funnels.ts followPaths). Its figures must equal the same funnel asked for the
 * earlier range alone, row by row and day by day, with every option of the path following: on the
 * sample (1,000 users, 14 days), for "previous" (ranges that meet) and "week" (ranges sharing days).
 */

const steps = ['view_product', 'add_to_cart', 'checkout', 'pay'].map((e) => ({ expression: `event.${e}` }))

interface Row {
  byValue: string | number
  stepsDetail: { convertedUser: number[] }[]
  medianConvertedTime: { median: (number | null)[] }[]
  previous: { stepsDetail: { convertedUser: (number | null)[] }[]; medianConvertedTime: { median: (number | null)[] }[] }
}

const options: [string, Record<string, unknown>][] = [
  ['no option', {}],
  ['a breakdown by the entry platform', { byField: { expression: 'event.view_product.$platform' } }],
  ['the platform held constant over the steps', { byField: { expression: 'event.view_product.$platform' }, byStepIndex: -1 }],
  ['an exclusion of another product viewed', { exclusions: [{ expression: 'event.view_product' }] }],
  ['strict order', { order: 'STRICT' }],
  ['any order, steps reversed', { order: 'ANY', steps: [...steps].reverse() }],
  ['time to convert', { timeToConvert: true }],
]

describe.each(ENGINES)('a funnel compared in one pass equals the same funnel over the earlier range, on %s', (engine) => {
  const host = useEngine(engine)
  // the server's default project (made in the machine's zone) becomes a project on the block's engine
  let p: Project

  async function analyze(body: Record<string, unknown>): Promise<{ rows: Row[]; dateList: string[]; compare?: { fromDate: string; toDate: string }; timeToConvert?: { buckets: { users: number }[] } }> {
    const res = await host.server.call('POST', '/uba/api/funnels/analyze', { headers: p, body: { crowds: ['$ALL'], steps, convertTime: 2, convertTimeUnit: 'DAY', useCache: false, ...body } })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body
  }

  beforeAll(async () => {
    p = await host.project('compare', machineTimeZone())
    const started = await host.server.call('POST', '/uba/api/import/sample', { headers: p, body: { users: 1000, days: 14, seed: 7, endDate: '2024-06-30' } })
    expect(started.status).toBe(200)
    await eventually(async () => (await host.server.call('GET', `/uba/api/import/jobs/${started.body.id}`, { headers: p })).body.state === 'succeeded', 60_000)
  })

  for (const [mode, range] of [
    ['previous', { fromDate: '2024-06-24', toDate: '2024-06-30' }],
    ['week', { fromDate: '2024-06-20', toDate: '2024-06-30' }],
  ] as const) {
    for (const [label, option] of options) {
      it(`compare ${mode}, ${label}`, async () => {
        const answer = await analyze({ ...range, ...option, compare: mode })
        const earlier = await analyze({ ...option, fromDate: answer.compare!.fromDate, toDate: answer.compare!.toDate })
        // both ranges as long: day c of the answer is compared with day c of the earlier range
        expect(earlier.dateList).toHaveLength(answer.dateList.length)
        expect(answer.rows[0].previous.stepsDetail[0].convertedUser[0]).toBeGreaterThan(50)
        for (const row of answer.rows) {
          const before = earlier.rows.find((r) => r.byValue === row.byValue)
          expect(before, `row ${row.byValue}`).toBeDefined()
          expect(row.previous.stepsDetail.map((d) => d.convertedUser), `row ${row.byValue}`).toEqual(before!.stepsDetail.map((d) => d.convertedUser))
          expect(row.previous.medianConvertedTime.map((m) => m.median), `row ${row.byValue}`).toEqual(before!.medianConvertedTime.map((m) => m.median))
        }
        // the answer itself is the funnel without compare
        const alone = await analyze({ ...range, ...option })
        expect(answer.rows.map(({ previous: _, ...r }) => r)).toEqual(alone.rows)
        // the histogram is the answer's range only
        expect(answer.timeToConvert).toEqual(alone.timeToConvert)
      })
    }
  }

  it('with the users followed in many parts', async () => {
    const range = { fromDate: '2024-06-20', toDate: '2024-06-30', byField: { expression: 'event.view_product.$platform' } }
    const whole = await analyze({ ...range, compare: 'week' })
    setSetting(host.server.app.ctx.meta, 'analysis.funnel.eventsPerPart', '500')
    try {
      expect((await analyze({ ...range, compare: 'week' })).rows).toEqual(whole.rows)
    } finally {
      setSetting(host.server.app.ctx.meta, 'analysis.funnel.eventsPerPart', '2000000')
    }
  })
})
