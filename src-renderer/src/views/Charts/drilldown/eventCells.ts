import type { EventsRequest, EventsResponse } from '../../../api/analysis'
import type { CellTarget } from '../../../models/charts/cellTarget'

/**
 * Which cells and points of the event table and chart open their users, and the cell to ask the
 * server for (POST /uba/api/events/users: {measure, byValue, period}, see
 * src-main/domain/analysis/cells/events.ts). The server lists exactly the users of the rows the
 * measure aggregates, so any measure, filter, breakdown or cohort opens; the formula and the
 * compared range are no measure of the answer and open nothing.
 */

/** The names the answer is drawn with (model/resultLabels.ts, not imported: it brings the stores into the node-side tests). */
export interface EventLabels {
  measures: string[]
  breakdowns: string[]
  unit: string
  range?: { fromDate: string; toDate: string }
}

/** One point of the answer: measure m of answer row `row`, in period `period` (null: the whole range). */
export interface EventPoint {
  measure: number
  row: number
  period: number | null
}

/** A table cell (events.ts): a row per measure (the formula's last) and answer row; then the whole range and each period. */
export function eventPointOfCell(response: EventsResponse, r: number, col: number): EventPoint | null {
  const rows = response.rows.length
  if (rows === 0) return null
  const lead = response.byFields.length > 0 ? 2 : 1
  const measure = Math.floor(r / rows)
  if (col < lead || measure >= response.measures.length) return null
  const period = col === lead ? null : col - lead - 1
  // the columns after the periods are the compared range's
  if (period !== null && period >= response.series.length) return null
  return { measure, row: r % rows, period }
}

/**
 * A point of the chart: its series id is "cell:<measure>:<row>" (results/events.ts; a dotted tail
 * adds ":tail" and keeps the periods' indexes), the data index its period. The formula's series
 * ("formula:") and the compared range's ("before:") are no measure of the answer: null.
 */
export function eventPointOfClick(seriesId: string | undefined, dataIndex: number | undefined): EventPoint | null {
  const match = /^cell:(\d+):(\d+)(:tail)?$/.exec(seriesId ?? '')
  return match && dataIndex !== undefined ? { measure: Number(match[1]), row: Number(match[2]), period: dataIndex } : null
}

/** The figure the table and chart show for a point. */
export function figureOf(response: EventsResponse, p: EventPoint): number | null {
  const row = response.rows[p.row]
  return (p.period === null ? row?.sum[p.measure] : row?.values[p.measure]?.[p.period]) ?? null
}

export function eventCell(request: EventsRequest, response: EventsResponse, labels: EventLabels, p: EventPoint): CellTarget | null {
  const row = response.rows[p.row]
  const measure = request.measures[p.measure]
  if (!row || !measure) return null
  const start = p.period === null ? null : response.series[p.period]
  if (p.period !== null && !start) return null
  const day = start?.slice(0, 10)
  const unit = (labels.unit || 'period').toLowerCase()
  const when = day === undefined ? (labels.range ? `from ${labels.range.fromDate} to ${labels.range.toDate}` : 'in the whole range') : unit === 'day' ? `on ${day}` : `in the ${unit} of ${day}`
  const what = labels.measures[p.measure] ?? response.measures[p.measure] ?? `Measure ${p.measure + 1}`
  const broken = response.byFields.length > 0
  const segment = broken ? row.byValue.map((v, i) => `${labels.breakdowns[i] ?? response.byFields[i]}: ${v}`).join(' · ') : ''
  // unique users count exactly the users listed; another measure (events, a sum) is no number of users
  const counts = measure.aggregator === 'TRIGGER_USER_COUNT'
  const event = what.split(' · ')[0]
  return {
    kind: 'events',
    title: `Users who did ${event} ${when}`,
    segment,
    choices: [{ label: counts ? 'Users' : `Users behind ${what}`, cell: { measure: p.measure, ...(broken ? { byValue: row.byValue } : {}), ...(day ? { period: day } : {}) }, figure: counts ? figureOf(response, p) : null }],
    name: [event, day ?? 'whole range', ...(broken ? row.byValue : [])].join(' · ').slice(0, 92),
  }
}
