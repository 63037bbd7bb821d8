import type { Warehouse } from '../../../warehouse'
import { CARRIERS, CHANNELS, CITIES, DEVICES, GENDERS, HOURS, LANGUAGES, NETWORKS, PAYMENT_METHODS, PLATFORMS, RELEASES, SIGN_UP_METHODS } from './catalogue'
import { CATEGORIES, CATEGORY_WEIGHTS, KEYWORDS, PRODUCTS } from './products'
import type { SampleSql } from './sql'

/**
 * The sample shop, generated inside the warehouse in a few set-based statements (temporary tables,
 * then INSERTs into the warehouse tables), its engine text written by the dialect. Users arrive over
 * the window (more later on, more at weekends and during a three-day sale), come back with a
 * retention that decays with the days since their first visit, and in each session may search,
 * view products, add some to the cart, check out and pay. Every draw depends on traits, so
 * breakdowns differ the way real data does.
 */

export interface SampleWindow {
  users: number
  days: number
  seed: number
  /** First day of the window, yyyy-MM-dd, in the project's time zone. */
  startDate: string
  /** Weekday of the first day: 0 Monday ... 6 Sunday. */
  startWeekday: number
}

/** Where the three sale days start (share of the window); windows under two weeks have none. */
function saleStart(days: number): number {
  return days >= 14 ? Math.floor(days * 0.7) : -10
}

async function lookupTables(conn: Warehouse, s: SampleSql): Promise<void> {
  await conn.run(s.weightedTable('s_platforms', PLATFORMS.map((p) => ({ ...p }))))
  await conn.run(s.weightedTable('s_devices', DEVICES.map((d) => ({ ...d })), 'platform'))
  await conn.run(s.weightedTable('s_cities', CITIES.map((c) => ({ ...c }))))
  await conn.run(s.weightedTable('s_channels', CHANNELS.map((c) => ({ ...c }))))
  await conn.run(s.weightedTable('s_hours', HOURS.map((weight, hour) => ({ hour, weight }))))
}

async function days(conn: Warehouse, s: SampleSql, w: SampleWindow): Promise<void> {
  const sale = saleStart(w.days)
  const { d } = s
  await conn.run(d.tempTableAs('s_days', `
    WITH d AS (
      SELECT ${s.int('d')} AS d, DATE ${s.value(w.startDate)} + ${s.int('d')} AS day,
        (${w.startWeekday} + d) % 7 >= 5 AS weekend, d BETWEEN ${sale} AND ${sale + 2} AS sale
      FROM ${d.seriesTable('0', String(w.days), 't', 'd')}
    ), weighted AS (
      SELECT *, (1 + 1.1 * d / ${w.days}) * CASE WHEN weekend THEN 1.15 ELSE 1 END * CASE WHEN sale THEN 1.8 ELSE 1 END AS weight FROM d
    )
    SELECT d, day, sale,
      ${d.epochSeconds(d.cast('day', 'instant'))} AS t_start,
      ${d.epochSeconds(d.cast('(day + 1)', 'instant'))} - ${d.epochSeconds(d.cast('day', 'instant'))} AS len,
      ${d.dayNumber('day')} AS ds,
      (sum(weight) OVER (ORDER BY d) - weight) / sum(weight) OVER () AS cum
    FROM weighted`))
}

/** One row per user: first day, device, place, channel, hidden engagement and profile traits. */
async function users(conn: Warehouse, s: SampleSql, w: SampleWindow): Promise<void> {
  const r = (salt: number) => s.draw(salt, 'uid')
  const { d } = s
  const fav = s.pick('r_fav', CATEGORIES.map((c, i) => [i, CATEGORY_WEIGHTS[c]]))
  await conn.run(d.tempTableAs('s_users', `
    WITH r AS (
      SELECT uid, 'u' || lpad(${s.text('uid')}, 7, '0') AS xwho,
        ${r(1)} AS r_day, ${r(2)} AS r_platform, ${r(3)} AS r_device, ${r(4)} AS r_city, ${r(5)} AS r_channel,
        sqrt(-2 * ln(1 - ${r(6)})) * cos(2 * pi() * ${r(7)}) AS z, ${r(8)} AS r_lag, ${r(9)} AS r_fav,
        ${r(10)} AS r_sign, ${r(11)} AS r_method, ${r(12)} AS r_gender, ${r(13)} AS r_age, ${r(14)} AS r_os,
        ${r(15)} AS r_carrier, ${r(16)} AS r_lang, ${r(17)} AS r_mail
      FROM ${d.seriesTable('1', String(w.users + 1), 't', 'uid')}
    )
    SELECT r.uid, r.xwho, d.d AS first_d,
      p.platform, v.os, ${d.item('v.osversions', `1 + ${s.int(`floor(r.r_os * ${d.length('v.osversions')})`)}`)} AS os_version,
      v.manufacturer, v.model, v.browser, v.browserversion AS browser_version, v.width, v.height,
      p.lib, p.libversion AS lib_version,
      c.city, c.province, c.country,
      CASE WHEN p.platform <> 'Web' AND c.country = 'China' THEN ${s.pick('r.r_carrier', CARRIERS)} END AS carrier,
      ch.source AS utm_source, ch.medium AS utm_medium, ch.campaign AS utm_campaign,
      exp(0.5 * r.z - 0.125) AS eng,
      exp(0.5 * r.z - 0.125) * p.ret * ch.ret AS ret_mult,
      pow(exp(0.5 * r.z - 0.125), 0.35) * p.conv * ch.conv AS conv_mult,
      p.pay AS pay_rate,
      ${s.int('floor(-ln(1 - r.r_lag) * 9)')} AS lag,
      ${fav} AS fav,
      r.r_sign < p.signup * sqrt(ch.conv) AS signs_up,
      ${s.pick('r.r_method', SIGN_UP_METHODS)} AS signup_method,
      ${s.pick('r.r_gender', GENDERS)} AS gender,
      18 + ${s.int('floor(47 * pow(r.r_age, 1.7))')} AS age,
      ${s.pick('r.r_lang', LANGUAGES)} AS language,
      r.r_mail
    FROM r
    ${d.pickJoin('s_days', 'd', 'r.r_day')}
    ${d.pickJoin('s_platforms', 'p', 'r.r_platform')}
    ${d.pickJoin('s_devices', 'v', 'r.r_device', 'p.platform = v.platform')}
    ${d.pickJoin('s_cities', 'c', 'r.r_city')}
    ${d.pickJoin('s_channels', 'ch', 'r.r_channel')}`))
}

/** The app version a session runs: the newest release out before the user installed or last upgraded. */
function appVersion(s: SampleSql, w: SampleWindow): string {
  const effective = 'greatest(first_d, d - lag)'
  const branches = RELEASES.slice(1).reverse().map(([v, at]) => `WHEN ${effective} >= ${Math.floor(at * w.days)} THEN ${s.value(v)}`)
  return `CASE WHEN platform = 'Web' THEN NULL ${branches.join(' ')} ELSE ${s.value(RELEASES[0][0])} END`
}

/**
 * The product (its position in PRODUCTS) for each category and popularity bucket 0..99, as one
 * list indexed by category * 100 + bucket: the first products of a category (its bestsellers)
 * take most buckets. A constant list is cheaper than a join for the millions of rows that look
 * a product up.
 */
const BUCKETS = CATEGORIES.flatMap((category) => {
  const range = PRODUCTS.map((p, idx) => ({ p, idx })).filter(({ p }) => p.category === category)
  return Array.from({ length: 100 }, (_, b) => range[Math.floor(range.length * Math.pow(b / 100, 1.7))].idx)
})

/**
 * The i-th product a session views, and whether it goes into the cart: a relation over `source`
 * (rows with sid, i, fav, conv_mult, sale; i NULL for rows that are no product view) that adds
 * `product` (a position in PRODUCTS), `price`, `carted` and `quantity`. The same draws give the
 * same product wherever it is needed (the cart totals and the events). Dearer products are carted
 * less often: the chance scales with (price / 150)^-0.3.
 */
export function viewedProducts(s: SampleSql, source: string): string {
  const r = (salt: number) => s.draw(salt, 'sid', 'i')
  const anyCategory = s.pick('r_any', CATEGORIES.map((c, i) => [i, CATEGORY_WEIGHTS[c]]))
  const price = s.at(PRODUCTS.map((p) => p.price), 'product')
  return `(SELECT *,
        ${price} AS price,
        product IS NOT NULL AND r_cart < least(0.5, 0.075 * conv_mult * CASE WHEN sale THEN 1.25 ELSE 1 END * pow(${price} / 150, -0.3)) AS carted,
        1 + ${s.int('(r_two < 0.16)')} + ${s.int('(r_three < 0.05)')} AS quantity
      FROM (SELECT *,
          CASE WHEN i IS NOT NULL THEN ${s.at(BUCKETS, `(CASE WHEN ${r(41)} < 0.55 THEN fav ELSE ${anyCategory} END) * 100 + ${s.int(`floor(${r(43)} * 100)`)}`)} END AS product,
          CASE WHEN i IS NOT NULL THEN ${r(44)} END AS r_cart,
          CASE WHEN i IS NOT NULL THEN ${r(45)} END AS r_two,
          CASE WHEN i IS NOT NULL THEN ${r(49)} END AS r_three
        FROM (SELECT *, CASE WHEN i IS NOT NULL THEN ${r(42)} END AS r_any FROM ${source})))`
}

/**
 * One row per session. Retention: on day k after the first visit a user comes back with
 * probability (0.32 k^-0.62 + 0.03) times the user's retention factor, a little more at
 * weekends and during the sale. An active day has one to three sessions, numbered j in time
 * order; a start time follows the daily rhythm (the inverse of its distribution, continuous, so
 * that ordered draws give ordered times).
 */
/** The columns of `active` in sessions(), which a session row keeps. */
const ACTIVE_COLUMNS = ['uid', 'distinct_id', 'd', 'k', 'first_d', 'platform', 'eng', 'conv_mult', 'lag', 'fav', 'signs_up', 'day_key', 'n_sessions']

async function sessions(conn: Warehouse, s: SampleSql, w: SampleWindow): Promise<void> {
  const sale = saleStart(w.days)
  const { d } = s
  const r = (salt: number, key: string, sub?: string) => s.draw(salt, key, sub)
  const keywords = d.item(d.list(CATEGORIES.map((c) => s.list(KEYWORDS[c]))), 'fav + 1')
  const slotsOf = '6 + 2 * n_views'
  await conn.run(d.tempTableAs('s_sessions', `
    WITH active AS (
      SELECT uid, distinct_id, first_d + k AS d, k, first_d, platform, eng, conv_mult, lag, fav, signs_up, uid * 4096 + k * 4 AS day_key,
        1 + ${s.int(`(${r(22, 'uid', 'k')} < 0.25 * eng)`)} + ${s.int(`(${r(23, 'uid', 'k')} < 0.07 * eng)`)} AS n_sessions
      FROM s_users u, ${d.seriesTable('0', `${w.days} - u.first_d`, 't', 'k')}
      WHERE k = 0 OR ${r(21, 'uid', 'k')} < (0.32 * pow(k, -0.62) + 0.03) * ret_mult
        * CASE WHEN (${w.startWeekday} + first_d + k) % 7 >= 5 THEN 1.08 ELSE 1 END
        * CASE WHEN first_d + k BETWEEN ${sale} AND ${sale + 2} THEN 1.3 ELSE 1 END
    ), drawn AS (
      SELECT *, ${r(31, 'day_key', '0')} AS s0, ${r(31, 'day_key', '1')} AS s1, ${r(31, 'day_key', '2')} AS s2 FROM active
    ), session AS (
      SELECT ${d.allColumnsBut('a', ['s0', 's1', 's2'], ACTIVE_COLUMNS)}, j, day_key + j AS sid,
        CASE WHEN n_sessions = 1 THEN s0
          WHEN n_sessions = 2 THEN CASE WHEN j = 0 THEN least(s0, s1) ELSE greatest(s0, s1) END
          WHEN j = 0 THEN least(s0, s1, s2) WHEN j = 2 THEN greatest(s0, s1, s2)
          ELSE s0 + s1 + s2 - least(s0, s1, s2) - greatest(s0, s1, s2) END AS r_start
      FROM drawn a JOIN (VALUES (0), (1), (2)) t(j) ON j < a.n_sessions
    ), shaped AS (
      SELECT s.*, d.ds, d.t_start, d.len, d.sale,
        (h.hour + (s.r_start - h.cum) / h.share) / 24 AS day_share,
        CASE WHEN ${r(32, 's.sid')} < 0.18 THEN 0 ELSE 1 + ${s.int(`least(9, floor(-ln(1 - ${r(33, 's.sid')}) * 1.7 * sqrt(eng)))`)} END AS n_views,
        14 + 50 * ${r(35, 's.sid')} AS pace,
        ${r(37, 's.sid')} AS r_network, ${r(39, 's.sid')} AS r_keyword
      FROM session s
      JOIN s_days d USING (d)
      ${d.pickJoin('s_hours', 'h', 's.r_start')}
    )
    SELECT uid, distinct_id, sid, k, j, ds, sale, platform, fav, conv_mult, n_views, ${s.int(`(${slotsOf})`)} AS n_slots,
      -- seconds between slots; a session late in the day goes faster, so that it ends that day
      least(pace, (len * (1 - day_share) - 1) / (${slotsOf} + 1)) AS step,
      ${r(34, 'sid')} < 0.32 AS search,
      k = 0 AND j = 0 AND signs_up AS sign_up,
      t_start + day_share * len AS t0,
      CASE WHEN platform <> 'Web' THEN ${s.pick('r_network', NETWORKS)} END AS network,
      ${appVersion(s, w)} AS app_version,
      ${d.item(keywords, `1 + ${s.int(`floor(r_keyword * ${d.length(keywords)})`)}`)} AS keyword
    FROM shaped`))
}

/**
 * When the event of a slot happens, in epoch seconds: slots follow each other `step` seconds
 * apart, each event somewhere in the first 70% of its slot, the first one at the very start of
 * the session (so that sessions keep their order). `of` prefixes the session's columns.
 */
export function eventTime(s: SampleSql, of: string, slot = 'slot'): string {
  return `(${of}t0 + ${of}step * (${slot} + 0.7 * CASE WHEN ${slot} = 0 THEN 0 ELSE ${s.draw(51, `${of}sid`, slot)} END))`
}

/** When each user who signs up does so: the event in slot 1 of the first session; NULL for the others. */
async function signUps(conn: Warehouse, s: SampleSql): Promise<void> {
  await conn.run(s.d.tempTableAs('s_users', `
    SELECT u.*, ${eventTime(s, 's.', '1')} AS signup_at
    FROM s_users u LEFT JOIN s_sessions s ON s.sid = u.uid * 4096 AND s.sign_up`))
}

/**
 * What each session's cart holds (units and value, sessions without a cart left out), then
 * whether it was checked out and paid, the coupon, the amount and the payment method.
 */
async function orders(conn: Warehouse, s: SampleSql): Promise<void> {
  const r = (salt: number) => s.draw(salt, 'c.sid')
  const payment = PLATFORMS.map((p) => `WHEN '${p.platform}' THEN ${s.pick('r_method', PAYMENT_METHODS[p.platform])}`).join(' ')
  await conn.run(s.d.tempTableAs('s_orders', `
    WITH views AS (
      SELECT sid, i, fav, conv_mult, sale FROM s_sessions JOIN ${s.d.seriesTable('0', '10', 't', 'i')} ON i < n_views
    ), cart AS (
      SELECT sid, ${s.int('sum(quantity)')} AS item_count, round(sum(quantity * price), 2) AS cart_value
      FROM ${viewedProducts(s, 'views')} v WHERE carted GROUP BY sid
    ), drawn AS (
      SELECT c.*, s.distinct_id, u.platform, u.conv_mult, u.pay_rate,
        ${r(46)} AS r_checkout, ${r(47)} AS r_pay, ${r(48)} AS r_coupon, ${r(38)} AS r_method
      FROM cart c JOIN s_sessions s USING (sid) JOIN s_users u USING (uid)
    )
    SELECT sid, distinct_id, item_count,
      r_checkout < least(0.9, 0.5 * sqrt(conv_mult)) AS checkout,
      r_checkout < least(0.9, 0.5 * sqrt(conv_mult)) AND r_pay < pay_rate AS pay,
      r_coupon < 0.28 AS coupon,
      round(cart_value * CASE WHEN r_coupon < 0.28 THEN 0.9 ELSE 1 END, 2) AS amount,
      CASE platform ${payment} END AS payment_method
    FROM drawn`))
}

export { days, lookupTables, orders, sessions, signUps, users }
