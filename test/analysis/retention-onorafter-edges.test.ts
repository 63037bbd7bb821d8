import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'

const utc = (at: string) => Date.parse(`${at.replace(' ', 'T')}:00Z`)
const rec = (xwho: string, xwhat: string, at: string, xcontext: Record<string, unknown>) => JSON.stringify({ xwho, xwhat, xwhen: utc(at), xcontext })
const signup = (who: string, at: string, channel: string) => rec(who, 'signup', at, { channel, tags: [channel] })
const visit = (who: string, at: string, page: string) => rec(who, 'visit', at, { page, pages: [page] })

/*
 * Edges of "on or after" where a user's offsets from several cohorts or labels meet. UTC project,
 * range 01-01..01-04 (periods p0..p3), duration 3: cohort p3 follows up to p6 (01-07); the latest
 * data is 01-08, so every cell is observed.
 *   a  two ads signups in p0; visits p0 20:00 (home: +0, after both) and p2 (list: +2)
 *   b  ads signup p0, seo signup p2; visit p3 (home: +3 from p0, +1 from p2)
 *   c  seo signups p1 and p3; visits p2 (list: +1 from p1, before p3) and p6 (home: +5 from p1,
 *      not followed; +3 from p3)
 *   m  mail signup p3 (mail starts in the last period only); visit p5 (cart: a page seen only
 *      after the range, +2)
 *   n  mail and ads signups at the same instant in p3; never back
 *   q  ads signup p1; visit p0 only (before the signup: never back)
 *   r  a visit, no signup (in no cohort); z  an unrelated event on 01-08
 * Latest offset back per cohort: a 2 (p0); b 3 (p0), 1 (p2); c 1 (p1), 3 (p3); m 2 (p3).
 */
describe.each(ENGINES)('retention on or after, edges, on %s', (engine) => {
  const host = useEngine(engine)
  let p: Project

  beforeAll(async () => {
    p = await host.project('retedges', 'UTC')
    const lines = [
      signup('a', '2024-01-01 10:00', 'ads'),
      signup('a', '2024-01-01 15:00', 'ads'),
      visit('a', '2024-01-01 20:00', 'home'),
      visit('a', '2024-01-03 10:00', 'list'),
      signup('b', '2024-01-01 11:00', 'ads'),
      signup('b', '2024-01-03 11:00', 'seo'),
      visit('b', '2024-01-04 11:00', 'home'),
      signup('c', '2024-01-02 12:00', 'seo'),
      signup('c', '2024-01-04 12:00', 'seo'),
      visit('c', '2024-01-03 12:00', 'list'),
      visit('c', '2024-01-07 12:00', 'home'),
      signup('m', '2024-01-04 13:00', 'mail'),
      visit('m', '2024-01-06 13:00', 'cart'),
      signup('n', '2024-01-04 14:00', 'mail'),
      signup('n', '2024-01-04 14:00', 'ads'),
      signup('q', '2024-01-02 15:00', 'ads'),
      visit('q', '2024-01-01 15:00', 'home'),
      visit('r', '2024-01-02 16:00', 'home'),
      rec('z', 'other', '2024-01-08 17:00', {}),
    ]
    const job = await importAndWait(host.server, p, { path: fixture('ret-edges.jsonl', lines.join('\n')) })
    if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
  })

  const analyze = (body: Record<string, unknown>) =>
    host.server.call('POST', '/uba/api/retentions/analyze', {
      headers: p,
      body: { firstEvent: { expression: 'event.signup' }, secondEvent: { expression: 'event.visit' }, crowds: ['$ALL'], fromDate: '2024-01-01', toDate: '2024-01-04', duration: 3, unit: 'DAY', ...body },
    })
  type Row = { byValue: string; totalPeople: number; retentionPeoples: (number | null)[] }
  const counts = (rows: Row[]) => rows.map((r) => [r.byValue, r.totalPeople, r.retentionPeoples])
  const by = (expression: string, byFieldIndex: number) => ({ byField: { expression }, byFieldIndex })

  describe('retention on or after: edges of the per-label form', () => {
    it('counts each cohort up to its latest offset back, a same-period return counting at +0', async () => {
      const res = await analyze({ retentionMode: 'onOrAfter' })
      expect(res.status).toBe(200)
      expect(counts(res.body.rows)).toEqual([
        // per user, the latest offset over their cohorts: a 2, b 3, c 3 (from p3), m 2
        ['$ALL', 6, [4, 4, 4, 2]],
        ['2024/01/01 00:00:00', 2, [2, 2, 2, 1]],
        ['2024/01/02 00:00:00', 2, [1, 1, 0, 0]],
        ['2024/01/03 00:00:00', 1, [1, 1, 0, 0]],
        ['2024/01/04 00:00:00', 3, [2, 2, 2, 1]],
      ])
    })

    it('gives a user under each label the latest offset from that label\'s cohorts, by bitmaps and per user alike', async () => {
      const expected = [
        ['$ALL', 6, [4, 4, 4, 2]],
        // a to +2 (two signups in p0), b to +3 (from p0), n and q never back
        ['ads', 4, [2, 2, 2, 1]],
        // b to +1 (from p2: its +3 is an ads cohort's), c to +3 (from p3: its p1 cohort reaches +1 only)
        ['seo', 2, [2, 2, 1, 1]],
        // a value whose cohort is the last period only: m to +2, n never back
        ['mail', 2, [1, 1, 1, 0]],
      ]
      const channel = await analyze({ ...by('event.signup.channel', 1), retentionMode: 'onOrAfter' })
      expect(counts(channel.body.rows)).toEqual(expected)
      const tags = await analyze({ ...by('event.signup.tags', 1), retentionMode: 'onOrAfter' })
      expect(counts(tags.body.rows)).toEqual(expected)
    })

    it('counts the exact period alike with a breakdown (the cells merged over cohorts before they are counted)', async () => {
      const expected = [
        ['$ALL', 6, [1, 2, 2, 2]],
        ['ads', 4, [1, 0, 1, 1]],
        ['seo', 2, [0, 2, 0, 1]],
        ['mail', 2, [0, 0, 1, 0]],
      ]
      expect(counts((await analyze(by('event.signup.channel', 1))).body.rows)).toEqual(expected)
      expect(counts((await analyze(by('event.signup.tags', 1))).body.rows)).toEqual(expected)
    })

    it('breaks down by the return event\'s value, a value seen only after the range included', async () => {
      const expected = [
        ['$ALL', 6, [4, 4, 4, 2]],
        // home: a +0, b +3 (p0), c +3 (p3); q's home visit is before its cohort
        ['home', 6, [3, 2, 2, 2]],
        // list: a +2, c +1 (from p1)
        ['list', 6, [2, 2, 1, 0]],
        ['cart', 6, [1, 1, 1, 0]],
      ]
      const page = await analyze({ ...by('event.visit.page', 2), retentionMode: 'onOrAfter' })
      expect(counts(page.body.rows)).toEqual(expected)
      const pages = await analyze({ ...by('event.visit.pages', 2), retentionMode: 'onOrAfter' })
      expect(counts(pages.body.rows)).toEqual(expected)
    })
  })
})
