import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'

/** Local Shanghai time (UTC+8) as epoch ms. */
const sh = (local: string) => Date.parse(`${local.replace(' ', 'T')}:00+08:00`)
const rec = (xwho: string, xwhat: string, local: string, xcontext: Record<string, unknown>) => JSON.stringify({ xwho, xwhat, xwhen: sh(local), xcontext })
const signup = (who: string, local: string, channel: string) => rec(who, 'signup', local, { channel, tags: [channel] })
const visit = (who: string, local: string, page: string) => rec(who, 'visit', local, { page, stay: 1 })

/*
 * Range 01-01..01-03, duration 3: cohort 01-01 follows 01-01..01-04, 01-03 follows 01-03..01-06.
 *   a  signup 01-01 (ads); visits 01-02 (home, +1), 01-04 (list, +3)
 *   b  signup 01-01 23:30 (seo); visit 01-04 00:30 local (home): 01-03 in UTC, +3 locally
 *   c  signup 01-02 (ads); visit 01-05 (list, +3)
 *   d  signups 01-02 (seo) and 01-03 (ads); visit 01-03 (home: +1 and +0)
 *   e  first signup 2023-12-30 (ads), before the range; signup 01-02 (ads); visit 01-03 (home, +1)
 *   f  two signups at the same millisecond 01-03 08:00 (ads and seo); visits 01-06 (list, +3: the
 *      last period the cohort follows) and 01-07 (home, +4: not followed, and the latest data)
 *   g  signup 01-01 (seo); visit 01-05 (home, +4: read for later cohorts, not followed for this one)
 *   h  signup 01-03 (ads), never back
 * Tags carry the channel as a one-element list: a list breakdown takes the per-user path, so its
 * rows must equal the channel's.
 */
describe.each(ENGINES)('retention modes, on %s', (engine) => {
  const host = useEngine(engine)
  let p: Project

  beforeAll(async () => {
    p = await host.project('retmodes', 'Asia/Shanghai')
    const lines = [
      signup('a', '2024-01-01 10:00', 'ads'),
      visit('a', '2024-01-02 10:00', 'home'),
      visit('a', '2024-01-04 10:00', 'list'),
      signup('b', '2024-01-01 23:30', 'seo'),
      visit('b', '2024-01-04 00:30', 'home'),
      signup('c', '2024-01-02 09:00', 'ads'),
      visit('c', '2024-01-05 09:00', 'list'),
      signup('d', '2024-01-02 12:00', 'seo'),
      signup('d', '2024-01-03 12:00', 'ads'),
      visit('d', '2024-01-03 18:00', 'home'),
      signup('e', '2023-12-30 12:00', 'ads'),
      signup('e', '2024-01-02 12:00', 'ads'),
      visit('e', '2024-01-03 12:00', 'home'),
      signup('f', '2024-01-03 08:00', 'ads'),
      signup('f', '2024-01-03 08:00', 'seo'),
      visit('f', '2024-01-06 08:00', 'list'),
      visit('f', '2024-01-07 08:00', 'home'),
      signup('g', '2024-01-01 08:00', 'seo'),
      visit('g', '2024-01-05 08:00', 'home'),
      signup('h', '2024-01-03 20:00', 'ads'),
    ]
    const job = await importAndWait(host.server, p, { path: fixture('ret-modes.jsonl', lines.join('\n')) })
    if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
  })

  const analyze = (body: Record<string, unknown>) => host.server.call('POST', '/uba/api/retentions/analyze', { headers: p, body })
  const base = {
    firstEvent: { expression: 'event.signup' },
    secondEvent: { expression: 'event.visit' },
    crowds: ['$ALL'],
    fromDate: '2024-01-01',
    toDate: '2024-01-03',
    duration: 3,
    unit: 'DAY',
  }
  type Row = { byValue: string; totalPeople: number; retentionPeoples: (number | null)[] }
  const counts = (rows: Row[]) => rows.map((r) => [r.byValue, r.totalPeople, r.retentionPeoples])
  const byChannel = { byField: { expression: 'event.signup.channel' }, byFieldIndex: 1 }
  const byTags = { byField: { expression: 'event.signup.tags' }, byFieldIndex: 1 }

  describe('retention on the exact period (retentionMode on, the default)', () => {
    it('counts a return only in period +k, in local days, with cells of zero users', async () => {
      const plain = await analyze(base)
      expect(plain.status).toBe(200)
      const on = await analyze({ ...base, retentionMode: 'on', firstTime: false })
      expect(on.body.rows).toEqual(plain.body.rows)
      expect(counts(on.body.rows)).toEqual([
        // k=2: nobody at all; g's +4 and f's +4 are past the periods followed
        ['$ALL', 8, [1, 3, 0, 4]],
        // b's 00:30 visit is 01-04 locally: +3, not +2
        ['2024/01/01 00:00:00', 3, [0, 1, 0, 2]],
        ['2024/01/02 00:00:00', 3, [0, 2, 0, 1]],
        ['2024/01/03 00:00:00', 3, [1, 0, 0, 1]],
      ])
    })
  })

  describe('retention on or after (retentionMode onOrAfter)', () => {
    it('counts a user at +k when they returned at +k or any later period the cohort follows', async () => {
      const res = await analyze({ ...base, retentionMode: 'onOrAfter' })
      expect(res.status).toBe(200)
      expect(counts(res.body.rows)).toEqual([
        // latest returns: a, b, c, f at +3; d at +1 (from 01-02; +0 from 01-03), e at +1; g, h never
        ['$ALL', 8, [6, 6, 4, 4]],
        // g's visit on 01-05 is read (cohort 01-02 follows it) but is +4 for g: not counted
        ['2024/01/01 00:00:00', 3, [2, 2, 2, 2]],
        ['2024/01/02 00:00:00', 3, [3, 3, 1, 1]],
        // f's visit on 01-06, the last period followed, counts at every offset; 01-07 is not read
        ['2024/01/03 00:00:00', 3, [2, 1, 1, 1]],
      ])
    })

    it('equals on at +duration, and reads the mode in any letter case', async () => {
      const on = await analyze(base)
      const after = await analyze({ ...base, retentionMode: 'ONORAFTER' })
      expect(after.status).toBe(200)
      for (let i = 1; i < 4; i++) expect(after.body.rows[i].retentionPeoples[3]).toBe(on.body.rows[i].retentionPeoples[3])
    })

    it('breaks down by an initial-event property, by bitmaps and per user alike', async () => {
      const expected = [
        ['$ALL', 8, [6, 6, 4, 4]],
        // a, c, f to +3 (f's tie counts under both channels), e to +1, d to +0 (from its ads signup), h never
        ['ads', 6, [5, 4, 3, 3]],
        // b, f to +3, d to +1 (from its seo signup on 01-02), g never
        ['seo', 4, [3, 3, 2, 2]],
      ]
      const channel = await analyze({ ...base, ...byChannel, retentionMode: 'onOrAfter' })
      expect(counts(channel.body.rows)).toEqual(expected)
      const tags = await analyze({ ...base, ...byTags, retentionMode: 'onOrAfter' })
      expect(counts(tags.body.rows)).toEqual(expected)
    })

    it('breaks down by a return-event property: a user counts under d at +k with a return carrying d at +k or later', async () => {
      const res = await analyze({ ...base, byField: { expression: 'event.visit.page' }, byFieldIndex: 2, retentionMode: 'onOrAfter' })
      expect(counts(res.body.rows)).toEqual([
        ['$ALL', 8, [6, 6, 4, 4]],
        // home: a +1, b +3, d +1, e +1 (f's and g's home visits are past their periods)
        ['home', 8, [4, 4, 1, 1]],
        ['list', 8, [3, 3, 3, 3]],
      ])
    })

    it('leaves cells not observed yet null, as on does', async () => {
      // the latest data is 01-07: cohort 01-05 sees +0..+2 only; 01-04 has no initial user: zeros, not nulls
      const res = await analyze({ ...base, fromDate: '2024-01-03', toDate: '2024-01-05', retentionMode: 'onOrAfter' })
      expect(counts(res.body.rows)).toEqual([
        ['$ALL', 3, [2, 1, 1, 1]],
        ['2024/01/03 00:00:00', 3, [2, 1, 1, 1]],
        ['2024/01/04 00:00:00', 0, [0, 0, 0, 0]],
        ['2024/01/05 00:00:00', 0, [0, 0, 0, null]],
      ])
    })
  })

  describe('retention from the first-ever initial event (firstTime)', () => {
    it('puts each user in the cohort of their first-ever initial event only, none for a start before the range', async () => {
      const res = await analyze({ ...base, firstTime: true })
      expect(res.status).toBe(200)
      expect(counts(res.body.rows)).toEqual([
        // e first signed up on 2023-12-30: in no cohort; d only in 01-02's
        ['$ALL', 7, [0, 2, 0, 4]],
        ['2024/01/01 00:00:00', 3, [0, 1, 0, 2]],
        ['2024/01/02 00:00:00', 2, [0, 1, 0, 1]],
        ['2024/01/03 00:00:00', 2, [0, 0, 0, 1]],
      ])
    })

    it('combines with onOrAfter, and counts both events of a tie at the first instant', async () => {
      const res = await analyze({ ...base, firstTime: 'true', retentionMode: 'onOrAfter' })
      expect(counts(res.body.rows)).toEqual([
        ['$ALL', 7, [5, 5, 4, 4]],
        ['2024/01/01 00:00:00', 3, [2, 2, 2, 2]],
        ['2024/01/02 00:00:00', 2, [2, 2, 1, 1]],
        ['2024/01/03 00:00:00', 2, [1, 1, 1, 1]],
      ])
      const channel = await analyze({ ...base, ...byChannel, firstTime: true, retentionMode: 'onOrAfter' })
      // f's two first signups (ads and seo, same millisecond) put f under both; d's later ads signup does not count
      expect(counts(channel.body.rows)).toEqual([
        ['$ALL', 7, [5, 5, 4, 4]],
        ['ads', 4, [3, 3, 3, 3]],
        ['seo', 4, [3, 3, 2, 2]],
      ])
    })

    it('looks for the first occurrence with the initial event filter applied', async () => {
      // e's first ads signup is 2023-12-30, d's is 01-03 (its 01-02 signup was seo)
      const ads = { expression: 'event.signup', filter: { conditions: [{ expression: 'event.signup.channel', function: 'EQ', params: ['ads'] }] } }
      const res = await analyze({ ...base, firstEvent: ads, firstTime: true })
      expect(counts(res.body.rows)).toEqual([
        ['$ALL', 5, [1, 1, 0, 3]],
        ['2024/01/01 00:00:00', 1, [0, 1, 0, 1]],
        ['2024/01/02 00:00:00', 1, [0, 0, 0, 1]],
        ['2024/01/03 00:00:00', 3, [1, 0, 0, 1]],
      ])
    })
  })

  describe('retention options by week', () => {
    it('counts whole weeks from Monday in either mode, first-time cohorts leaving out a start in an earlier week', async () => {
      const week = { ...base, fromDate: '2024-01-01', toDate: '2024-01-07', unit: 'WEEK', duration: 1 }
      // every visit is in the week of Monday 01-01 (f's last, 01-07, is its Sunday); only h never returns
      const expected = (total: number, back: number) => [
        // the next week starts on 01-08, after the latest data: not observed yet
        ['$ALL', total, [back, null]],
        ['2024/01/01 00:00:00', total, [back, null]],
      ]
      expect(counts((await analyze({ ...week, retentionMode: 'on' })).body.rows)).toEqual(expected(8, 7))
      expect(counts((await analyze({ ...week, retentionMode: 'onOrAfter' })).body.rows)).toEqual(expected(8, 7))
      // e first signed up on 2023-12-30, a Saturday of the week before
      expect(counts((await analyze({ ...week, retentionMode: 'onOrAfter', firstTime: true })).body.rows)).toEqual(expected(7, 6))
    })
  })

  describe('retention options documented', () => {
    it('lists retentionMode and firstTime in the request schema of /openapi.json', async () => {
      const doc = (await host.server.call('GET', '/openapi.json')).body
      const props = doc.paths['/uba/api/retentions/analyze'].post.requestBody.content['application/json'].schema.properties
      expect(props.retentionMode.enum).toEqual(['on', 'onOrAfter'])
      expect(props.retentionMode.description).toContain('later period')
      expect(props.firstTime.type).toBe('boolean')
      expect(props.firstTime.description).toContain('first-ever')
    })
  })

  describe('retention options refused', () => {
    it.each([
      [{ retentionMode: 'sometimes' }, ['retentionMode']],
      [{ retentionMode: 1 }, ['retentionMode']],
      [{ firstTime: 'yes' }, ['firstTime']],
      [{ firstTime: 1 }, ['firstTime']],
      [{ retentionMode: 'onOrAfter', measures: [{ expression: 'event.visit.stay', aggregator: 'SUM' }] }, ['measures']],
    ])('answers %j with 400 naming %j', async (override, data) => {
      const res = await analyze({ ...base, ...override })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe(400)
      expect(res.body.data).toEqual(data)
    })
  })
})
