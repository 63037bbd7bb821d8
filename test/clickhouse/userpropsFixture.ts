/**
 * The users of the user-property tests (analysis-userprops.test.ts, analysis-current.test.ts).
 *
 * Users (Shanghai local times, 2024-01-01..03):
 *   a  profile {tier gold, city PA, age 30, tags [x, y], signed up 2023-12-31 00:00}:
 *      views 01-01 (city X, 10), 01-02 (city X, 20)
 *   b  profile {age 40}, tier and city NULL: view 01-02 (city Y, 600), pay 01-02
 *   c  no profile row:                       view 01-03 (no city, 800)
 *   d  merged: d0 (anonymous, profile {tier silver, signed up 01-01 11:00}) views 01-01 (city Y, 5);
 *      `$alias` d <- d0 on 01-02 09:00, then d sets {age 50}, views 01-02 (no city, 7), pays 01-03
 * `city` is both an event property (X/Y on views) and a user property (PA): `user.city` reads the
 * profile's; `tier` and `age` exist only as user properties.
 */

export const ZONE = 'Asia/Shanghai'
const sh = (local: string) => Date.parse(`${local.replace(' ', 'T')}:00+08:00`)
const rec = (xwho: string, xwhat: string, local: string, xcontext: Record<string, unknown> = {}) => JSON.stringify({ xwho, xwhat, xwhen: sh(local), xcontext })

export const USER_LINES = [
  rec('a', '$profile_set', '2024-01-01 08:00', { tier: 'gold', city: 'PA', age: 30, tags: ['x', 'y'], $signup_time: '2023-12-31 00:00:00' }),
  rec('b', '$profile_set', '2024-01-01 08:00', { age: 40 }),
  rec('d0', '$profile_set', '2024-01-01 08:00', { tier: 'silver', $signup_time: '2024-01-01 11:00:00' }),
  rec('a', 'view', '2024-01-01 10:00', { city: 'X', price: 10 }),
  rec('d0', 'view', '2024-01-01 12:00', { city: 'Y', price: 5 }),
  rec('d', '$alias', '2024-01-02 09:00', { $original_id: 'd0' }),
  rec('d', '$profile_set', '2024-01-02 09:30', { age: 50 }),
  rec('a', 'view', '2024-01-02 10:00', { city: 'X', price: 20 }),
  rec('d', 'view', '2024-01-02 10:30', { price: 7 }),
  rec('b', 'view', '2024-01-02 11:00', { city: 'Y', price: 600 }),
  rec('b', 'pay', '2024-01-02 12:00', { amount: 30 }),
  rec('c', 'view', '2024-01-03 09:00', { price: 800 }),
  rec('d', 'pay', '2024-01-03 12:00', { amount: 50 }),
]
