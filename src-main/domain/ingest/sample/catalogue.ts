/**
 * Who the sample shop's users are: platforms, devices, places, acquisition channels and the
 * rhythm of a day. Weights are relative shares; the multipliers say how a trait moves retention
 * (`ret`) and conversion (`conv`), so that breakdowns in the charts tell a story a consultant can
 * point at (iOS buys more, short-video ads bring users who leave, newsletters bring loyal ones).
 */

export type Platform = 'iOS' | 'Android' | 'Web'

export interface PlatformTrait {
  platform: Platform
  weight: number
  ret: number
  conv: number
  /** Share of checkouts that end in a payment. */
  pay: number
  /** Share of new users who sign up on their first day. */
  signUp: number
  os: string
  lib: string
  libVersion: string
}

export const PLATFORMS: PlatformTrait[] = [
  { platform: 'iOS', weight: 36, ret: 1.12, conv: 1.3, pay: 0.88, signUp: 0.62, os: 'iOS', lib: 'iOS', libVersion: '4.6.1' },
  { platform: 'Android', weight: 46, ret: 1, conv: 1, pay: 0.8, signUp: 0.56, os: 'Android', lib: 'Android', libVersion: '4.6.3' },
  { platform: 'Web', weight: 18, ret: 0.6, conv: 0.72, pay: 0.7, signUp: 0.34, os: 'Windows', lib: 'JS', libVersion: '4.5.8' },
]

/** A device: model and screen for the apps, operating system and browser for the web. */
export interface Device {
  platform: Platform
  weight: number
  manufacturer: string | null
  model: string | null
  os: string
  osVersions: string[]
  browser: string | null
  browserVersion: string | null
  width: number
  height: number
}

const phone = (platform: Platform, weight: number, manufacturer: string, model: string, osVersions: string[], width: number, height: number): Device =>
  ({ platform, weight, manufacturer, model, os: platform, osVersions, browser: null, browserVersion: null, width, height })
const desktop = (weight: number, os: string, osVersions: string[], browser: string, browserVersion: string, width: number, height: number): Device =>
  ({ platform: 'Web', weight, manufacturer: null, model: null, os, osVersions, browser, browserVersion, width, height })

const IOS = ['18.1', '17.6', '17.5', '16.7']
const ANDROID = ['14', '13', '12', '11']
export const DEVICES: Device[] = [
  phone('iOS', 26, 'Apple', 'iPhone 15', IOS, 393, 852),
  phone('iOS', 18, 'Apple', 'iPhone 15 Pro Max', IOS, 430, 932),
  phone('iOS', 22, 'Apple', 'iPhone 14', IOS, 390, 844),
  phone('iOS', 18, 'Apple', 'iPhone 13', IOS, 390, 844),
  phone('iOS', 10, 'Apple', 'iPhone 12', IOS, 390, 844),
  phone('iOS', 6, 'Apple', 'iPhone SE', IOS, 375, 667),
  phone('Android', 22, 'Xiaomi', 'Xiaomi 14', ANDROID, 1200, 2670),
  phone('Android', 14, 'Xiaomi', 'Redmi K70', ANDROID, 1440, 3200),
  phone('Android', 20, 'HUAWEI', 'Mate 60', ANDROID, 1216, 2688),
  phone('Android', 12, 'OPPO', 'Reno 11', ANDROID, 1080, 2412),
  phone('Android', 12, 'vivo', 'X100', ANDROID, 1260, 2800),
  phone('Android', 10, 'HONOR', 'Magic 6', ANDROID, 1280, 2800),
  phone('Android', 10, 'Samsung', 'Galaxy S24', ANDROID, 1080, 2340),
  desktop(44, 'Windows', ['11', '10'], 'Chrome', '131.0', 1920, 1080),
  desktop(14, 'Windows', ['11', '10'], 'Edge', '131.0', 1536, 864),
  desktop(24, 'macOS', ['15.1', '14.6'], 'Safari', '18.1', 1440, 900),
  desktop(12, 'macOS', ['15.1', '14.6'], 'Chrome', '131.0', 1512, 982),
  desktop(6, 'Linux', ['6.8'], 'Firefox', '132.0', 1920, 1080),
]

export interface City {
  city: string
  province: string
  country: string
  weight: number
}

const china = (city: string, province: string, weight: number): City => ({ city, province, country: 'China', weight })
export const CITIES: City[] = [
  china('Shanghai', 'Shanghai', 14),
  china('Beijing', 'Beijing', 13),
  china('Shenzhen', 'Guangdong', 10),
  china('Guangzhou', 'Guangdong', 9),
  china('Hangzhou', 'Zhejiang', 7),
  china('Chengdu', 'Sichuan', 7),
  china('Wuhan', 'Hubei', 5),
  china('Nanjing', 'Jiangsu', 5),
  china('Suzhou', 'Jiangsu', 4),
  china("Xi'an", 'Shaanxi', 4),
  china('Chongqing', 'Chongqing', 5),
  china('Tianjin', 'Tianjin', 3),
  china('Changsha', 'Hunan', 3),
  china('Qingdao', 'Shandong', 2),
  china('Xiamen', 'Fujian', 2),
  { city: 'Hong Kong', province: 'Hong Kong', country: 'China', weight: 2 },
  { city: 'Singapore', province: 'Singapore', country: 'Singapore', weight: 2 },
  { city: 'Kuala Lumpur', province: 'Kuala Lumpur', country: 'Malaysia', weight: 1 },
  { city: 'Tokyo', province: 'Tokyo', country: 'Japan', weight: 1 },
  { city: 'Sydney', province: 'New South Wales', country: 'Australia', weight: 1 },
]

/** Where a user came from on the first visit; `source` null is a direct or organic visit. */
export interface Channel {
  source: string | null
  medium: string | null
  campaign: string | null
  weight: number
  ret: number
  conv: number
}

export const CHANNELS: Channel[] = [
  { source: null, medium: null, campaign: null, weight: 30, ret: 1.05, conv: 1.05 },
  { source: 'app_store', medium: 'aso', campaign: 'store_search', weight: 10, ret: 1, conv: 0.95 },
  { source: 'baidu', medium: 'cpc', campaign: 'brand_search', weight: 10, ret: 0.95, conv: 1.05 },
  { source: 'wechat', medium: 'social', campaign: 'friend_invite', weight: 12, ret: 1.12, conv: 1.15 },
  { source: 'douyin', medium: 'video_ad', campaign: 'summer_sale', weight: 14, ret: 0.72, conv: 0.68 },
  { source: 'xiaohongshu', medium: 'kol', campaign: 'style_picks', weight: 8, ret: 0.92, conv: 1 },
  { source: 'newsletter', medium: 'email', campaign: 'weekly_deals', weight: 6, ret: 1.3, conv: 1.35 },
  { source: 'google', medium: 'cpc', campaign: 'global_search', weight: 5, ret: 0.9, conv: 0.9 },
  { source: 'tencent_ads', medium: 'display', campaign: 'retargeting', weight: 5, ret: 0.85, conv: 0.85 },
]

/** Share of sessions that start in each hour of the local day: a lunch peak and an evening peak. */
export const HOURS = [1.2, 0.6, 0.35, 0.25, 0.25, 0.4, 1, 2.2, 3.6, 4.2, 4.4, 4.8, 5.6, 5.2, 4.4, 4.2, 4.3, 4.6, 5, 5.8, 6.8, 7.4, 6.2, 3.2]

export const NETWORKS: [string, number][] = [['WIFI', 58], ['5G', 27], ['4G', 15]]
export const CARRIERS: [string, number][] = [['China Mobile', 55], ['China Unicom', 25], ['China Telecom', 20]]
export const PAYMENT_METHODS: Record<Platform, [string, number][]> = {
  iOS: [['Alipay', 40], ['WeChat Pay', 34], ['Apple Pay', 16], ['Credit card', 10]],
  Android: [['Alipay', 48], ['WeChat Pay', 42], ['Credit card', 10]],
  Web: [['Alipay', 52], ['WeChat Pay', 22], ['Credit card', 26]],
}
export const SIGN_UP_METHODS: [string, number][] = [['phone', 46], ['wechat', 34], ['email', 12], ['apple', 8]]
export const LANGUAGES: [string, number][] = [['zh-CN', 90], ['en-US', 7], ['ja-JP', 3]]
export const GENDERS: [string, number][] = [['female', 52], ['male', 45], ['unknown', 3]]

/** App releases across the window: the share of the window at which each ships (the first is older). */
export const RELEASES: [string, number][] = [['3.2.1', 0], ['3.3.0', 0.22], ['3.4.0', 0.52], ['3.5.0', 0.83]]

/** Membership by what a user has spent: the first level whose floor the total reaches, from the top. */
export const MEMBERSHIP: [string, number][] = [['platinum', 3000], ['gold', 1000], ['silver', 200], ['basic', 0]]

export const EMAIL_DOMAINS = ['qq.com', '163.com', 'gmail.com', 'outlook.com', 'icloud.com']
