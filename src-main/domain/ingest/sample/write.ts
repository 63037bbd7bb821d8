import type { Warehouse } from '../../../warehouse'
import { EMAIL_DOMAINS, MEMBERSHIP } from './catalogue'
import { CATEGORIES, PRODUCTS } from './products'
import { eventTime, viewedProducts } from './generate'
import { EVENT_ORDER } from '../sql'
import type { SampleSql } from './sql'

/**
 * Turns the generated sessions into warehouse rows: one INSERT for every event (stored by user,
 * then time, as every load stores them: EVENT_ORDER), one for every profile. A session is a run
 * of slots, each at most one event, in this order:
 *   0 $startup (apps) or $pageview (web), 1 sign_up, 2 search,
 *   3 + 2i view_product and 4 + 2i add_to_cart for the i-th product viewed,
 *   then checkout, pay and $end.
 * A slot whose event did not happen yields no row. Slot times grow with the slot number, so the
 * events of a session are in order and end before the session's day does.
 */

const SITE = 'https://shop.example.com'

function eventOfSlot(): string {
  return `CASE
    WHEN slot = 0 THEN CASE WHEN platform = 'Web' THEN '$pageview' ELSE '$startup' END
    WHEN slot = 1 THEN CASE WHEN sign_up THEN 'sign_up' END
    WHEN slot = 2 THEN CASE WHEN search THEN 'search' END
    WHEN slot < 3 + 2 * n_views THEN CASE WHEN slot % 2 = 1 THEN 'view_product' WHEN carted THEN 'add_to_cart' END
    WHEN slot = 3 + 2 * n_views THEN CASE WHEN checkout THEN 'checkout' END
    WHEN slot = 4 + 2 * n_views THEN CASE WHEN pay THEN 'pay' END
    ELSE '$end'
  END`
}

/**
 * The first distinct_id of each part of `perPart` users, in order. Each part's events are sorted
 * in memory by one statement (about 30 a user over 90 days): a million users write in bounded
 * memory, without spilling a sort to disk, and a cancel is seen between parts.
 */
async function userParts(conn: Warehouse, perPart: number): Promise<number[]> {
  const rows = await conn.query(`SELECT distinct_id FROM (SELECT distinct_id, row_number() OVER (ORDER BY distinct_id) AS n FROM s_users) p
    WHERE (n - 1) % ${perPart} = 0 ORDER BY distinct_id`)
  return rows.map((r) => Number(r.distinct_id))
}

/**
 * The events of the users whose distinct_id is in [from, to) (to null: no end) as (column, SQL)
 * pairs and the relation they are read from, ordered by user, then time. The users' ids grow
 * with their parts, so parts written one after the other keep EVENT_ORDER across parts.
 */
function eventsOf(s: SampleSql, w: { from: number; to: number | null }): { columns: [string, string][]; from: string } {
  const { d } = s
  const of = (row: string) => `${row}.distinct_id >= ${w.from}${w.to === null ? '' : ` AND ${row}.distinct_id < ${w.to}`}`
  const order = "e.xwhat IN ('checkout', 'pay')"
  const productId = s.at(PRODUCTS.map((p) => p.id), 'e.product')
  const page = `CASE e.xwhat WHEN '$pageview' THEN '/' WHEN 'search' THEN '/search' WHEN 'checkout' THEN '/checkout' WHEN 'pay' THEN '/pay'
    WHEN 'sign_up' THEN '/sign-up' WHEN '$end' THEN '/' ELSE '/product/' || ${productId} END`
  const title = `CASE e.xwhat WHEN '$pageview' THEN 'Home' WHEN 'search' THEN 'Search' WHEN 'checkout' THEN 'Checkout' WHEN 'pay' THEN 'Payment'
    WHEN 'sign_up' THEN 'Sign up' WHEN '$end' THEN 'Home' ELSE ${s.at(PRODUCTS.map((p) => p.name), 'e.product')} END`
  // the slots of every session, narrow: those whose event is known not to happen are dropped
  // before the product is drawn, and the rest before the user's columns join them
  const slots = `(SELECT *, CASE WHEN slot >= 3 AND slot < 3 + 2 * n_views THEN ${d.intDiv('(slot - 3)', 2)} END AS i
    FROM (SELECT *, ${d.unnest(d.series('0', 'n_slots'))} AS slot
      FROM (SELECT * FROM s_sessions x WHERE ${of('x')}) ss LEFT JOIN (SELECT sid, item_count, checkout, pay, coupon, amount, payment_method FROM s_orders o WHERE ${of('o')}) so USING (sid)) sl
    WHERE NOT ((slot = 1 AND NOT sign_up) OR (slot = 2 AND NOT search)
      OR (slot = 3 + 2 * n_views AND checkout IS NOT TRUE) OR (slot = 4 + 2 * n_views AND pay IS NOT TRUE)))`
  const at = eventTime(s, 'e.')
  const columns: [string, string][] = [
    ['distinct_id', 'u.distinct_id'], ['xwho', 'u.xwho'], ['xwhat', 'e.xwhat'], ['xwhen', d.instantAt(at)], ['ds', 'e.ds'],
    ['$platform', 'u.platform'], ['$os', 'u.os'], ['$os_version', 'u.os_version'], ['$lib', 'u.lib'], ['$lib_version', 'u.lib_version'],
    ['$manufacturer', 'u.manufacturer'], ['$model', 'u.model'], ['$browser', 'u.browser'], ['$browser_version', 'u.browser_version'],
    ['$screen_width', 'u.width'], ['$screen_height', 'u.height'], ['$network', 'e.network'], ['$carrier', 'u.carrier'],
    ['$country', 'u.country'], ['$province', 'u.province'], ['$city', 'u.city'],
    ['$utm_source', 'CASE WHEN e.k = 0 THEN u.utm_source END'],
    ['$utm_medium', 'CASE WHEN e.k = 0 THEN u.utm_medium END'],
    ['$utm_campaign', 'CASE WHEN e.k = 0 THEN u.utm_campaign END'],
    ['$is_first_day', 'e.k = 0'],
    ['$is_login', `coalesce(${at} >= u.signup_at, false)`],
    ['$duration', "CASE WHEN e.xwhat = '$end' THEN round(e.step * e.slot * 1000) END"],
    ['$url', `CASE WHEN e.platform = 'Web' THEN ${s.value(SITE)} || ${page} END`],
    ['$title', `CASE WHEN e.platform = 'Web' THEN ${title} END`],
    ['app_version', 'e.app_version'], ['product_id', productId], ['category', s.at(PRODUCTS.map((p) => p.category), 'e.product')], ['price', 'e.price'],
    ['quantity', "CASE WHEN e.xwhat = 'add_to_cart' THEN e.quantity END"],
    ['item_count', `CASE WHEN ${order} THEN e.item_count END`],
    ['amount', `CASE WHEN ${order} THEN e.amount END`],
    ['order_id', `CASE WHEN ${order} THEN 'SO' || ${s.text('e.sid')} END`],
    ['coupon_used', `CASE WHEN ${order} THEN e.coupon END`],
    ['payment_method', "CASE WHEN e.xwhat = 'pay' THEN e.payment_method END"],
    ['search_keyword', "CASE WHEN e.xwhat = 'search' THEN e.keyword END"],
    ['signup_method', "CASE WHEN e.xwhat = 'sign_up' THEN u.signup_method END"],
  ]
  const from = `(SELECT *, ${eventOfSlot()} AS xwhat FROM ${viewedProducts(s, slots)}) e
    JOIN (SELECT * FROM s_users y WHERE ${of('y')}) u USING (uid)
    WHERE e.xwhat IS NOT NULL`
  return { columns, from }
}

/**
 * Writes every event of every session, `perPart` users at a time, `between` awaited after each
 * part; resolves to the number of events written.
 */
export async function writeEvents(conn: Warehouse, s: SampleSql, perPart: number, between: () => Promise<void>): Promise<number> {
  const parts = await userParts(conn, perPart)
  let written = 0
  for (const [n, from] of parts.entries()) {
    const { columns, from: relation } = eventsOf(s, { from, to: parts[n + 1] ?? null })
    written += await conn.run(`INSERT INTO event_vd (${columns.map(([c]) => s.d.ident(c)).join(', ')})
      SELECT ${columns.map(([c, sql]) => `${sql} AS ${s.d.ident(c)}`).join(',\n        ')}
      FROM ${relation}
      ORDER BY ${EVENT_ORDER}`)
    await between()
  }
  return written
}

/**
 * Writes one profile per user. Orders and spending are those of the user's pay events; the
 * first visit is the first event of the first session and the sign-up time that of sign_up, both
 * as local time (datetime properties hold the project's wall-clock time).
 */
export async function writeProfiles(conn: Warehouse, s: SampleSql): Promise<number> {
  const { d } = s
  const first = eventTime(s, 'f.', '0')
  const level = `CASE ${MEMBERSHIP.map(([name, floor]) => `WHEN coalesce(o.spent, 0) >= ${floor} THEN ${s.value(name)}`).join(' ')} END`
  const letter = `substr('abcdefghijklmnopqrstuvwxyz', 1 + ${s.int('floor(u.r_mail * 26)')}, 1)`
  const domain = s.at(EMAIL_DOMAINS, s.int(`floor(u.r_mail * 1000 % ${EMAIL_DOMAINS.length})`))
  const wallClock = (seconds: string) => d.localTime(d.instantAt(seconds))
  const columns: [string, string][] = [
    ['distinct_id', 'u.distinct_id'], ['xwho', 'u.xwho'],
    ['$platform', 'u.platform'], ['$lib', 'u.lib'], ['$lib_version', 'u.lib_version'],
    ['$country', 'u.country'], ['$province', 'u.province'], ['$city', 'u.city'], ['$first_visit_language', 'u.language'],
    ['$is_login', 'u.signs_up'],
    ['$first_visit_time', wallClock(first)],
    ['$signup_time', wallClock('u.signup_at')],
    ['$email', `CASE WHEN u.signs_up THEN ${letter} || '***' || ${s.text('(u.uid % 97)')} || '@' || ${domain} END`],
    ['$phone', `CASE WHEN u.signs_up THEN '1' || ${s.text(s.int('(3 + floor(u.r_mail * 10000 % 6))'))} || ${s.text(s.int('floor(u.r_mail * 100000 % 10)'))}
        || '****' || lpad(${s.text('(u.uid * 7919 % 10000)')}, 4, '0') END`],
    ['gender', 'u.gender'], ['age', d.cast('u.age', 'number')],
    ['membership_level', level],
    ['total_spent', 'coalesce(o.spent, 0)'],
    ['orders_count', 'coalesce(o.orders, 0)'],
    ['favorite_category', s.at(CATEGORIES, 'u.fav')],
    ['registered_channel', "coalesce(u.utm_source, 'organic')"],
  ]
  return conn.run(`INSERT INTO profile_vd (${columns.map(([c]) => d.ident(c)).join(', ')})
    WITH orders AS (
      SELECT s.uid, ${d.cast('count(*)', 'number')} AS orders, round(sum(o.amount), 2) AS spent FROM s_orders o JOIN s_sessions s USING (sid) WHERE o.pay GROUP BY s.uid
    )
    SELECT ${columns.map(([c, sql]) => `${sql} AS ${d.ident(c)}`).join(',\n      ')}
    FROM s_users u
    JOIN s_sessions f ON f.sid = u.uid * 4096
    LEFT JOIN orders o ON o.uid = u.uid`)
}
