/**
 * The events of the funnel and retention twin tests (analysis-funnel.test.ts,
 * analysis-retention.test.ts), also the data of paths-current.test.ts.
 */

export const ZONE = 'Asia/Shanghai'
/** Local Shanghai time (UTC+8) with seconds as epoch ms. */
const sh = (local: string) => Date.parse(`${local.replace(' ', 'T')}+08:00`)
const rec = (xwho: string, xwhat: string, local: string, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen: sh(local), xcontext })

/**
 * Shanghai local times (UTC+8); funnel view -> cart -> pay, window 1 DAY, range 2024-01-01..03:
 * u1 view 01-01 10:00 (src ad, plan A, tags p q), cart 10:05 (plan A), pay 10:10 (plan B)  -> 3 (300 s, 300 s)
 * u2 view 01-02 00:30 (src seo; UTC still 01-01), cart and leave at the same ms    -> 3? no pay: 2 (0 s), entry day 01-02
 * u3 view 01-01 12:00 (src ad, tags p), share 12:30, cart 13:00, pay 01-02 12:00:00.000   -> 3 (3600 s, 82800 s): the window's last ms
 * u4 view 01-01 12:00 (src ad), cart 13:00, pay 01-02 12:00:00.001               -> 2 (3600 s): one ms too late
 * u5 view 01-03 09:00, leave 09:01, cart 09:02                                     -> 2 (120 s)
 * u6 cart 01-01 08:00, view 09:00                                                  -> 1 (in any order 2)
 * u7 view 2023-12-31 23:00, cart 2024-01-01 01:00                                  -> not in the range; the previous range's 12-31: 2 (7200 s)
 * share and leave are no step.
 */
export const FUNNEL_LINES = [
  rec('u1', 'view', '2024-01-01 10:00:00', { src: 'ad', plan: 'A', tags: ['p', 'q'] }),
  rec('u1', 'cart', '2024-01-01 10:05:00', { plan: 'A' }),
  rec('u1', 'pay', '2024-01-01 10:10:00', { plan: 'B' }),
  rec('u2', 'view', '2024-01-02 00:30:00', { src: 'seo' }),
  rec('u2', 'cart', '2024-01-02 00:30:00'),
  rec('u2', 'leave', '2024-01-02 00:30:00'),
  rec('u3', 'view', '2024-01-01 12:00:00', { src: 'ad', tags: ['p'] }),
  rec('u3', 'share', '2024-01-01 12:30:00'),
  rec('u3', 'cart', '2024-01-01 13:00:00'),
  rec('u3', 'pay', '2024-01-02 12:00:00.000'),
  rec('u4', 'view', '2024-01-01 12:00:00', { src: 'ad' }),
  rec('u4', 'cart', '2024-01-01 13:00:00'),
  rec('u4', 'pay', '2024-01-02 12:00:00.001'),
  rec('u5', 'view', '2024-01-03 09:00:00'),
  rec('u5', 'leave', '2024-01-03 09:01:00'),
  rec('u5', 'cart', '2024-01-03 09:02:00'),
  rec('u6', 'cart', '2024-01-01 08:00:00'),
  rec('u6', 'view', '2024-01-01 09:00:00'),
  rec('u7', 'view', '2023-12-31 23:00:00'),
  rec('u7', 'cart', '2024-01-01 01:00:00'),
]

/**
 * Shanghai local times (UTC+8); initial event login, return event buy, DAY, 2024-01-01..03, duration 2:
 * r1 login 01-01 09:00 (ch web); buy 01-02 00:10 (ch web, amount 5; UTC still 01-01) -> from 01-01 at +1
 * r2 login 01-01 23:59 (ch app), buy at the same ms (no ch, amount 10); login 01-02 10:00 (ch web);
 *    buy 01-04 10:00 (no ch, amount 20)                                                         -> from 01-01 at +0; from 01-02 at +2
 * r3 login 01-02 08:00 (ch app)                                                        -> never back
 * r4 login 2023-12-31 10:00 (its first ever); login 01-03 10:00 (ch web); buy 11:00 (ch app, amount 7) -> from 01-03 at +0
 * r5 buy 01-02 10:00                                                                   -> no login: in no cohort
 * The data ends 01-04: 01-03's +2 (01-05) is not observed yet (null).
 */
export const RETENTION_LINES = [
  rec('r1', 'login', '2024-01-01 09:00:00', { ch: 'web' }),
  rec('r1', 'buy', '2024-01-02 00:10:00', { ch: 'web', amount: 5 }),
  rec('r2', 'login', '2024-01-01 23:59:00', { ch: 'app' }),
  rec('r2', 'buy', '2024-01-01 23:59:00', { amount: 10 }),
  rec('r2', 'login', '2024-01-02 10:00:00', { ch: 'web' }),
  rec('r2', 'buy', '2024-01-04 10:00:00', { amount: 20 }),
  rec('r3', 'login', '2024-01-02 08:00:00', { ch: 'app' }),
  rec('r4', 'login', '2023-12-31 10:00:00'),
  rec('r4', 'login', '2024-01-03 10:00:00', { ch: 'web' }),
  rec('r4', 'buy', '2024-01-03 11:00:00', { ch: 'app', amount: 7 }),
  rec('r5', 'buy', '2024-01-02 10:00:00'),
]
