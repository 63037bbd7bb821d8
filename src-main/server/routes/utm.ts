import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { analyseCampaign } from '../../domain/analysis/utm'
import { createCampaign, dropCampaign, getCampaign, resolveShortLink, type NewCampaign } from '../../domain/platform/campaigns'
import { loginUserQuery, projectSecurity, responses, successSchema } from '../schemas/common'
import { analysisBody, analysisResponse, campaignIdParams, campaignRecord, createdCampaign, newCampaignBody, newCampaignQuery } from '../schemas/utm'

const BASE = '/svc/uba/api/operations/utm'

/** A Location header holds ASCII only: other characters of a pageUrl are percent-encoded, which browsers read back. */
const asciiOnly = (url: string) => url.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c))

const LINKS = `The long link \`url\` is pageUrl with the query parameters campaign_id, utm_campaign, utm_medium, utm_source, utm_content, utm_term appended in that order, values percent-encoded, before any #fragment; the rest of pageUrl (its query and fragment) is kept as written, a parameter of one of those six names already in pageUrl is replaced, and utm_content / utm_term are left out when empty. \`shortUrl\` is an 8-character code unique across projects; GET /t/{code} on this server (no credentials, loopback only like every route) answers 302 to the long link while the campaign is active, and 404 once it is deleted. The short link records nothing.`

const ARRIVAL = `Who arrived: a user with an event inside the range whose $utm_campaign, $utm_medium and $utm_source equal the campaign's (and $utm_content / $utm_term too when the campaign sets them), or whose $url carries the query parameter campaign_id=<campaignId>; their arrival time is the first such event in the range (an arrival before fromDate does not count). Campaigns with equal utm values (see uniqueSign) share their utm arrivals. Converted: the user did the target event inside the range at or after their arrival time (the arrival event itself counts when it is a target event). For each target: convertedUsers, conversionRate = convertedUsers / arrivedUsers (null when nobody arrived), and value, the aggregator over the converted users' target events from their arrival on: TRIGGER_USER_COUNT (= convertedUsers), TOTAL_COUNT (events), AVG_COUNT (events per converted user); on event.<id>.<property>: REMOVE_DUMPLICATE (distinct values, any type), SUM, AVG, MAX, MIN, AVG_PER (sum per user with a value) on number properties. Send either expression (one target, counted as TRIGGER_USER_COUNT) or convertMeasures (each {expression, aggregator, filter?}); both or neither is a 400 naming both. Deleted campaigns can still be analysed. fromDate and toDate are inclusive days in the project time zone. useCache true serves a result computed at the current data version (reportUpdateTime says when); query explain=true adds the SQL that ran. Every bad field is a 400 naming it; an unknown campaignId is a 400 naming campaignId.`

/** Ad tracking (spec 4.9): campaigns, their links, and their conversion analysis. */
export default async function utmRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  const config = { auth: 'project' as const }

  app.post<{ Querystring: { username?: string }; Body: NewCampaign }>(BASE, {
    config,
    schema: {
      tags: ['utm'],
      summary: 'Create an ad-tracking campaign',
      description: `pageUrl, utmCampaign, utmMedium and utmSource are required; utmContent, utmTerm, remarks and utmType are optional. campaignId is a number unique in the project (1, 2, ... in creation order, never reused). The creator is loginUser (its account fills createName, loginName, email, phone and userId of the record) or, without it, the API; the query username, when sent, is recorded as the creator's display name (createName). Campaigns do not change analysis data. ${LINKS}`,
      security: projectSecurity,
      querystring: { ...newCampaignQuery, properties: { ...newCampaignQuery.properties, ...loginUserQuery } },
      body: newCampaignBody,
      response: responses(createdCampaign, [400, 401, 415, 501]),
    },
  }, async (request) => ({ success: 0, ...createCampaign(ctx, request.project.appKey, request.body, request.operator, request.query.username) }))

  app.get<{ Params: { campaignId: number } }>(`${BASE}/:campaignId`, {
    config,
    schema: {
      tags: ['utm'],
      summary: 'Read a campaign',
      description: `The record of spec 2.4. status 1 active, 0 deleted: a deleted campaign stays readable. canOperated is 1 when the caller created it (with loginUser: that account; without: the API). Fields whose meaning the spec does not show and that UBA Desk does not produce (callbackUrl, checkUrl, checkShort, checkQrcode, qrcode, batchNum) are null. ${LINKS} An unknown campaignId is a 400 naming campaignId.`,
      security: projectSecurity,
      params: campaignIdParams,
      querystring: { type: 'object', properties: loginUserQuery },
      response: responses(campaignRecord, [400, 401, 501]),
    },
  }, async (request) => getCampaign(ctx, request.project.appKey, request.params.campaignId, request.operator))

  app.post<{ Params: { campaignId: number }; Querystring: { explain?: boolean }; Body: Record<string, unknown> }>(`${BASE}/analysis/:campaignId`, {
    config,
    schema: {
      tags: ['utm'],
      summary: 'Conversion analysis of a campaign',
      description: ARRIVAL,
      security: projectSecurity,
      params: campaignIdParams,
      querystring: { type: 'object', properties: { explain: { type: 'boolean', default: false } } },
      body: analysisBody,
      response: responses(analysisResponse, [400, 401, 415, 503]),
    },
  }, async (request) => analyseCampaign(ctx, request.project, request.params.campaignId, request.body, { explain: request.query.explain === true }))

  app.delete<{ Params: { campaignId: number } }>(`${BASE}/drop/:campaignId`, {
    config,
    schema: {
      tags: ['utm'],
      summary: 'Delete a campaign (logical deletion)',
      description: 'Sets status 0 and keeps the record: GET still reads it and it can still be analysed, but its short link stops resolving. Deleting a campaign already deleted, or an unknown campaignId, is a 400 naming campaignId. Any caller with the project credentials may delete (the spec sets no owner condition); loginUser is recorded as the operator.',
      security: projectSecurity,
      params: campaignIdParams,
      querystring: { type: 'object', properties: loginUserQuery },
      response: responses(successSchema, [400, 401, 501]),
    },
  }, async (request) => {
    dropCampaign(ctx, request.project.appKey, request.params.campaignId, request.operator)
    return { success: 0 }
  })

  // the short link: opened by a browser, so no credentials; documented on the campaign routes
  app.get<{ Params: { code: string } }>('/t/:code', {
    config: { auth: 'none' },
    schema: { hide: true },
  }, async (request, reply) => reply.redirect(asciiOnly(resolveShortLink(ctx, request.params.code)), 302))
}
