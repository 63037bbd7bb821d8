import { createHash } from 'node:crypto'
import type { MetaDb } from '../../store/meta'
import type { DomainContext, Operator } from '../context'
import { AppError, badParam } from '../errors'
import { checkPageUrl, LINK_PARAMS, longUrl, newShortCode, SHORT_CODE } from './campaignLinks'
import { recordOperation } from '../project/operations'

/**
 * Ad-tracking campaigns (spec 2.4, 4.9): a landing page plus utm parameters, given a numeric id
 * unique in the project, a long link that carries them and a short link code that resolves to it.
 * Deletion is logical (status 0): the record stays readable and its visits stay analysable, but
 * it cannot be deleted again and its short link stops resolving.
 */

export const CampaignStatus = { deleted: 0, active: 1 } as const

export interface NewCampaign {
  pageUrl: string
  utmCampaign: string
  utmMedium: string
  utmSource: string
  utmContent?: string
  utmTerm?: string
  remarks?: string
  utmType?: string
}

/** The values an event is matched on in the conversion analysis. */
export interface CampaignTarget {
  campaignId: number
  utmCampaign: string
  utmMedium: string
  utmSource: string
  /** Empty when the campaign has none: then any value matches. */
  utmContent: string
  utmTerm: string
}

/** A campaign as GET shows it: every field of spec 2.4 with its JSON type. */
export interface CampaignView {
  id: number
  campaignId: string
  utmType: string
  callbackUrl: null
  checkUrl: null
  checkShort: null
  checkQrcode: null
  qrcode: null
  createName: string | null
  loginName: string | null
  email: string | null
  phone: string | null
  batchNum: null
  project: string | null
  originUrl: string
  pageUrl: string
  utmCampaign: string
  utmMedium: string
  utmSource: string
  utmContent: string
  utmTerm: string
  url: string
  shortUrl: string
  remarks: string
  appKey: string
  userId: number
  status: number
  createTime: number
  updateTime: number
  canOperated: number
  uniqueSign: string
}

interface CampaignRow {
  id: number
  app_key: string
  campaign_id: number
  short_code: string
  page_url: string
  utm_campaign: string
  utm_medium: string
  utm_source: string
  utm_content: string | null
  utm_term: string | null
  utm_type: string | null
  remarks: string | null
  status: number
  created_by: number | null
  create_name: string | null
  create_time: number
  update_time: number
}

function linkParams(row: CampaignRow): [string, string][] {
  const values = [String(row.campaign_id), row.utm_campaign, row.utm_medium, row.utm_source, row.utm_content ?? '', row.utm_term ?? '']
  return LINK_PARAMS.map((name, i) => [name, values[i]])
}

/** Equal for campaigns with the same page and utm values, whose visits cannot be told apart by utm. */
function uniqueSign(row: CampaignRow): string {
  const parts = [row.page_url, row.utm_campaign, row.utm_medium, row.utm_source, row.utm_content ?? '', row.utm_term ?? '']
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32)
}

function checkText(value: unknown, field: string, max: number, required: boolean): void {
  if (value === undefined && !required) return
  if (typeof value !== 'string') throw badParam(field, required ? `${field} is required` : `${field} must be a string`)
  if (required && value.trim() === '') throw badParam(field, `${field} must not be empty`)
  if (value.length > max) throw badParam(field, `${field}: at most ${max} characters`)
  if (/[\u0000-\u001f\u007f]/.test(value)) throw badParam(field, `${field} must not contain control characters`)
}

/** Field rules of a new campaign; the route schema states the same. */
export const CAMPAIGN_LIMITS = { pageUrl: 2000, utm: 100, remarks: 200, utmType: 50, createName: 50 } as const

function checkCampaign(input: NewCampaign, createName: string | undefined): void {
  checkText(input.pageUrl, 'pageUrl', CAMPAIGN_LIMITS.pageUrl, true)
  checkPageUrl(input.pageUrl)
  checkText(input.utmCampaign, 'utmCampaign', CAMPAIGN_LIMITS.utm, true)
  checkText(input.utmMedium, 'utmMedium', CAMPAIGN_LIMITS.utm, true)
  checkText(input.utmSource, 'utmSource', CAMPAIGN_LIMITS.utm, true)
  checkText(input.utmContent, 'utmContent', CAMPAIGN_LIMITS.utm, false)
  checkText(input.utmTerm, 'utmTerm', CAMPAIGN_LIMITS.utm, false)
  checkText(input.remarks, 'remarks', CAMPAIGN_LIMITS.remarks, false)
  checkText(input.utmType, 'utmType', CAMPAIGN_LIMITS.utmType, false)
  if (createName !== undefined) {
    checkText(createName, 'username', CAMPAIGN_LIMITS.createName, true)
  }
}

/**
 * Creates a campaign owned by the operator (or by the API). `createName` (the sample's query
 * `username`) is the creator's display name; without it the account's name, user name or e-mail.
 */
export function createCampaign(ctx: DomainContext, appKey: string, input: NewCampaign, operator: Operator | null, createName?: string): { campaignId: number } {
  checkCampaign(input, createName)
  const account = operator
    ? (ctx.meta.prepare('SELECT name, user_name AS userName, email FROM accounts WHERE id = ?').get(operator.id) as { name: string | null; userName: string | null; email: string })
    : undefined
  const displayName = createName ?? (account ? (account.name ?? account.userName ?? account.email) : null)
  const optional = (value: string | undefined) => (value === undefined || value === '' ? null : value)
  return ctx.meta.transaction(() => {
    const campaignId = (ctx.meta.prepare('SELECT coalesce(max(campaign_id), 0) + 1 FROM campaigns WHERE app_key = ?').pluck().get(appKey) as number)
    const now = Date.now()
    ctx.meta
      .prepare(
        `INSERT INTO campaigns (app_key, campaign_id, short_code, page_url, utm_campaign, utm_medium, utm_source, utm_content, utm_term,
                                utm_type, remarks, status, created_by, create_name, create_time, update_time)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        appKey, campaignId, newShortCode((code) => !!ctx.meta.prepare('SELECT 1 FROM campaigns WHERE short_code = ?').get(code)), input.pageUrl, input.utmCampaign, input.utmMedium, input.utmSource,
        optional(input.utmContent), optional(input.utmTerm), optional(input.utmType), optional(input.remarks),
        CampaignStatus.active, operator?.id ?? null, displayName, now, now,
      )
    recordOperation(ctx.meta, operator, 'campaign.create', appKey, String(campaignId))
    return { campaignId }
  })()
}

function findRow(meta: MetaDb, appKey: string, campaignId: number): CampaignRow {
  const row = meta.prepare('SELECT * FROM campaigns WHERE app_key = ? AND campaign_id = ?').get(appKey, campaignId) as CampaignRow | undefined
  if (!row) throw badParam('campaignId', `no campaign has the id ${campaignId}`)
  return row
}

/** The campaign record; `canOperated` is 1 when the caller (loginUser, or the API) created it. */
export function getCampaign(ctx: DomainContext, appKey: string, campaignId: number, operator: Operator | null): CampaignView {
  const row = findRow(ctx.meta, appKey, campaignId)
  const creator = row.created_by === null
    ? undefined
    : (ctx.meta.prepare('SELECT user_name AS userName, email, phone FROM accounts WHERE id = ?').get(row.created_by) as { userName: string | null; email: string; phone: string | null } | undefined)
  const project = ctx.meta.prepare('SELECT cname FROM projects WHERE app_key = ?').pluck().get(appKey) as string | undefined
  const url = longUrl(row.page_url, linkParams(row))
  return {
    id: row.id,
    campaignId: String(row.campaign_id),
    utmType: row.utm_type ?? '',
    callbackUrl: null,
    checkUrl: null,
    checkShort: null,
    checkQrcode: null,
    qrcode: null,
    createName: row.create_name,
    loginName: creator ? (creator.userName ?? creator.email) : null,
    email: creator?.email ?? null,
    phone: creator?.phone ?? null,
    batchNum: null,
    project: project ?? null,
    originUrl: url,
    pageUrl: row.page_url,
    utmCampaign: row.utm_campaign,
    utmMedium: row.utm_medium,
    utmSource: row.utm_source,
    utmContent: row.utm_content ?? '',
    utmTerm: row.utm_term ?? '',
    url,
    shortUrl: row.short_code,
    remarks: row.remarks ?? '',
    appKey: row.app_key,
    userId: row.created_by ?? 0,
    status: row.status,
    createTime: row.create_time,
    updateTime: row.update_time,
    canOperated: row.created_by === (operator?.id ?? null) ? 1 : 0,
    uniqueSign: uniqueSign(row),
  }
}

/** Logical deletion: status 0, the record kept. A campaign already deleted is a 400. */
export function dropCampaign(ctx: DomainContext, appKey: string, campaignId: number, operator: Operator | null): void {
  const row = findRow(ctx.meta, appKey, campaignId)
  if (row.status === CampaignStatus.deleted) throw badParam('campaignId', `campaign ${campaignId} is already deleted`)
  ctx.meta.transaction(() => {
    ctx.meta.prepare('UPDATE campaigns SET status = ?, update_time = ? WHERE id = ?').run(CampaignStatus.deleted, Date.now(), row.id)
    recordOperation(ctx.meta, operator, 'campaign.delete', appKey, String(campaignId))
  })()
}

/** What the conversion analysis matches events on; deleted campaigns included (their visits happened). */
export function campaignTarget(meta: MetaDb, appKey: string, campaignId: unknown): CampaignTarget {
  if (typeof campaignId !== 'number' || !Number.isSafeInteger(campaignId) || campaignId < 1) throw badParam('campaignId', 'campaignId must be a campaign id (a whole number)')
  const row = findRow(meta, appKey, campaignId)
  return {
    campaignId: row.campaign_id,
    utmCampaign: row.utm_campaign,
    utmMedium: row.utm_medium,
    utmSource: row.utm_source,
    utmContent: row.utm_content ?? '',
    utmTerm: row.utm_term ?? '',
  }
}

/**
 * The long link a short link code stands for: an active campaign of a normal project. Anything
 * else is a 404, so a short link says nothing about campaigns it does not open.
 */
export function resolveShortLink(ctx: DomainContext, code: string): string {
  const row = SHORT_CODE.test(code)
    ? (ctx.meta
        .prepare('SELECT c.* FROM campaigns c JOIN projects p ON p.app_key = c.app_key WHERE c.short_code = ? AND c.status = ? AND p.status = 1')
        .get(code, CampaignStatus.active) as CampaignRow | undefined)
    : undefined
  if (!row) throw new AppError(404, 404, 'no active campaign has this short link')
  return longUrl(row.page_url, linkParams(row))
}
