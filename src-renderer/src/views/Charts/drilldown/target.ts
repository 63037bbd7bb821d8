import type { EventsRequest, EventsResponse } from '../../../api/analysis'
import type { CohortContent } from '../../../api/cohorts'
import type { DataType } from '../../../api/schema'
import { formatNumber } from '../results/format'
import { alternativesOf, breakdownAlternatives, contentOf, multiply, periodDays, Refusal, type Alternatives } from './rule'

/**
 * One point of an event chart (a measure, a breakdown row, a period or the whole range) and what
 * drilling into it means: the title of the panel, the name of the temporary cohort and its rules.
 */

export interface DrillPoint {
  measure: number
  /** Index into the answer's rows. */
  row: number
  /** Index into the answer's series; null: the whole range. */
  period: number | null
}

export interface DrillNames {
  event(eventId: string): string
  /** The breakdown property's display name. */
  breakdown: string
  /** Each measure's label as the chart shows it. */
  measures: string[]
  /** The data type of the breakdown property. */
  breakdownType?: DataType
}

export interface DrillTarget {
  point: DrillPoint
  /** "Users who did Pay on Nov 14, 2026". */
  title: string
  /** "Platform: iOS", or '' without a breakdown. */
  segment: string
  /** The chart's figure for the point and what it measures. */
  figure: { measure: string; value: number | null; text: string }
  /** The measure counts exactly these users (unique users): the cohort's size must equal the figure. */
  sameUsers: boolean
  /** What the list holds when the measure is not a count of users. */
  note: string
  /** The cohort name to start from (made unique when created). */
  name: string
  days: [string, string]
  content: CohortContent
}

export type Drill = { ok: true; target: DrillTarget } | { ok: false; title: string; reason: string }

/** The cohort name limit (server NAME_MAX), with room for a " (n)" suffix. */
const NAME_ROOM = 92

const SHORT = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' })
const LONG = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' })

/** "Nov 14" or "Nov 14, 2026", as the chart writes dates (model/dates.ts would bring the stores into the node-side tests). */
function shortDay(day: string, withYear: boolean): string {
  return (withYear ? LONG : SHORT).format(new Date(`${day}T00:00:00Z`))
}

function when([from, to]: [string, string]): string {
  if (from === to) return `on ${shortDay(from, true)}`
  return `from ${shortDay(from, from.slice(0, 4) !== to.slice(0, 4))} to ${shortDay(to, true)}`
}

/** Why no point of this chart can be drilled into, or '' when points can. */
export function chartRefusal(request: EventsRequest): string {
  const crowds = request.crowds ?? ['$ALL']
  if (crowds.length > 0 && !crowds.includes('$ALL')) return 'The chart counts the users of a cohort only; a cohort rule cannot refer to another cohort, so these users cannot be listed exactly. Choose All users to drill down.'
  const sampling = (request as { samplingFactor?: number }).samplingFactor
  if (sampling !== undefined && sampling < 1) return 'The chart reads a sample of the users; the list would hold every user.'
  if ((request.byFields?.length ?? 0) > 1) return 'Drill-down takes one breakdown at most.'
  return ''
}

/** The drill-down of one point, or why there is none. */
export function drillOf(request: EventsRequest, response: EventsResponse, point: DrillPoint, names: DrillNames): Drill {
  const measure = request.measures[point.measure]
  const row = response.rows[point.row]
  const eventExpression = measure?.expression.split('.').slice(0, 2).join('.') ?? ''
  const eventName = names.event(eventExpression.slice('event.'.length))
  const days = periodDays(response.series, point.period, request.unit, request.fromDate, request.toDate)
  const title = `Users who did ${eventName} ${when(days)}`
  const refuse = (reason: string): Drill => ({ ok: false, title, reason })
  if (!measure || !row) return refuse('This point is not in the chart’s answer.')
  const chartWide = chartRefusal(request)
  if (chartWide) return refuse(chartWide)

  const value = point.period === null ? (row.sum[point.measure] ?? null) : (row.values[point.measure]?.[point.period] ?? null)
  const counts = ['TRIGGER_USER_COUNT', 'TOTAL_COUNT', 'AVG_COUNT'].includes(measure.aggregator)
  if (counts && !value) return refuse('Nobody did this event here.')

  const by = request.byFields?.[0]
  const label = row.byValue[0] ?? ''
  let events: Alternatives = multiply(alternativesOf(measure.filter), alternativesOf(request.filter))
  let users: Alternatives | null = null
  let content: CohortContent
  try {
    if (by) {
      const conditions = breakdownAlternatives(by, names.breakdownType ?? 'string', label)
      if (by.expression.startsWith('user.')) users = conditions
      else events = multiply(events, conditions)
    }
    content = contentOf({ event: eventExpression, days, events, users })
  } catch (err) {
    if (err instanceof Refusal) return refuse(err.message)
    throw err
  }

  const segment = by ? `${names.breakdown}: ${label}` : ''
  const period = days[0] === days[1] ? days[0] : `${days[0]} – ${days[1]}`
  const name = ['Drill-down', eventName, period, ...(by ? [label] : [])].join(' · ').slice(0, NAME_ROOM)
  const measureLabel = names.measures[point.measure] ?? measure.aggregator
  const sameUsers = measure.aggregator === 'TRIGGER_USER_COUNT'
  const note = sameUsers ? '' : `The chart shows ${measureLabel} here (${formatNumber(value)}), not a number of users: these are the users who did ${eventName} in this point.`
  return {
    ok: true,
    target: { point, title, segment, figure: { measure: measureLabel, value, text: formatNumber(value) }, sameUsers, note, name, days, content },
  }
}
