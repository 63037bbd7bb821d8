/**
 * The users of the cohort and people tests on both engines, in an Asia/Shanghai project (UTC+8):
 *
 *   a      profile city X, age 30, vip true, $signup_time 2023-12-31 09:30:05 (set 01-01 08:00)
 *          view 01-01 23:30 price 10 | view 01-02 00:30 price 20 (both 2024-01-01 in UTC) | pay 01-03 12:00 amount 50, first true, paid_at 2024-01-03 12:00:05
 *   b      profile city Y, age 20; view 01-02 10:00 price 600
 *   c      no profile; view 01-03 09:00 price 800
 *   dan    anon-d viewed 01-01 10:00 price 5, then `$alias` dan <- anon-d (01-01 11:00); dan pay 01-02 12:00 amount 7
 *          (one user: both ids, named dan)
 *   e      profile city X, no events
 */
export const ZONE = 'Asia/Shanghai'

/** Local Shanghai time yyyy-MM-dd HH:mm as epoch ms. */
export const sh = (local: string) => Date.parse(`${local.replace(' ', 'T')}:00+08:00`)
const rec = (xwho: string, xwhat: string, local: string, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen: sh(local), xcontext })

export const cohortData = [
  rec('a', '$profile_set', '2024-01-01 08:00', { city: 'X', age: 30, vip: true, $signup_time: '2023-12-31 09:30:05' }),
  rec('b', '$profile_set', '2024-01-01 08:00', { city: 'Y', age: 20, vip: false }),
  rec('e', '$profile_set', '2024-01-01 08:00', { city: 'X' }),
  rec('anon-d', 'view', '2024-01-01 10:00', { price: 5 }),
  rec('dan', '$alias', '2024-01-01 11:00', { $original_id: 'anon-d' }),
  rec('a', 'view', '2024-01-01 23:30', { price: 10 }),
  rec('a', 'view', '2024-01-02 00:30', { price: 20 }),
  rec('b', 'view', '2024-01-02 10:00', { price: 600 }),
  rec('dan', 'pay', '2024-01-02 12:00', { amount: 7 }),
  rec('c', 'view', '2024-01-03 09:00', { price: 800 }),
  rec('a', 'pay', '2024-01-03 12:00', { amount: 50, first: true, paid_at: '2024-01-03 12:00:05' }),
]
