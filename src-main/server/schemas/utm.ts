import { CAMPAIGN_LIMITS } from '../../domain/platform/campaigns'
import { common } from './analysis/events'

/** JSON schemas of ad tracking (spec 2.4, 4.9). */

const PAGE_URL_RULE = 'an absolute http:// or https:// address without spaces, at most 2000 characters'

const text = (max: number, description: string, required = false) => ({
  type: 'string',
  ...(required ? { minLength: 1 } : {}),
  maxLength: max,
  'x-rule': required ? `1-${max} characters` : `at most ${max} characters`,
  description,
})

export const newCampaignBody = {
  type: 'object',
  required: ['pageUrl', 'utmCampaign', 'utmMedium', 'utmSource'],
  additionalProperties: false,
  properties: {
    pageUrl: {
      type: 'string',
      maxLength: CAMPAIGN_LIMITS.pageUrl,
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s\\u0000-\\u001f\\u007f]+$',
      'x-rule': PAGE_URL_RULE,
      description: `Target page: ${PAGE_URL_RULE}. Kept as written.`,
    },
    utmCampaign: text(CAMPAIGN_LIMITS.utm, 'Ad name (utm_campaign).', true),
    utmMedium: text(CAMPAIGN_LIMITS.utm, 'Ad medium (utm_medium).', true),
    utmSource: text(CAMPAIGN_LIMITS.utm, 'Ad source (utm_source).', true),
    utmContent: text(CAMPAIGN_LIMITS.utm, 'Ad content (utm_content); empty or omitted: none.'),
    utmTerm: text(CAMPAIGN_LIMITS.utm, 'Ad keyword (utm_term); empty or omitted: none.'),
    remarks: text(CAMPAIGN_LIMITS.remarks, 'Remarks.'),
    utmType: text(CAMPAIGN_LIMITS.utmType, 'Campaign type, stored and returned as sent (its meaning is not shown in the spec).'),
  },
} as const

export const newCampaignQuery = {
  type: 'object',
  properties: {
    username: {
      type: 'string',
      minLength: 1,
      maxLength: CAMPAIGN_LIMITS.createName,
      'x-rule': `1-${CAMPAIGN_LIMITS.createName} characters`,
      description: "Display name of the creator (the spec's sample); recorded as createName.",
    },
  },
} as const

export const createdCampaign = {
  type: 'object',
  required: ['success', 'campaignId'],
  properties: {
    success: { type: 'integer', enum: [0] },
    campaignId: { type: 'integer', description: 'The new campaign id, a number unique in the project (1, 2, ... in creation order).' },
  },
} as const

export const campaignIdParams = {
  type: 'object',
  required: ['campaignId'],
  properties: { campaignId: { type: 'integer', minimum: 1, description: 'The campaign id (a whole number).' } },
} as const

const absent = (description: string) => ({ type: ['string', 'null'], description: `${description} Always null in UBA Desk.` })
const nullableText = (description: string) => ({ type: ['string', 'null'], description })

export const campaignRecord = {
  type: 'object',
  properties: {
    id: { type: 'integer', description: 'Row id of the record, unique across projects.' },
    campaignId: { type: 'string', description: 'The campaign id, as a string here (the create response gives it as a number).' },
    utmType: { type: 'string', description: 'As sent at creation; empty when none.' },
    callbackUrl: absent('Callback address of app-install attribution.'),
    checkUrl: absent('Click-monitoring link of app-install attribution.'),
    checkShort: absent('Short form of the monitoring link.'),
    checkQrcode: absent('QR code of the monitoring link.'),
    qrcode: absent('QR code image of the link (render `url` instead).'),
    createName: nullableText("Creator's display name: the query username, else the loginUser account's name, user name or e-mail; null when the API created it without username."),
    loginName: nullableText("The creating account's user name, else its e-mail; null when the API created it."),
    email: nullableText("The creating account's e-mail; null when the API created it."),
    phone: nullableText("The creating account's phone; null when unknown or created by the API."),
    batchNum: absent('Batch of a bulk creation (campaigns are created one at a time).'),
    project: nullableText("The project's display name."),
    originUrl: { type: 'string', description: 'What the short link resolves to: the same long link as `url`.' },
    pageUrl: { type: 'string', description: 'Target page, as sent.' },
    utmCampaign: { type: 'string' },
    utmMedium: { type: 'string' },
    utmSource: { type: 'string' },
    utmContent: { type: 'string', description: 'Empty when none.' },
    utmTerm: { type: 'string', description: 'Empty when none.' },
    url: { type: 'string', description: 'The long link (see the endpoint description).' },
    shortUrl: { type: 'string', description: 'Short link code: 8 letters and digits, unique; GET /t/{code} on this server redirects to `url`.' },
    remarks: { type: 'string', description: 'Empty when none.' },
    appKey: { type: 'string' },
    userId: { type: 'integer', description: "The creating account's id; 0 when the API created it." },
    status: { type: 'integer', enum: [0, 1], description: '1 active, 0 deleted (logical deletion).' },
    createTime: { type: 'integer', description: 'Millisecond timestamp.' },
    updateTime: { type: 'integer', description: 'Millisecond timestamp of the last change (creation or deletion).' },
    canOperated: { type: 'integer', enum: [0, 1], description: '1 when the caller created the campaign: the loginUser account, or, without loginUser, the API itself.' },
    uniqueSign: { type: 'string', description: 'A signature of pageUrl and the utm values: equal for campaigns whose visits cannot be told apart by utm.' },
  },
} as const

const measure = {
  type: 'object',
  required: ['expression', 'aggregator'],
  properties: {
    expression: { type: 'string', description: 'event.<id> (tracked or virtual event, or event.$Anything), or event.<id>.<property> for a property aggregator.' },
    aggregator: { type: 'string', enum: ['TRIGGER_USER_COUNT', 'TOTAL_COUNT', 'AVG_COUNT', 'REMOVE_DUMPLICATE', 'SUM', 'AVG', 'MAX', 'MIN', 'AVG_PER'] },
    filter: { type: ['object', 'null'], description: 'Optional filter on the target events (spec 2.7).' },
  },
} as const

export const analysisBody = {
  type: 'object',
  required: ['fromDate', 'toDate'],
  additionalProperties: false,
  properties: {
    fromDate: { type: 'string', description: 'First day, yyyy-MM-dd, in the project time zone.' },
    toDate: { type: 'string', description: 'Last day (inclusive), yyyy-MM-dd.' },
    useCache: { type: 'boolean', description: 'Serve a result computed at the current data version.' },
    expression: { type: ['string', 'null'], description: 'The conversion target, event.<id>; the same as convertMeasures [{expression, aggregator: TRIGGER_USER_COUNT}].' },
    convertMeasures: { type: ['array', 'null'], items: measure, description: 'Conversion targets with their aggregators (1-50).' },
  },
} as const

export const analysisResponse = {
  type: 'object',
  properties: {
    success: { type: 'integer', enum: [0] },
    campaignId: { type: 'integer' },
    fromDate: { type: 'string' },
    toDate: { type: 'string' },
    arrivedUsers: { type: 'integer', description: 'Users who arrived with the campaign in the range.' },
    results: {
      type: 'array',
      description: 'One entry per conversion target, in request order.',
      items: {
        type: 'object',
        properties: {
          expression: { type: 'string' },
          aggregator: { type: 'string' },
          convertedUsers: { type: 'integer', description: 'Arrived users who did the target at or after their first arrival, within the range.' },
          conversionRate: { type: ['number', 'null'], description: 'convertedUsers / arrivedUsers (6 decimals); null when nobody arrived.' },
          value: { type: ['number', 'null'], description: "The aggregator over the converted users' target events; counts and SUM are 0 and averages and extremes null when none." },
        },
      },
    },
    reportUpdateTime: common.reportUpdateTime,
    sql: common.sql,
  },
} as const
