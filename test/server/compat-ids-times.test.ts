import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'
import { rawRequest } from '../helpers/raw'
import { sdkRecord, switchStreamAndWait } from '../helpers/collector'
import type { TestServer } from '../helpers/server'

/*
 * Issue 18, the last two: an event id the plan may hold (part 8: `_checkout_v2`, 100 characters)
 * imports like any other, while collected records keep the SDK's xwhat rule; and relative-time
 * filter counts sent as decimal strings ("7") are read as numbers.
 */
const DAY = 86_400_000
const LONG_ID = `c${'x'.repeat(99)}`
const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')

describe.each(ENGINES)('the plan\'s event ids and relative times as text (issue 18), on %s', (engine) => {
  const host = useEngine(engine)
  let s: TestServer
  let p: Project

  beforeAll(async () => {
    s = host.server
    p = await host.project('ids', 'UTC')
  })

  const post = (path: string, body: unknown) => s.call('POST', path, { headers: p, body })

  describe('imports take the plan’s event ids (part 8)', () => {
    it('imports a planned _checkout_v2 and a 100-character id from SDK records and from CSV; a digit first is still refused', async () => {
      for (const id of ['_checkout_v2', LONG_ID]) expect((await post('/uba/api/schema/event', { id, name: 'Planned' })).status).toBe(200)
      const records = ['_checkout_v2', LONG_ID, '9lives'].map((xwhat, i) => JSON.stringify({ xwho: `r${i}`, xwhat, xwhen: Date.UTC(2024, 5, 1, 10) }))
      const job = await importAndWait(s, p, { path: fixture('planned.jsonl', records.join('\n')), onError: 'skip' })
      expect(job).toMatchObject({ state: 'succeeded', rowsRead: 3, rowsWritten: 2, rowsRejected: 1 })
      expect(job.rejected.map((r: any) => [r.row, r.property, r.value])).toEqual([[3, 'xwhat', '9lives']])

      const csv = fixture('planned.csv', `who,what,when\nc1,_checkout_v2,2024-06-02\nc2,${LONG_ID},2024-06-02\n`)
      const tabular = await importAndWait(s, p, { path: csv, mapping: { xwho: 'who', xwhat: 'what', xwhen: 'when' } })
      expect(tabular).toMatchObject({ state: 'succeeded', rowsWritten: 2, rowsRejected: 0 })

      expect(await host.rows(p, 'SELECT xwho, xwhat FROM event_vd ORDER BY xwho')).toEqual([
        { xwho: 'c1', xwhat: '_checkout_v2' },
        { xwho: 'c2', xwhat: LONG_ID },
        { xwho: 'r0', xwhat: '_checkout_v2' },
        { xwho: 'r1', xwhat: LONG_ID },
      ])
      // and the analyses read them: r0 on 06-01, c1 on 06-02
      const counted = await post('/uba/api/events/analyze', { crowds: ['$ALL'], fromDate: '2024-06-01', toDate: '2024-06-02', unit: 'DAY', measures: [{ expression: 'event._checkout_v2', aggregator: 'TRIGGER_USER_COUNT' }] })
      expect(counted.status).toBe(200)
      expect(counted.body.rows[0].values).toEqual([[1, 1]])
    })

    it('keeps the SDK’s xwhat rule for collected records: _checkout_v2 sent to /up is refused', async () => {
      await switchStreamAndWait(s, 'ids', true)
      const upload = [sdkRecord('ids', 'k1', '_checkout_v2'), sdkRecord('ids', 'k2', 'view')]
      const res = await rawRequest(s.app.port, 'POST', '/up?appid=ids', { host: `127.0.0.1:${s.app.port}`, 'content-type': 'application/json' }, JSON.stringify(upload))
      expect(res.status).toBe(200)
      expect(await host.rows(p, "SELECT xwho, xwhat FROM event_vd WHERE xwho IN ('k1', 'k2')")).toEqual([{ xwho: 'k2', xwhat: 'view' }])
      await switchStreamAndWait(s, 'ids', false)
    })
  })

  describe('relative-time filter counts sent as decimal strings', () => {
    // pay events on 2024-06-03 whose paid_at is 2 days before now (t1) and 30 days before now (t2)
    beforeAll(async () => {
      const now = Date.now()
      const csv = fixture('paid.csv', `who,when,paid_at\nt1,2024-06-03,${stamp(now - 2 * DAY)}\nt2,2024-06-03,${stamp(now - 30 * DAY)}\n`)
      const job = await importAndWait(s, p, { path: csv, mapping: { xwho: 'who', event: 'pay', xwhen: 'when', types: { paid_at: 'datetime' } } })
      expect(job.state).toBe('succeeded')
    })

    const payers = (fn: string, params: unknown[]) =>
      post('/uba/api/events/analyze', {
        crowds: ['$ALL'], fromDate: '2024-06-03', toDate: '2024-06-03', unit: 'DAY',
        measures: [{ expression: 'event.pay', aggregator: 'TRIGGER_USER_COUNT' }],
        filter: { conditions: [{ expression: 'event.pay.paid_at', function: fn, params }] },
      })

    it('reads "7" in RELATIVE_TIME_OF_CUURENT and "40", "20" in RELATIVE_TIME_RANGE_CUURENT as the numbers', async () => {
      // within the last 7 days: t1 only
      const within = await payers('RELATIVE_TIME_OF_CUURENT', ['7', 'day', 'within'])
      expect(within.status).toBe(200)
      expect(within.body.rows[0].values).toEqual([[1]])
      expect(within.body.rows).toEqual((await payers('RELATIVE_TIME_OF_CUURENT', [7, 'day', 'within'])).body.rows)
      // before 7 days ago: t2 only
      expect((await payers('RELATIVE_TIME_OF_CUURENT', ['7', 'day', 'before'])).body.rows[0].values).toEqual([[1]])
      // from 40 to 20 days ago: t2 only; from 3 to 0 days ago: t1 only
      const range = await payers('RELATIVE_TIME_RANGE_CUURENT', ['40', '20', 'day'])
      expect(range.status).toBe(200)
      expect(range.body.rows[0].values).toEqual([[1]])
      expect(range.body.rows).toEqual((await payers('RELATIVE_TIME_RANGE_CUURENT', [40, 20, 'day'])).body.rows)
      expect((await payers('RELATIVE_TIME_RANGE_CUURENT', ['60', '0', 'day'])).body.rows[0].values).toEqual([[2]])
    })

    it('still refuses what is not a whole number, naming the params', async () => {
      for (const params of [['7.5', 'day', 'within'], ['seven', 'day', 'within'], ['-1', 'day', 'within']]) {
        const res = await payers('RELATIVE_TIME_OF_CUURENT', params)
        expect(res.status).toBe(400)
        expect(res.body.data).toEqual(['filter.conditions[0].params'])
      }
      const range = await payers('RELATIVE_TIME_RANGE_CUURENT', ['20', '40', 'day'])
      expect(range.status).toBe(400)
      expect(range.body.data).toEqual(['filter.conditions[0].params'])
    })
  })
})
