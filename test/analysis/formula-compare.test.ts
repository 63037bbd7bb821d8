import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'

const utc = (at: string) => Date.parse(`${at.replace(' ', 'T')}:00Z`)
const rec = (xwho: string, xwhat: string, at: string, xcontext: Record<string, unknown>) => JSON.stringify({ xwho, xwhat, xwhen: utc(at), xcontext })
const ios = { platform: 'iOS' }
const web = { platform: 'Web' }

/*
 * UTC project. a is on iOS, b and c on Web.
 * 2023-02-28 a view x2 | 2023-03-01 b view 10:00, b pay 11:00 (5)
 * 2024-02-27 a view 10:00, b view 11:00 | 02-28 a view 10:00, a pay 12:00 (10) | 02-29 c view 10:00
 * 2024-03-01 a view 09:00, b view 10:00, c view 11:00, a pay 12:00 (20) | 03-02 b pay 08:00 (30), a view 09:00
 */
const march = { fromDate: '2024-03-01', toDate: '2024-03-03' }
const views = { expression: 'event.view', aggregator: 'TOTAL_COUNT' }
const pays = { expression: 'event.pay', aggregator: 'TOTAL_COUNT' }
const viewers = { expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' }
const payers = { expression: 'event.pay', aggregator: 'TRIGGER_USER_COUNT' }

describe.each(ENGINES)('formula and compare, on %s', (engine) => {
  const host = useEngine(engine)
  let p: Project

  beforeAll(async () => {
    p = await host.project('fc', 'UTC')
    const lines = [
      rec('a', 'view', '2023-02-28 10:00', ios),
      rec('a', 'view', '2023-02-28 11:00', ios),
      rec('b', 'view', '2023-03-01 10:00', web),
      rec('b', 'pay', '2023-03-01 11:00', { ...web, amount: 5 }),
      rec('a', 'view', '2024-02-27 10:00', ios),
      rec('b', 'view', '2024-02-27 11:00', web),
      rec('a', 'view', '2024-02-28 10:00', ios),
      rec('a', 'pay', '2024-02-28 12:00', { ...ios, amount: 10 }),
      rec('c', 'view', '2024-02-29 10:00', web),
      rec('a', 'view', '2024-03-01 09:00', ios),
      rec('b', 'view', '2024-03-01 10:00', web),
      rec('c', 'view', '2024-03-01 11:00', web),
      rec('a', 'pay', '2024-03-01 12:00', { ...ios, amount: 20 }),
      rec('b', 'pay', '2024-03-02 08:00', { ...web, amount: 30 }),
      rec('a', 'view', '2024-03-02 09:00', ios),
    ]
    const job = await importAndWait(host.server, p, { path: fixture('fc.jsonl', lines.join('\n')) })
    if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
  })

  const events = (body: Record<string, unknown>) => host.server.call('POST', '/uba/api/events/analyze', { headers: p, body: { crowds: ['$ALL'], unit: 'DAY', ...body } })
  const funnel = (body: Record<string, unknown>) =>
    host.server.call('POST', '/uba/api/funnels/analyze', { headers: p, body: { crowds: ['$ALL'], steps: [{ expression: 'event.view' }, { expression: 'event.pay' }], convertTime: 1, convertTimeUnit: 'DAY', ...body } })

  describe('event analysis formula', () => {
    it('divides per period and over the whole range, null where the divisor is 0, next to the measures', async () => {
      // views 3, 1, 0 (4); pays 1, 1, 0 (2)
      const res = await events({ ...march, measures: [views, pays], formula: ' a / b ' })
      expect(res.status).toBe(200)
      expect(res.body.formula).toBe('A/B')
      expect(res.body.rows).toEqual([{ byValue: [], sum: [4, 2], values: [[3, 1, 0], [1, 1, 0]], formula: { sum: 2, values: [3, 1, null] } }])
      const scaled = await events({ ...march, measures: [views, pays], formula: '(A-B)*100' })
      expect(scaled.body.rows[0].formula).toEqual({ sum: 200, values: [200, 0, 0] })
    })

    it('takes the whole range from the measures over the range (users are distinct), not a sum of the periods', async () => {
      // viewers 3 (a, b, c), 1 (a), 0; over the range 3. payers 1 (a), 1 (b), 0; over the range 2
      const res = await events({ ...march, measures: [viewers, payers], formula: 'A/B' })
      expect(res.body.rows[0].formula).toEqual({ sum: 1.5, values: [3, 1, null] })
      const precedence = await events({ ...march, measures: [viewers, payers], formula: '-A+B*2/4' })
      expect(precedence.body.rows[0].formula).toEqual({ sum: -2, values: [-2.5, -0.5, 0] })
    })

    it('computes the formula for every breakdown row', async () => {
      // iOS (a): views 1, 1, 0; pays 1, 0, 0. Web (b, c): views 2, 0, 0; pays 0, 1, 0
      const res = await events({ ...march, measures: [views, pays], formula: 'A/B', byFields: [{ expression: 'event.view.platform' }] })
      expect(res.body.rows).toEqual([
        { byValue: ['iOS'], sum: [2, 1], values: [[1, 1, 0], [1, 0, 0]], formula: { sum: 2, values: [1, null, null] } },
        { byValue: ['Web'], sum: [2, 1], values: [[2, 0, 0], [0, 1, 0]], formula: { sum: 2, values: [null, 0, null] } },
      ])
    })

    it.each([
      ['A/C', /C names no measure/],
      ['A//B', /expected at position 3/],
      ['(A+B', /"\)" is missing/],
      ['A B', /unexpected "B"/],
      ['Math.max(A)', /not one/],
      ['A;B', /";" at position 2 is not allowed/],
      ['', /empty/],
      [42, /must be text/],
      ['A'.repeat(201), /at most 200/],
    ])('refuses formula %j with a 400 naming formula', async (formula, message) => {
      const res = await events({ ...march, measures: [views, pays], formula })
      expect(res.status).toBe(400)
      expect(res.body.data).toEqual(['formula'])
      expect(res.body.msg).toMatch(message)
    })
  })

  describe('event analysis compare', () => {
    it('compares with the days just before, across a month boundary and 29 February, with the formula too', async () => {
      // 2024-02-27..29: views 2, 1, 1 (4), viewers 2, 1, 1 (3: a, b, c)
      const res = await events({ ...march, measures: [views, viewers], formula: 'A/B', compare: 'Previous' })
      expect(res.status).toBe(200)
      expect(res.body.compare).toEqual({ mode: 'previous', fromDate: '2024-02-27', toDate: '2024-02-29', series: ['2024-02-27', '2024-02-28', '2024-02-29'] })
      expect(res.body.rows[0]).toEqual({
        byValue: [],
        sum: [4, 3],
        values: [[3, 1, 0], [3, 1, 0]],
        formula: { sum: 1.333333, values: [1, 1, null] },
        previous: { sum: [4, 3], values: [[2, 1, 1], [2, 1, 1]], formula: { sum: 1.333333, values: [1, 1, 1] } },
      })
    })

    it('compares a breakdown row by row', async () => {
      // before: iOS (a) views 1, 1, 0; Web (b, c) 1, 0, 1
      const res = await events({ ...march, measures: [views], byFields: [{ expression: 'event.view.platform' }], compare: 'previous' })
      expect(res.body.rows.map((r: { byValue: string[]; previous: unknown }) => [r.byValue, r.previous])).toEqual([
        [['iOS'], { sum: [2], values: [[1, 1, 0]] }],
        [['Web'], { sum: [2], values: [[1, 0, 1]] }],
      ])
    })

    it('compares the same days a year earlier: 29 February has no counterpart', async () => {
      const res = await events({ fromDate: '2024-02-28', toDate: '2024-03-01', measures: [views], compare: 'year' })
      expect(res.body.compare).toEqual({ mode: 'year', fromDate: '2023-02-28', toDate: '2023-03-01', series: ['2023-02-28', null, '2023-03-01'] })
      expect(res.body.rows[0]).toMatchObject({ sum: [5], values: [[1, 1, 3]], previous: { sum: [3], values: [[2, null, 1]] } })
      const fromLeapDay = await events({ fromDate: '2024-02-29', toDate: '2024-03-01', measures: [views], compare: 'year' })
      expect(fromLeapDay.body.compare).toMatchObject({ fromDate: '2023-03-01', toDate: '2023-03-01', series: [null, '2023-03-01'] })
      expect(fromLeapDay.body.rows[0].previous).toEqual({ sum: [1], values: [[null, 1]] })
    })

    it('answers an empty compared range with zero counts and null averages', async () => {
      const res = await events({ fromDate: '2024-02-27', toDate: '2024-02-28', measures: [views, { expression: 'event.pay.amount', aggregator: 'AVG' }], compare: 'previous' })
      expect(res.body.compare).toMatchObject({ fromDate: '2024-02-25', toDate: '2024-02-26' })
      expect(res.body.rows[0]).toEqual({ byValue: [], sum: [3, 10], values: [[2, 1], [null, 10]], previous: { sum: [0, null], values: [[0, 0], [null, null]] } })
    })

    it('compares weeks a week earlier, a day in both ranges counting in both', async () => {
      // weeks of 02-26 and 03-04; a week earlier 02-20..02-27: weeks of 02-19 (nothing) and 02-26 (only 02-26..27: 2 views)
      const res = await events({ fromDate: '2024-02-27', toDate: '2024-03-05', unit: 'WEEK', measures: [views], compare: 'week' })
      expect(res.body.series).toEqual(['2024-02-26', '2024-03-04'])
      expect(res.body.compare).toEqual({ mode: 'week', fromDate: '2024-02-20', toDate: '2024-02-27', series: ['2024-02-19', '2024-02-26'] })
      expect(res.body.rows[0]).toEqual({ byValue: [], sum: [8], values: [[8, 0]], previous: { sum: [2], values: [[0, 2]] } })
    })

    it('compares a month with the month before, whatever their lengths', async () => {
      const res = await events({ fromDate: '2024-03-01', toDate: '2024-03-31', unit: 'MONTH', measures: [views], compare: 'previous' })
      expect(res.body.compare).toEqual({ mode: 'previous', fromDate: '2024-02-01', toDate: '2024-02-29', series: ['2024-02-01'] })
      expect(res.body.rows[0]).toMatchObject({ sum: [4], previous: { sum: [4], values: [[4]] } })
    })

    it.each([
      [{ compare: 'month' }, /previous", "week" or "year/],
      [{ compare: 7 }, /previous", "week" or "year/],
      [{ compare: 'week', unit: 'MONTH' }, /needs unit DAY or WEEK/],
    ])('refuses %j with a 400 naming compare', async (override, message) => {
      const res = await events({ ...march, measures: [views], ...override })
      expect(res.status).toBe(400)
      expect(res.body.data).toEqual(['compare'])
      expect(res.body.msg).toMatch(message)
    })
  })

  describe('funnel compare', () => {
    it('runs the same funnel over the days just before, by the answer\'s columns', async () => {
      // before: a enters 02-27 (pay 26 h later: too late) and 02-28 (pay after 2 h); b 02-27 and c 02-29 do not pay
      const res = await funnel({ ...march, compare: 'previous' })
      expect(res.status).toBe(200)
      expect(res.body.compare).toEqual({ mode: 'previous', fromDate: '2024-02-27', toDate: '2024-02-29', dateList: ['$ALL', '2024/02/27 00:00:00', '2024/02/28 00:00:00', '2024/02/29 00:00:00'] })
      const total = res.body.rows[0]
      expect(total.stepsDetail.map((d: { convertedUser: number[] }) => d.convertedUser)).toEqual([[3, 3, 1, 0], [2, 2, 0, 0]])
      expect(total.previous).toEqual({
        stepsDetail: [
          { expression: 'event.view', convertedUser: [3, 2, 1, 1] },
          { expression: 'event.pay', convertedUser: [1, 0, 1, 0] },
        ],
        medianConvertedTime: [{ stepsExpress: 'event.view~event.pay', median: [7200, null, 7200, null] }],
      })
    })

    it('compares a breakdown value with its own row before', async () => {
      const res = await funnel({ ...march, byField: { expression: 'event.view.platform' }, compare: 'previous' })
      const overRange = (r: { byValue: unknown; previous: { stepsDetail: { convertedUser: number[] }[] } }) => [r.byValue, r.previous.stepsDetail.map((d) => d.convertedUser[0])]
      expect(res.body.rows.map(overRange)).toEqual([[-1, [3, 1]], ['Web', [2, 0]], ['iOS', [1, 1]]])
    })

    it('compares a year earlier across 29 February, and an empty range with zeros', async () => {
      const res = await funnel({ fromDate: '2024-02-28', toDate: '2024-03-01', compare: 'year' })
      expect(res.body.compare.dateList).toEqual(['$ALL', '2023/02/28 00:00:00', null, '2023/03/01 00:00:00'])
      expect(res.body.rows[0].stepsDetail[0].convertedUser[0]).toBe(3)
      expect(res.body.rows[0].previous.stepsDetail.map((d: { convertedUser: unknown }) => d.convertedUser)).toEqual([[2, 1, null, 1], [1, 0, null, 1]])
      expect(res.body.rows[0].previous.medianConvertedTime[0].median).toEqual([3600, null, null, 3600])
      const empty = await funnel({ fromDate: '2023-03-01', toDate: '2023-03-01', compare: 'week' })
      expect(empty.body.rows[0].previous.stepsDetail.map((d: { convertedUser: unknown }) => d.convertedUser)).toEqual([[0, 0], [0, 0]])
      expect(empty.body.rows[0].previous.medianConvertedTime[0].median).toEqual([null, null])
    })

    it('refuses an unknown compare with a 400 naming it', async () => {
      const res = await funnel({ ...march, compare: 'quarter' })
      expect(res.status).toBe(400)
      expect(res.body.data).toEqual(['compare'])
    })
  })

  describe('formula and compare in /openapi.json', () => {
    it('documents both request fields and the answers\' extra fields', async () => {
      const doc = (await host.server.call('GET', '/openapi.json')).body
      const op = (path: string) => doc.paths[path].post
      const events = op('/uba/api/events/analyze')
      expect(events.requestBody.content['application/json'].schema.properties.formula.description).toMatch(/divisor is 0 gives null/)
      expect(events.requestBody.content['application/json'].schema.properties.compare.enum).toEqual(['previous', 'week', 'year'])
      const answer = events.responses['200'].content['application/json'].schema
      expect(Object.keys(answer.properties.rows.items.properties)).toEqual(expect.arrayContaining(['formula', 'previous']))
      expect(Object.keys(answer.properties)).toEqual(expect.arrayContaining(['formula', 'compare']))
      const funnels = op('/uba/api/funnels/analyze')
      expect(funnels.requestBody.content['application/json'].schema.properties.compare.enum).toEqual(['previous', 'week', 'year'])
      expect(Object.keys(funnels.responses['200'].content['application/json'].schema.properties)).toContain('compare')
    })
  })
})
