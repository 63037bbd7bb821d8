import type { MetaDb } from '../../../store/meta'
import { emptyReported, type Reported } from '../../schema/plan'
import { PRESET_EVENT_PROPERTIES, PRESET_USER_PROPERTIES } from '../../schema/presets'
import type { DataType } from '../../schema/types'

/**
 * The sample's tracking plan: which events carry which properties, with display names and
 * remarks, so that every chart built on the sample reads in words. Preset ids keep the names the
 * plan gave them and get a remark about their role in the shop.
 */

interface Item {
  id: string
  name: string
  remark: string
}
interface Property extends Item {
  dataType: DataType
}

/** Properties of every event, and those of app events and of web events only. */
const COMMON = ['$platform', '$os', '$os_version', '$lib', '$lib_version', '$screen_width', '$screen_height', '$country', '$province',
  '$city', '$utm_source', '$utm_medium', '$utm_campaign', '$is_first_day', '$is_login']
const APP = ['$manufacturer', '$model', '$network', '$carrier', 'app_version']
const WEB = ['$browser', '$browser_version', '$url', '$title']

/** Events, with the properties each carries besides COMMON and those of its platforms. */
export const SAMPLE_EVENTS: (Item & { properties: string[] })[] = [
  { id: '$startup', name: 'App start', remark: 'The app was opened: the first event of an app session', properties: [] },
  { id: '$pageview', name: 'Page view', remark: 'A page of the web shop was opened: the first event of a web session', properties: [] },
  { id: 'sign_up', name: 'Sign up', remark: 'A new user created an account on the first day', properties: ['signup_method'] },
  { id: 'search', name: 'Search', remark: 'The user searched the shop', properties: ['search_keyword'] },
  { id: 'view_product', name: 'View product', remark: 'A product detail page was opened', properties: ['product_id', 'category', 'price'] },
  { id: 'add_to_cart', name: 'Add to cart', remark: 'A viewed product was put in the cart', properties: ['product_id', 'category', 'price', 'quantity'] },
  { id: 'checkout', name: 'Checkout', remark: 'The cart was checked out: an order was placed', properties: ['order_id', 'item_count', 'amount', 'coupon_used'] },
  { id: 'pay', name: 'Pay', remark: 'The order was paid', properties: ['order_id', 'item_count', 'amount', 'coupon_used', 'payment_method'] },
  { id: '$end', name: 'App end', remark: 'The session ended; Duration holds its length', properties: ['$duration'] },
]

/** Event properties that are not preset, with the type of their column. */
export const SAMPLE_EVENT_PROPERTIES: Property[] = [
  { id: 'app_version', name: 'App version', remark: 'Version of the app (apps only)', dataType: 'string' },
  { id: 'product_id', name: 'Product ID', remark: 'Relation field of the products dimension table', dataType: 'string' },
  { id: 'category', name: 'Category', remark: 'Category of the product', dataType: 'string' },
  { id: 'price', name: 'Price', remark: 'Unit price of the product in CNY', dataType: 'number' },
  { id: 'quantity', name: 'Quantity', remark: 'Units put in the cart', dataType: 'number' },
  { id: 'item_count', name: 'Items', remark: 'Units in the order', dataType: 'number' },
  { id: 'amount', name: 'Order amount', remark: 'Amount of the order in CNY, after the coupon', dataType: 'number' },
  { id: 'order_id', name: 'Order ID', remark: 'Identifier of the order', dataType: 'string' },
  { id: 'coupon_used', name: 'Coupon used', remark: 'A 10% coupon was applied to the order', dataType: 'boolean' },
  { id: 'payment_method', name: 'Payment method', remark: 'How the order was paid', dataType: 'string' },
  { id: 'search_keyword', name: 'Search keyword', remark: 'What the user searched for', dataType: 'string' },
  { id: 'signup_method', name: 'Sign-up method', remark: 'How the account was created', dataType: 'string' },
]

/** Preset event properties the sample fills, with a remark on what they hold here. */
const PRESET_EVENT_REMARKS: Record<string, string> = {
  $duration: 'Length of the session in milliseconds, on App end',
  $utm_source: 'Acquisition channel, on the events of the first day',
  $is_first_day: 'The event happened on the first day of the user',
  $url: 'Page of the web shop (web only)',
}

/** User properties that are not preset, with the type of their column. */
export const SAMPLE_USER_PROPERTIES: Property[] = [
  { id: 'gender', name: 'Gender', remark: 'female, male or unknown', dataType: 'string' },
  { id: 'age', name: 'Age', remark: 'Age in years', dataType: 'number' },
  { id: 'membership_level', name: 'Membership level', remark: 'basic, silver, gold or platinum by total spent', dataType: 'string' },
  { id: 'total_spent', name: 'Total spent', remark: 'Sum of the amounts of the paid orders of the user in CNY', dataType: 'number' },
  { id: 'orders_count', name: 'Orders', remark: 'Number of paid orders', dataType: 'number' },
  { id: 'favorite_category', name: 'Favorite category', remark: 'The category the user browses most', dataType: 'string' },
  { id: 'registered_channel', name: 'Registered channel', remark: 'Acquisition channel of the first visit, or organic', dataType: 'string' },
]

const PRESET_USER_FILLED = ['$platform', '$lib', '$lib_version', '$country', '$province', '$city', '$first_visit_language',
  '$is_login', '$first_visit_time', '$signup_time', '$email', '$phone']

function presets(ids: string[], from: { id: string; dataType: DataType }[]): { id: string; dataType: DataType }[] {
  return ids.map((id) => ({ id, dataType: (from.find((p) => p.id === id) as { dataType: DataType }).dataType }))
}

/** Every event column the sample writes, with the type it has when the plan does not know it yet. */
export const EVENT_COLUMNS = [...presets([...COMMON, ...APP, ...WEB, '$duration'].filter((id) => id.startsWith('$')), PRESET_EVENT_PROPERTIES), ...SAMPLE_EVENT_PROPERTIES]
/** Every profile column the sample writes. */
export const USER_COLUMNS = [...presets(PRESET_USER_FILLED, PRESET_USER_PROPERTIES), ...SAMPLE_USER_PROPERTIES]

/**
 * What the sample reported, for `recordReported`: the events that occurred (with the platforms
 * they came from), and every column written with the type the plan gives it (the sample's own
 * type for an item the plan does not know yet).
 */
export function sampleReported(occurred: Map<string, Set<string>>, types: { event: Map<string, DataType>; user: Map<string, DataType> }): Reported {
  const reported = emptyReported()
  for (const e of SAMPLE_EVENTS) {
    const platforms = occurred.get(e.id)
    if (!platforms) continue
    const fromApps = platforms.has('iOS') || platforms.has('Android')
    const properties = [...COMMON, ...(fromApps ? APP : []), ...(platforms.has('Web') ? WEB : []), ...e.properties]
    reported.events.set(e.id, { platforms, properties: new Set(properties) })
  }
  for (const c of EVENT_COLUMNS) reported.eventProperties.set(c.id, types.event.get(c.id) ?? c.dataType)
  for (const c of USER_COLUMNS) reported.userProperties.set(c.id, types.user.get(c.id) ?? c.dataType)
  return reported
}

/**
 * Gives the sample's events and properties their display names and remarks and puts them in the
 * plan (plan 1), with the links of each event to its own properties. Runs after recordReported.
 */
export function nameSamplePlan(meta: MetaDb, appKey: string): void {
  const now = Date.now()
  const event = meta.prepare('UPDATE plan_events SET name = coalesce(name, ?), remark = coalesce(remark, ?), plan = 1, update_time = ? WHERE app_key = ? AND id = ?')
  const property = meta.prepare('UPDATE plan_event_properties SET name = coalesce(name, ?), remark = coalesce(remark, ?), plan = 1, update_time = ? WHERE app_key = ? AND id = ?')
  const userProperty = meta.prepare('UPDATE plan_user_properties SET name = coalesce(name, ?), remark = coalesce(remark, ?), plan = 1, update_time = ? WHERE app_key = ? AND id = ?')
  const link = meta.prepare('UPDATE plan_event_property_links SET plan = 1 WHERE app_key = ? AND event_id = ? AND property_id = ?')
  meta.transaction(() => {
    for (const e of SAMPLE_EVENTS) {
      event.run(e.name, e.remark, now, appKey, e.id)
      for (const p of e.properties) link.run(appKey, e.id, p)
    }
    for (const p of SAMPLE_EVENT_PROPERTIES) property.run(p.name, p.remark, now, appKey, p.id)
    for (const [id, remark] of Object.entries(PRESET_EVENT_REMARKS)) property.run(null, remark, now, appKey, id)
    for (const p of SAMPLE_USER_PROPERTIES) userProperty.run(p.name, p.remark, now, appKey, p.id)
  })()
}
