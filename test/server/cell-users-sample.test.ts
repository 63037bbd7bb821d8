import { beforeAll, describe, expect, it } from 'vitest'
import { machineTimeZone } from '../../src-main/domain/platform/projects'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { eventually } from '../helpers/server'

/**
 * The users behind every cell add up to the analysis's figures, on the sample: every cell of one
 * funnel (each step's converted users = its convertedUser, dropped off after step k = the
 * difference) and of one retention table (starters = totalPeople, returned = retentionPeoples[k],
 * not returned = the difference), on every day column and period row.
 */

const range = { crowds: ['$ALL'], fromDate: '2024-06-17', toDate: '2024-06-30' }

describe.each(ENGINES)('the users behind the cells of the sample, on %s', (engine) => {
  const host = useEngine(engine)
  let p: Project

  async function count(analysis: string, body: Record<string, unknown>): Promise<number> {
    const res = await host.server.call('POST', `/uba/api/${analysis}/users`, { headers: p, body: { ...body, pageSize: 1 } })
    if (res.status !== 200) throw new Error(`${analysis}/users ${res.status} ${JSON.stringify(res.body)}`)
    return res.body.count
  }

  beforeAll(async () => {
    // the server's first project's zone (this suite used it before it ran on both engines)
    p = await host.project('cells', machineTimeZone())
    const started = await host.server.call('POST', '/uba/api/import/sample', { headers: p, body: { users: 1000, days: 14, seed: 7, endDate: '2024-06-30' } })
    expect(started.status).toBe(200)
    await eventually(async () => (await host.server.call('GET', `/uba/api/import/jobs/${started.body.id}`, { headers: p })).body.state === 'succeeded', 60_000)
  })

  // on ClickHouse each /users request takes a few hundred ms on a loaded machine: a whole table of cells nears a minute
  describe('the users behind every cell add up on the sample', { timeout: 180_000 }, () => {
    it('funnel view_product -> add_to_cart -> checkout -> pay: every step and drop-off of every column', async () => {
      const funnel = { ...range, steps: ['view_product', 'add_to_cart', 'checkout', 'pay'].map((e) => ({ expression: `event.${e}` })) }
      const answer = await host.server.call('POST', '/uba/api/funnels/analyze', { headers: p, body: funnel })
      expect(answer.status).toBe(200)
      const steps = answer.body.rows[0].stepsDetail.map((d: { convertedUser: number[] }) => d.convertedUser)
      const dates: string[] = answer.body.dateList
      expect(steps[0][0]).toBeGreaterThan(100)
      expect(steps[3][0]).toBeGreaterThan(0)
      let cells = 0
      for (const [c, date] of dates.entries()) {
        const day = c === 0 ? {} : { day: date.slice(0, 10).replaceAll('/', '-') }
        for (let k = 0; k < steps.length; k++) {
          expect(await count('funnels', { ...funnel, cell: { step: k, ...day } })).toBe(steps[k][c])
          if (k < steps.length - 1) expect(await count('funnels', { ...funnel, cell: { step: k, outcome: 'dropped', ...day } })).toBe(steps[k][c] - steps[k + 1][c])
          cells++
        }
      }
      expect(cells).toBe(15 * 4)
    })

    it('retention $startup -> pay by day: starters, returned and not returned of every observed cell', async () => {
      const retention = { ...range, firstEvent: { expression: 'event.$startup' }, secondEvent: { expression: 'event.pay' }, unit: 'DAY', duration: 3 }
      const answer = await host.server.call('POST', '/uba/api/retentions/analyze', { headers: p, body: retention })
      expect(answer.status).toBe(200)
      let observed = 0
      for (const row of answer.body.rows as { byValue: string; totalPeople: number; retentionPeoples: (number | null)[] }[]) {
        const at = row.byValue === '$ALL' ? {} : { day: row.byValue.slice(0, 10).replaceAll('/', '-') }
        expect(await count('retentions', { ...retention, cell: at })).toBe(row.totalPeople)
        for (const [k, n] of row.retentionPeoples.entries()) {
          if (n === null) {
            const res = await host.server.call('POST', '/uba/api/retentions/users', { headers: p, body: { ...retention, cell: { ...at, offset: k } } })
            expect(res.body.data).toEqual(['cell.offset'])
            continue
          }
          expect(await count('retentions', { ...retention, cell: { ...at, offset: k } })).toBe(n)
          expect(await count('retentions', { ...retention, cell: { ...at, offset: k, outcome: 'notReturned' } })).toBe(row.totalPeople - n)
          observed++
        }
      }
      expect(answer.body.rows).toHaveLength(15)
      expect(observed).toBeGreaterThan(40)
    })
  })

  /**
   * The options of the analyses (funnel exclusions and orders, retention "on or after" and first
   * time, an event analysis compared with an earlier range) change what a cell counts: its users
   * follow, because they come from the same path following and the same SQL.
   */
  describe('the users behind the cells follow the analyses options', { timeout: 180_000 }, () => {
    const steps = ['view_product', 'add_to_cart', 'checkout', 'pay'].map((e) => ({ expression: `event.${e}` }))
    // the sample's shoppers go through the steps in order: "any order" shows only on steps reversed
    const reversed = [...steps].reverse()
    const funnels: [string, { expression: string }[], Record<string, unknown>][] = [
      ['an exclusion of another product viewed between any two steps', steps, { exclusions: [{ expression: 'event.view_product' }] }],
      ['strict order', steps, { order: 'STRICT' }],
      ['any order, steps reversed', reversed, { order: 'ANY' }],
    ]
    for (const [label, steps, option] of funnels) {
      it(`funnel with ${label}: each step's users and drop-offs over the range and on the last day`, async () => {
        const funnel = { ...range, steps, ...option }
        const plain = await host.server.call('POST', '/uba/api/funnels/analyze', { headers: p, body: { ...range, steps } })
        const answer = await host.server.call('POST', '/uba/api/funnels/analyze', { headers: p, body: funnel })
        expect(answer.status).toBe(200)
        const converted = answer.body.rows[0].stepsDetail.map((d: { convertedUser: number[] }) => d.convertedUser)
        // the option changes the numbers here, so the cells cannot pass by ignoring it
        expect(converted.map((c: number[]) => c[0])).not.toEqual(plain.body.rows[0].stepsDetail.map((d: { convertedUser: number[] }) => d.convertedUser[0]))
        const last = answer.body.dateList.length - 1
        for (const [c, day] of [[0, {}], [last, { day: '2024-06-30' }]] as const) {
          for (let k = 0; k < steps.length; k++) {
            expect(await count('funnels', { ...funnel, cell: { step: k, ...day } })).toBe(converted[k][c])
            if (k < steps.length - 1) expect(await count('funnels', { ...funnel, cell: { step: k, outcome: 'dropped', ...day } })).toBe(converted[k][c] - converted[k + 1][c])
          }
        }
      })
    }

    for (const [label, option] of [['on or after', { retentionMode: 'onOrAfter' }], ['first time, on or after', { retentionMode: 'onOrAfter', firstTime: true }]] as const) {
      it(`retention ${label}: every observed cell`, async () => {
        const retention = { ...range, firstEvent: { expression: 'event.$startup' }, secondEvent: { expression: 'event.pay' }, unit: 'DAY', duration: 3, ...option }
        const answer = await host.server.call('POST', '/uba/api/retentions/analyze', { headers: p, body: retention })
        expect(answer.status).toBe(200)
        let observed = 0
        for (const row of answer.body.rows as { byValue: string; totalPeople: number; retentionPeoples: (number | null)[] }[]) {
          const at = row.byValue === '$ALL' ? {} : { day: row.byValue.slice(0, 10).replaceAll('/', '-') }
          expect(await count('retentions', { ...retention, cell: at })).toBe(row.totalPeople)
          for (const [k, n] of row.retentionPeoples.entries()) {
            if (n === null) continue
            expect(await count('retentions', { ...retention, cell: { ...at, offset: k } })).toBe(n)
            observed++
          }
        }
        expect(observed).toBeGreaterThan(40)
      })
    }

    it('an event analysis compared with the week before: a cell holds the users of the answer, not of the earlier range', async () => {
      const events = { ...range, fromDate: '2024-06-24', measures: [{ expression: 'event.pay', aggregator: 'TRIGGER_USER_COUNT' }], unit: 'DAY', compare: 'week' }
      const answer = await host.server.call('POST', '/uba/api/events/analyze', { headers: p, body: events })
      expect(answer.status).toBe(200)
      const row = answer.body.rows[0]
      expect(row.previous).toBeDefined()
      expect(await count('events', { ...events, cell: { measure: 0 } })).toBe(row.sum[0])
      for (const [i, period] of answer.body.series.entries()) {
        expect(await count('events', { ...events, cell: { measure: 0, period } })).toBe(row.values[0][i])
      }
    })
  })
})
