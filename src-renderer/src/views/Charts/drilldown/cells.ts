import type { AnalysisKind, DistributionResponse, FunnelsResponse, RetentionResponse, UserAttributesResponse } from '../../../api/analysis'
import type { CellCoordinatesOf } from '../../../api/cellUsers'
import type { ResultLabels } from '../../../models/charts/resultLabels'
import type { CellChoice, CellTarget } from '../../../models/charts/cellTarget'

/**
 * Which cells of the funnel, retention, distribution and user-attribute tables open their users,
 * and what to ask the server for (POST /uba/api/{analysis}/users with the analysis body and the
 * cell). The server finds exactly the users it counted; nothing is re-derived here. A cell may
 * offer a second outcome (dropped off after a step, did not return), shown as a switch.
 */

export type { CellChoice, CellTarget }

type Response = FunnelsResponse | RetentionResponse | DistributionResponse | UserAttributesResponse

const ALL_ROW = (v: unknown) => v === -1 || v === '-1' || v === '$ALL'

function funnelCell(r: FunnelsResponse, labels: ResultLabels, row: number, col: number): CellTarget | null {
  const answer = r.rows[row]
  const steps = r.stepEvents.length
  if (!answer || col < 1) return null
  // columns: segment, step 1, then per later step its users and the rate from the previous one
  let step: number
  let dropped = false
  if (col === 1) step = 0
  else if (col < 2 * steps) {
    step = Math.floor(col / 2)
    if (col % 2 === 1) {
      dropped = true
      step -= 1
    }
  } else return null
  const at = (k: number) => answer.stepsDetail[k]?.convertedUser[0] ?? 0
  const byValue: Omit<CellCoordinatesOf['funnels'], 'step'> = ALL_ROW(answer.byValue) ? {} : { byValue: answer.byValue }
  const name = (k: number) => `${k + 1}. ${labels.steps[k] ?? r.stepEvents[k]}`
  const converted: CellChoice<'funnels'> = { label: 'Reached', cell: { step, ...byValue }, figure: at(step) }
  const drop: CellChoice<'funnels'> | null = step < steps - 1 ? { label: 'Dropped off', cell: { step, outcome: 'dropped', ...byValue }, figure: at(step) - at(step + 1) } : null
  const segment = ALL_ROW(answer.byValue) ? '' : `${labels.breakdowns[0] ?? r.byField}: ${answer.byValue}`
  return {
    kind: 'funnels',
    title: dropped ? `Users who dropped off after ${name(step)}` : `Users who reached ${name(step)}`,
    segment,
    choices: dropped && drop ? [drop, converted] : drop ? [converted, drop] : [converted],
    name: [dropped ? `Dropped after ${name(step)}` : `Reached ${name(step)}`, ...(segment ? [String(answer.byValue)] : [])].join(' · ').slice(0, 92),
  }
}

function retentionCell(r: RetentionResponse, labels: ResultLabels, row: number, col: number): CellTarget | null {
  const answer = r.rows[row]
  if (!answer || col < 1) return null
  const broken = r.byField !== null
  const at: CellCoordinatesOf['retention'] = ALL_ROW(answer.byValue) ? {} : broken ? { byValue: answer.byValue } : { day: answer.byValue.slice(0, 10).replaceAll('/', '-') }
  const rowName = ALL_ROW(answer.byValue) ? 'All users' : broken ? `${labels.breakdowns[0] ?? r.byField}: ${answer.byValue}` : `Cohort of ${answer.byValue.slice(0, 10).replaceAll('/', '-')}`
  const [first, second] = labels.steps
  if (col === 1) {
    return { kind: 'retention', title: `Users who did ${first ?? 'the initial event'}`, segment: rowName, choices: [{ label: 'Started', cell: at, figure: answer.totalPeople }], name: `${first ?? 'Started'} · ${rowName}`.slice(0, 92) }
  }
  const k = col - 2
  const count = answer.retentionPeoples[k]
  if (count === undefined || count === null) return null
  const period = `${(labels.unit || 'period').toLowerCase()} ${k}`
  return {
    kind: 'retention',
    title: `Users who came back (${second ?? 'return event'}), ${period}`,
    segment: rowName,
    choices: [
      { label: 'Returned', cell: { ...at, offset: k }, figure: count },
      { label: 'Did not return', cell: { ...at, offset: k, outcome: 'notReturned' }, figure: answer.totalPeople - count },
    ],
    name: `Returned in ${period} · ${rowName}`.slice(0, 92),
  }
}

function distributionCell(r: DistributionResponse, labels: ResultLabels, row: number, col: number): CellTarget | null {
  const answer = r.rows[row]
  const bucket = r.series[col - 2]
  if (!answer || col < 2 || bucket === undefined) return null
  const segment = answer.byValue === 'all' ? '' : `${labels.breakdowns[0] ?? r.byField ?? 'Period'}: ${answer.byValue}`
  return {
    kind: 'distribution',
    title: `Users whose ${labels.measures[0] ?? r.measure} is in ${bucket}`,
    segment,
    choices: [{ label: bucket, cell: { byValue: answer.byValue, bucket }, figure: answer.values[col - 2] ?? 0 }],
    name: [`${labels.measures[0] ?? r.measure} in ${bucket}`, ...(segment ? [answer.byValue] : [])].join(' · ').slice(0, 92),
  }
}

function userAttributeCell(r: UserAttributesResponse, labels: ResultLabels, row: number, col: number): CellTarget | null {
  const answer = r.rows[row]
  if (!answer || col !== Math.max(1, answer.byValue.length)) return null
  const segment = answer.byValue.map((v, i) => `${labels.breakdowns[i] ?? r.byFields[i]}: ${v}`).join(' · ')
  const counts = r.measure === 'users'
  return {
    kind: 'userAttributes',
    title: counts ? 'Users of this row' : `Users with a value of ${r.measure.split(' · ')[0]}`,
    segment,
    choices: [{ label: 'Users', cell: { byValue: answer.byValue }, figure: counts ? answer.value : null }],
    name: ['Users', ...answer.byValue].join(' · ').slice(0, 92),
  }
}

/** The users behind table cell (row, col) of an answer, or null where a cell has none. */
export function cellTarget(kind: AnalysisKind, response: Response, labels: ResultLabels, row: number, col: number): CellTarget | null {
  switch (kind) {
    case 'funnels':
      return funnelCell(response as FunnelsResponse, labels, row, col)
    case 'retention':
      return retentionCell(response as RetentionResponse, labels, row, col)
    case 'distribution':
      return distributionCell(response as DistributionResponse, labels, row, col)
    case 'userAttributes':
      return userAttributeCell(response as UserAttributesResponse, labels, row, col)
    default:
      return null
  }
}
