import type { DomainContext } from '../context'
import { badParam } from '../errors'
import { campaignTarget, type CampaignTarget } from '../platform/campaigns'
import type { ProjectScope } from '../project/scope'
import { dsOf } from '../time/calendar'
import { eventSql, resolveEvent } from '../expr/eventRefs'
import { filterSql, type Columns } from '../expr/filterSql'
import { dateRange, knownFields, recordOf } from './request'
import { runAnalysis, type AnalysisEnv, type AnalysisModule, type ExplainedSql } from './runner'
import type { Dialect, SqlParams } from '../../warehouse/dialect'
import type { NamedQuery } from '../../warehouse/parts/aggregates'
import { profileReads } from './profileReads'
import { aggregateSql, checkMeasure, emptyValue, type CheckedMeasure } from './measures'

/**
 * Ad-tracking conversion (spec 4.9): of the users who arrived with a campaign inside the range,
 * how many did a target event at or after their first arrival, and a measure over those events.
 * - Arrival: any event in the range whose $utm_campaign, $utm_medium and $utm_source equal the
 *   campaign's (and $utm_content / $utm_term when the campaign sets them), or whose $url carries
 *   the query parameter campaign_id=<campaignId>. A user's arrival time is their first such event.
 * - Conversion: a target event in the range at or after that time (the arrival event itself counts
 *   when it is a target event).
 */

const FIELDS = ['campaignId', 'fromDate', 'toDate', 'expression', 'convertMeasures']

type ConvertMeasure = CheckedMeasure

export interface UtmRequest {
  campaign: CampaignTarget
  fromDate: string
  toDate: string
  measures: ConvertMeasure[]
}

export interface ConvertResult {
  expression: string
  aggregator: string
  convertedUsers: number
  conversionRate: number | null
  value: number | null
}

export interface UtmResponse {
  success: 0
  campaignId: number
  fromDate: string
  toDate: string
  arrivedUsers: number
  results: ConvertResult[]
}

type Env = Pick<AnalysisEnv, 'ctx' | 'scope' | 'lookup' | 'columns'>

function measureOf(env: Env, value: unknown, i: number): ConvertMeasure {
  return checkMeasure(env, recordOf(value, `convertMeasures[${i}]`), `convertMeasures[${i}]`)
}

/** `expression` alone is one measure: the users who did it (TRIGGER_USER_COUNT). */
function measuresOf(env: Env, body: Record<string, unknown>): ConvertMeasure[] {
  const given = (v: unknown) => v !== undefined && v !== null
  if (given(body.expression) === given(body.convertMeasures)) {
    throw badParam(['expression', 'convertMeasures'], 'send either expression (a conversion target) or convertMeasures, not both and not neither')
  }
  if (given(body.expression)) {
    const event = resolveEvent(env.ctx.meta, env.scope.appKey, body.expression, 'expression', env.lookup)
    return [{ expression: event.expression, aggregator: 'TRIGGER_USER_COUNT', event, property: null }]
  }
  const list = body.convertMeasures
  if (!Array.isArray(list) || list.length === 0) throw badParam('convertMeasures', 'convertMeasures must be a non-empty list of {expression, aggregator}')
  if (list.length > 50) throw badParam('convertMeasures', 'convertMeasures holds at most 50 measures')
  return list.map((m, i) => measureOf(env, m, i))
}

/** A string event property as SQL over `e`; NULL while no data has created its column. */
function eventText(columns: Columns, id: string, d: Dialect): string {
  return d.columnOf({ table: 'event_vd', row: 'e', column: columns.event.has(id) ? id : null, type: 'string' })
}

/** The condition that makes an event an arrival with the campaign (see the module comment). */
function arrivalSql(c: CampaignTarget, columns: Columns, p: SqlParams, d: Dialect): string {
  const utm: [string, string][] = [
    ['$utm_campaign', c.utmCampaign],
    ['$utm_medium', c.utmMedium],
    ['$utm_source', c.utmSource],
    ['$utm_content', c.utmContent],
    ['$utm_term', c.utmTerm],
  ]
  const byUtm = utm
    .filter(([, value]) => value !== '')
    .map(([id, value]) => `${eventText(columns, id, d)} = ${p.add(value)}`)
    .join(' AND ')
  // the parameter exactly (campaign_id=1 is not campaign_id=12): after ? or &, before &, # or the end;
  // plain substring tests, several times faster than a regular expression on ten million rows
  const url = eventText(columns, '$url', d)
  const key = `campaign_id=${c.campaignId}`
  const inside = ['?', '&'].flatMap((before) => ['&', '#'].map((after) => d.contains(url, p.add(before + key + after))))
  const atEnd = ['?', '&'].map((before) => d.endsWith(url, p.add(before + key)))
  const byLink = `(${d.contains(url, p.add(key))} AND (${[...inside, ...atEnd].join(' OR ')}))`
  return `(coalesce(${byUtm}, ${d.truth(false)}) OR coalesce(${byLink}, ${d.truth(false)}))`
}


function rounded(value: unknown): number | null {
  if (value === null || value === undefined) return null
  return Math.round(Number(value) * 1e6) / 1e6
}

export const utmAnalysis: AnalysisModule<UtmRequest, UtmResponse> = {
  kind: 'utm',
  validate(env, body) {
    knownFields(body, FIELDS)
    const campaign = campaignTarget(env.ctx.meta, env.scope.appKey, body.campaignId)
    const { fromDate, toDate } = dateRange(body)
    return { campaign, fromDate, toDate, measures: measuresOf(env, body) }
  },

  async run(env, req) {
    const d = env.dialect
    const p = env.params()
    const from = p.add(dsOf(req.fromDate))
    const to = p.add(dsOf(req.toDate))
    const profile = profileReads(req.measures.map((m) => m.filter), [], env.columns)
    const matches = req.measures.map((m, i) => `(${eventSql(m.event, env, p)} AND ${filterSql(m.filter, env, p)}) AS m${i}`)
    const values = req.measures.flatMap((m, i) => (m.property ? [`${d.columnOf(m.property.column)} AS v${i}`] : []))
    // written once (its values bound once), read twice
    const arrival = arrivalSql(req.campaign, env.columns, p, d)
    const days = `e.ds BETWEEN ${from} AND ${to}`
    const join = d.innerJoinOn('a.distinct_id = e.distinct_id', 'e.xwhen >= a.arrived')
    const arrivals: NamedQuery = {
      name: 'arrivals',
      sql: () => `
        SELECT e.distinct_id, min(e.xwhen) AS arrived
        FROM event_vd e
        WHERE ${days} AND ${arrival}
        GROUP BY e.distinct_id
      `,
    }
    const targets: NamedQuery = {
      name: 'targets',
      sql: (named) => `
        SELECT e.distinct_id, ${[...matches, ...values].join(', ')}
        FROM ${d.eventRows({ joins: [{ sql: `JOIN ${named('arrivals', 'a')} ON ${join.on}`, alias: 'a', columns: ['arrived'] }], profile, eventWhere: days })}
        WHERE ${days}${join.where ? ` AND ${join.where}` : ''}
      `,
    }
    const sql = d.withQueries(
      [arrivals, targets],
      (named) => `
      SELECT (SELECT count(*) FROM ${named('arrivals')}) AS arrived,
        ${req.measures.map((m, i) => `${d.distinctCount('distinct_id', `m${i}`)} AS c${i}, ${aggregateSql(m.aggregator, i, d)} AS a${i}`).join(', ')}
      FROM ${named('targets')} WHERE ${req.measures.map((_, i) => `m${i}`).join(' OR ')}`,
    )
    const [row] = await env.query(sql, p)
    const arrivedUsers = Number(row.arrived)
    return {
      success: 0,
      campaignId: req.campaign.campaignId,
      fromDate: req.fromDate,
      toDate: req.toDate,
      arrivedUsers,
      results: req.measures.map((m, i) => {
        const convertedUsers = Number(row[`c${i}`] ?? 0)
        const value = row[`a${i}`]
        return {
          expression: m.expression,
          aggregator: m.aggregator,
          convertedUsers,
          conversionRate: arrivedUsers === 0 ? null : rounded(convertedUsers / arrivedUsers),
          value: value === null || value === undefined ? emptyValue(m.aggregator) : rounded(value),
        }
      }),
    }
  },
}

/**
 * Runs the conversion analysis of one campaign. The campaign id comes from the path; it joins the
 * body only inside the analysis, so it keys the cache and cannot be sent in the body.
 */
export async function analyseCampaign(
  ctx: DomainContext,
  scope: ProjectScope,
  campaignId: number,
  body: Record<string, unknown>,
  options: { explain: boolean },
): Promise<UtmResponse & { reportUpdateTime: string; sql?: ExplainedSql[] }> {
  if (body.campaignId !== undefined) throw badParam('campaignId', 'campaignId is given in the path, not in the body')
  return runAnalysis(ctx, scope, utmAnalysis, { ...body, campaignId }, options)
}
