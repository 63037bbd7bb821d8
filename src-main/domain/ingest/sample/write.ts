import type { Warehouse } from '../../../warehouse'
import { EMAIL_DOMAINS, MEMBERSHIP } from './catalogue'
import { CATEGORIES, PRODUCTS } from './products'
import { eventTime, productAttribute, viewedProducts, type SampleWindow } from './generate'
import { EVENT_ORDER } from '../sql'
import { list, value } from './sql'

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

/** Writes every event of every session; resolves to the number of events written. */
export async function writeEvents(conn: Warehouse, w: SampleWindow): Promise<number> {
  const order = "e.xwhat IN ('checkout', 'pay')"
  const productId = productAttribute('e.product', PRODUCTS.map((p) => p.id))
  const page = `CASE e.xwhat WHEN '$pageview' THEN '/' WHEN 'search' THEN '/search' WHEN 'checkout' THEN '/checkout' WHEN 'pay' THEN '/pay'
    WHEN 'sign_up' THEN '/sign-up' WHEN '$end' THEN '/' ELSE '/product/' || ${productId} END`
  const title = `CASE e.xwhat WHEN '$pageview' THEN 'Home' WHEN 'search' THEN 'Search' WHEN 'checkout' THEN 'Checkout' WHEN 'pay' THEN 'Payment'
    WHEN 'sign_up' THEN 'Sign up' WHEN '$end' THEN 'Home' ELSE ${productAttribute('e.product', PRODUCTS.map((p) => p.name))} END`
  // the slots of every session, narrow: those whose event is known not to happen are dropped
  // before the product is drawn, and the rest before the user's columns join them
  const slots = `(SELECT *, CASE WHEN slot >= 3 AND slot < 3 + 2 * n_views THEN (slot - 3) // 2 END AS i
    FROM (SELECT *, unnest(range(n_slots)) AS slot FROM s_sessions LEFT JOIN s_orders USING (sid))
    WHERE NOT ((slot = 1 AND NOT sign_up) OR (slot = 2 AND NOT search)
      OR (slot = 3 + 2 * n_views AND checkout IS NOT TRUE) OR (slot = 4 + 2 * n_views AND pay IS NOT TRUE)))`
  const at = eventTime(w, 'e.')
  const result = await conn.run(`INSERT INTO event_vd BY NAME
    SELECT u.distinct_id, u.xwho, e.xwhat, to_timestamp(${at}) AS xwhen, e.ds,
      u.platform AS "$platform", u.os AS "$os", u.os_version AS "$os_version", u.lib AS "$lib", u.lib_version AS "$lib_version",
      u.manufacturer AS "$manufacturer", u.model AS "$model", u.browser AS "$browser", u.browser_version AS "$browser_version",
      u.width AS "$screen_width", u.height AS "$screen_height", e.network AS "$network", u.carrier AS "$carrier",
      u.country AS "$country", u.province AS "$province", u.city AS "$city",
      CASE WHEN e.k = 0 THEN u.utm_source END AS "$utm_source",
      CASE WHEN e.k = 0 THEN u.utm_medium END AS "$utm_medium",
      CASE WHEN e.k = 0 THEN u.utm_campaign END AS "$utm_campaign",
      e.k = 0 AS "$is_first_day",
      coalesce(${at} >= u.signup_at, false) AS "$is_login",
      CASE WHEN e.xwhat = '$end' THEN round(e.step * e.slot * 1000) END AS "$duration",
      CASE WHEN e.platform = 'Web' THEN ${value(SITE)} || ${page} END AS "$url",
      CASE WHEN e.platform = 'Web' THEN ${title} END AS "$title",
      e.app_version, ${productId} AS product_id, ${productAttribute('e.product', PRODUCTS.map((p) => p.category))} AS category, e.price,
      CASE WHEN e.xwhat = 'add_to_cart' THEN e.quantity END AS quantity,
      CASE WHEN ${order} THEN e.item_count END AS item_count,
      CASE WHEN ${order} THEN e.amount END AS amount,
      CASE WHEN ${order} THEN 'SO' || e.sid::VARCHAR END AS order_id,
      CASE WHEN ${order} THEN e.coupon END AS coupon_used,
      CASE WHEN e.xwhat = 'pay' THEN e.payment_method END AS payment_method,
      CASE WHEN e.xwhat = 'search' THEN e.keyword END AS search_keyword,
      CASE WHEN e.xwhat = 'sign_up' THEN u.signup_method END AS signup_method
    FROM (SELECT *, ${eventOfSlot()} AS xwhat FROM ${viewedProducts(w, slots)}) e
    JOIN s_users u USING (uid)
    WHERE e.xwhat IS NOT NULL
    ORDER BY ${EVENT_ORDER}`)
  return result
}

/**
 * Writes one profile per user. Orders and spending are those of the user's pay events; the
 * first visit is the first event of the first session and the sign-up time that of sign_up, both
 * as local time (datetime properties hold the project's wall-clock time).
 */
export async function writeProfiles(conn: Warehouse, w: SampleWindow): Promise<number> {
  const first = eventTime(w, 'f.', '0')
  const level = `CASE ${MEMBERSHIP.map(([name, floor]) => `WHEN coalesce(o.spent, 0) >= ${floor} THEN ${value(name)}`).join(' ')} END`
  const letter = `chr(97 + floor(u.r_mail * 26)::INTEGER)`
  const domain = `${list(EMAIL_DOMAINS)}[1 + floor(u.r_mail * 1000 % ${EMAIL_DOMAINS.length})::INTEGER]`
  const result = await conn.run(`INSERT INTO profile_vd BY NAME
    WITH orders AS (
      SELECT s.uid, count(*)::DOUBLE AS orders, round(sum(o.amount), 2) AS spent FROM s_orders o JOIN s_sessions s USING (sid) WHERE o.pay GROUP BY s.uid
    )
    SELECT u.distinct_id, u.xwho,
      u.platform AS "$platform", u.lib AS "$lib", u.lib_version AS "$lib_version",
      u.country AS "$country", u.province AS "$province", u.city AS "$city", u.language AS "$first_visit_language",
      u.signs_up AS "$is_login",
      to_timestamp(${first})::TIMESTAMP AS "$first_visit_time",
      to_timestamp(u.signup_at)::TIMESTAMP AS "$signup_time",
      CASE WHEN u.signs_up THEN ${letter} || '***' || (u.uid % 97)::VARCHAR || '@' || ${domain} END AS "$email",
      CASE WHEN u.signs_up THEN '1' || (3 + floor(u.r_mail * 10000 % 6))::INTEGER::VARCHAR || floor(u.r_mail * 100000 % 10)::INTEGER::VARCHAR
        || '****' || lpad((u.uid * 7919 % 10000)::VARCHAR, 4, '0') END AS "$phone",
      u.gender, u.age::DOUBLE AS age,
      ${level} AS membership_level,
      coalesce(o.spent, 0) AS total_spent,
      coalesce(o.orders, 0) AS orders_count,
      ${list(CATEGORIES)}[u.fav + 1] AS favorite_category,
      coalesce(u.utm_source, 'organic') AS registered_channel
    FROM s_users u
    JOIN s_sessions f ON f.sid = u.uid * 4096
    LEFT JOIN orders o ON o.uid = u.uid`)
  return result
}
