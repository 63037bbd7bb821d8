import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'

/*
 * A funnel whose days cross a new year (its entry days were packed as a difference of yyyyMMdd,
 * which jumps by 8870 there: the scan overflowed and answered 500), alone and compared with the
 * days just before. Project in UTC; funnel view -> pay, window 7 days. Per user:
 * a: view 2023-12-31 10:00, cart 20:00, pay 2024-01-01 09:00 -> depth 2 on 12-31 (82800 s); with
 *    cart excluded, depth 1 (the cart lies between the steps).
 * b: view 2024-01-02 10:00, pay 11:00 -> depth 2 on 01-02 (3600 s).
 * c: view 2023-12-30 12:00 -> depth 1 on 12-30.
 */

const rec = (xwho: string, xwhat: string, utc: string) => JSON.stringify({ xwho, xwhat, xwhen: Date.parse(`${utc}Z`), xcontext: {} })

describe.each(ENGINES)('a funnel across a new year, on %s', (engine) => {
  const host = useEngine(engine)
  let p: Project

  beforeAll(async () => {
    p = await host.project('newyear', 'UTC')
    const lines = [
      rec('a', 'view', '2023-12-31T10:00:00'),
      rec('a', 'cart', '2023-12-31T20:00:00'),
      rec('a', 'pay', '2024-01-01T09:00:00'),
      rec('b', 'view', '2024-01-02T10:00:00'),
      rec('b', 'pay', '2024-01-02T11:00:00'),
      rec('c', 'view', '2023-12-30T12:00:00'),
    ]
    const job = await importAndWait(host.server, p, { path: fixture('newyear.jsonl', lines.join('\n')) })
    expect(job.state).toBe('succeeded')
  })

  async function funnel(body: Record<string, unknown>) {
    const res = await host.server.call('POST', '/uba/api/funnels/analyze', { headers: p, body: { crowds: ['$ALL'], steps: [{ expression: 'event.view' }, { expression: 'event.pay' }], useCache: false, ...body } })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body
  }

  it('counts each entry day on either side of it', async () => {
    const res = await funnel({ fromDate: '2023-12-30', toDate: '2024-01-03' })
    expect(res.dateList).toEqual(['$ALL', '2023/12/30 00:00:00', '2023/12/31 00:00:00', '2024/01/01 00:00:00', '2024/01/02 00:00:00', '2024/01/03 00:00:00'])
    expect(res.rows[0].stepsDetail.map((d: { convertedUser: number[] }) => d.convertedUser)).toEqual([
      [3, 1, 1, 0, 1, 0],
      [2, 0, 1, 0, 1, 0],
    ])
    expect(res.rows[0].medianConvertedTime[0].median).toEqual([43200, null, 82800, null, 3600, null])
  })

  it('with an exclusion between the steps', async () => {
    const res = await funnel({ fromDate: '2023-12-30', toDate: '2024-01-03', exclusions: [{ expression: 'event.cart' }] })
    expect(res.rows[0].stepsDetail.map((d: { convertedUser: number[] }) => d.convertedUser)).toEqual([
      [3, 1, 1, 0, 1, 0],
      [1, 0, 0, 0, 1, 0],
    ])
    expect(res.rows[0].medianConvertedTime[0].median).toEqual([3600, null, null, null, 3600, null])
  })

  it('compares the first days of January with the last of December, in one pass over both', async () => {
    const res = await funnel({ fromDate: '2024-01-01', toDate: '2024-01-03', compare: 'previous' })
    expect(res.compare).toEqual({ mode: 'previous', fromDate: '2023-12-29', toDate: '2023-12-31', dateList: ['$ALL', '2023/12/29 00:00:00', '2023/12/30 00:00:00', '2023/12/31 00:00:00'] })
    const [row] = res.rows
    expect(row.stepsDetail.map((d: { convertedUser: number[] }) => d.convertedUser)).toEqual([
      [1, 0, 1, 0],
      [1, 0, 1, 0],
    ])
    // a's pay on 01-01 completes the path of its 12-31 entry: counted in the earlier range
    expect(row.previous.stepsDetail.map((d: { convertedUser: number[] }) => d.convertedUser)).toEqual([
      [2, 0, 1, 1],
      [1, 0, 0, 1],
    ])
    expect(row.previous.medianConvertedTime[0].median).toEqual([82800, null, null, 82800])
  })
})

