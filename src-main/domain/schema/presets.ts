import type { DataType } from './types'

/** Preset ids of the original product (spec-notes.md, "Preset ids"). */
export const PRESET_EVENTS: { id: string; name: string }[] = [
  { id: '$startup', name: 'App start' },
  { id: '$end', name: 'App end' },
  { id: '$pageview', name: 'Page view' },
  { id: '$user_click', name: 'User click' },
  { id: '$app_click', name: 'App click' },
  { id: '$web_click', name: 'Web click' },
  { id: '$webstay', name: 'Web stay' },
  { id: '$share', name: 'Share' },
  { id: '$app_crash', name: 'App crash' },
  { id: '$campaign_track', name: 'Campaign track' },
  { id: '$first_installation', name: 'First installation' },
  { id: '$push_receiver_success', name: 'Push received' },
  { id: '$push_click', name: 'Push click' },
  { id: '$push_process_success', name: 'Push processed' },
  { id: '$alias', name: 'Alias' },
  { id: '$profile_set', name: 'Profile set' },
  { id: '$profile_set_once', name: 'Profile set once' },
  { id: '$profile_unset', name: 'Profile unset' },
  { id: '$profile_increment', name: 'Profile increment' },
  { id: '$profile_append', name: 'Profile append' },
  { id: '$profile_delete', name: 'Profile delete' },
]

/** The six profile operations: records with these ids change profile_vd, not event_vd. */
export const PROFILE_EVENTS = PRESET_EVENTS.filter((e) => e.id.startsWith('$profile_')).map((e) => e.id)

type PresetProperty = { id: string; name: string; dataType: DataType }

const strings = (ids: [string, string][]): PresetProperty[] => ids.map(([id, name]) => ({ id, name, dataType: 'string' }))

export const PRESET_EVENT_PROPERTIES: PresetProperty[] = [
  ...strings([
    ['$platform', 'Platform'], ['$lib', 'SDK'], ['$lib_version', 'SDK version'], ['$os', 'Operating system'],
    ['$os_version', 'OS version'], ['$manufacturer', 'Manufacturer'], ['$model', 'Device model'], ['$browser', 'Browser'],
    ['$browser_version', 'Browser version'], ['$url', 'Page URL'], ['$title', 'Page title'], ['$referrer', 'Referrer'],
    ['$ip', 'IP address'], ['$time_zone', 'Time zone'], ['$session_id', 'Session id'], ['$utm_source', 'UTM source'],
    ['$utm_medium', 'UTM medium'], ['$utm_campaign', 'UTM campaign'], ['$utm_content', 'UTM content'], ['$utm_term', 'UTM term'],
    ['$original_id', 'Original id'], ['$country', 'Country'], ['$province', 'Province'], ['$city', 'City'],
    ['$network', 'Network'], ['$carrier', 'Carrier'],
  ]),
  { id: '$screen_width', name: 'Screen width', dataType: 'number' },
  { id: '$screen_height', name: 'Screen height', dataType: 'number' },
  { id: '$debug', name: 'Debug mode', dataType: 'number' },
  { id: '$importflag', name: 'Import flag', dataType: 'number' },
  { id: '$duration', name: 'Duration (ms)', dataType: 'number' },
  { id: '$event_duration', name: 'Event duration', dataType: 'number' },
  { id: '$is_login', name: 'Logged in', dataType: 'boolean' },
  { id: '$is_first_day', name: 'First day', dataType: 'boolean' },
  { id: '$is_first_time', name: 'First time', dataType: 'boolean' },
  { id: '$is_from_background', name: 'From background', dataType: 'boolean' },
  { id: '$startup_time', name: 'Startup time', dataType: 'datetime' },
]

/** `xwho` and `distinct_id` are base columns; they are listed as preset user properties too. */
export const PRESET_USER_PROPERTIES: (PresetProperty & { visible: 0 | 1 })[] = [
  { id: 'distinct_id', name: 'Distinct id', dataType: 'number', visible: 0 },
  { id: 'xwho', name: 'User id', dataType: 'string', visible: 1 },
  ...strings([
    ['$original_id', 'Original id'], ['$phone', 'Phone'], ['$email', 'E-mail'], ['$platform', 'Platform'], ['$lib', 'SDK'],
    ['$lib_version', 'SDK version'], ['$country', 'Country'], ['$province', 'Province'], ['$city', 'City'],
    ['$first_visit_language', 'First visit language'], ['$time_zone', 'Time zone'],
  ]).map((p) => ({ ...p, visible: 1 as const })),
  { id: '$is_login', name: 'Logged in', dataType: 'boolean', visible: 1 },
  { id: '$signup_time', name: 'Sign-up time', dataType: 'datetime', visible: 1 },
  { id: '$first_visit_time', name: 'First visit time', dataType: 'datetime', visible: 1 },
]
