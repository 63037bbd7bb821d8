import type { RetentionResponse } from '../../../api/analysis'
import type { ChartOption } from '../../../components/charts/echarts'
import type { ChartPalette } from '../../../components/charts/palette'
import type { RetentionView } from '../../../models/charts/definitions'
import { fullPeriod, periodLabel } from '../../../models/charts/dates'
import { UNIT_LABELS } from '../../../models/charts/labels'
import type { ResultLabels } from '../../../models/charts/resultLabels'
import { base, escapeHtml, type Shaped } from './chartBase'
import { formatNumber, formatRate, rate } from '../../../models/charts/format'
import { retentionCurve } from './retentionCurve'
import { cell, type TableModel } from '../../../models/charts/table'

const ROW_HEIGHT = 24
/** Cells in view at once: beyond these the heatmap scrolls (sliders, wheel), so each keeps its number. */
const VISIBLE_ROWS = 24
const VISIBLE_OFFSETS = 16

/** Where a cell's colour sits between the two ends of the scale decides its text colour. */
function labelColor(position: number, p: ChartPalette): string {
  if (p.dark) return position > 0.6 ? '#12121c' : '#e7e9ee'
  return position > 0.45 ? '#ffffff' : '#1b2130'
}

/**
 * The "All users" row is not the sum of the rows below: it says how it counts. Each user counts
 * once however many periods (or values) they started in.
 */
export function allUsersNote(mode: ResultLabels['retentionMode'], broken: boolean): string {
  const where = broken ? 'with any value' : 'in any period of the range'
  const back = mode === 'onOrAfter' ? 'came back at +k or later from any start' : 'came back at +k from any start'
  return `Each user counted once: in Users if they did the initial event ${where}, at +k if they ${back}. Not the sum of the rows below.`
}

/**
 * The top of the colour scale: the highest rate after the first period (+0 is often near 100%
 * and would leave every later cell pale). Rates above it take the darkest colour.
 */
function scaleTop(r: RetentionResponse): number {
  const later = r.rows.flatMap((row) => row.retentionPeoples.slice(1).map((n) => rate(n, row.totalPeople) ?? 0))
  return Math.max(0.01, ...later)
}

/**
 * Retention: the triangle of returning users, one row per initial period (or breakdown value)
 * after the de-duplicated total, one column per period since; cells coloured by rate. As a curve:
 * the percentage by offset, a line for all users and one per breakdown value.
 */
export function shapeRetention(r: RetentionResponse, labels: ResultLabels, p: ChartPalette, view: RetentionView = 'heatmap'): Shaped {
  const unit = UNIT_LABELS[labels.unit as keyof typeof UNIT_LABELS] ?? 'Period'
  const width = Math.max(0, ...r.rows.map((row) => row.retentionPeoples.length))
  const periods = Array.from({ length: width }, (_, k) => `${unit} ${k}`)
  const broken = r.byField !== null
  const note = allUsersNote(labels.retentionMode, broken)
  const rowName = (value: string): string => {
    if (value === '$ALL') return 'All users'
    return !broken && /^\d{4}\/\d{2}\/\d{2}/.test(value) ? periodLabel(value.slice(0, 10).replaceAll('/', '-'), labels.unit) : value
  }
  const top = scaleTop(r)
  const heat = (share: number) => Math.min(1, share / top)

  const table: TableModel = {
    columns: [{ label: broken ? (labels.breakdowns[0] ?? r.byField ?? 'Value') : 'Cohort' }, { label: 'Users', numeric: true }, ...periods.map((label) => ({ label, numeric: true }))],
    rows: r.rows.map((row) => [
      // the raw value, which the CSV holds, is the cohort's full date; the screen shows it short
      row.byValue === '$ALL' ? { ...cell(rowName(row.byValue)), title: note } : !broken ? cell(fullPeriod(row.byValue), rowName(row.byValue)) : cell(rowName(row.byValue)),
      cell(row.totalPeople),
      ...periods.map((_, k) => {
        const count = row.retentionPeoples[k] ?? null
        const share = rate(count, row.totalPeople)
        return count === null ? cell(null, '') : { value: count, text: formatRate(share), sub: formatNumber(count), heat: heat(share ?? 0) }
      }),
    ]),
  }
  const empty = r.rows.length === 0 || r.rows[0].totalPeople === 0
  if (view === 'curve') {
    const curve = retentionCurve(r, r.rows.map((row) => rowName(row.byValue)), periods, p, note)
    if (curve.note) table.note = curve.note
    return { option: curve.option, table, empty, height: 360 }
  }

  const names = r.rows.map((row) => rowName(row.byValue))
  const data = r.rows.flatMap((row, y) =>
    row.retentionPeoples.flatMap((count, x) => {
      if (count === null) return []
      const share = rate(count, row.totalPeople) ?? 0
      return [{ value: [x, y, Math.round(share * 1000) / 10], label: { color: labelColor(heat(share), p) } }]
    }),
  )
  const scrollsAcross = width > VISIBLE_OFFSETS
  const scrollsDown = names.length > VISIBLE_ROWS
  const slider = { type: 'slider' as const, height: 14, width: 14, borderColor: p.border, fillerColor: 'rgba(128,128,160,0.18)', showDetail: false, brushSelect: false, handleSize: '90%', textStyle: { color: p.muted } }

  const option: ChartOption = {
    ...base(p),
    grid: { left: 8, right: scrollsDown ? 36 : 16, top: 8, bottom: scrollsAcross ? 34 : 8, containLabel: true },
    tooltip: {
      ...(base(p).tooltip as object),
      formatter: (params) => {
        const [x, y] = (params as { value: number[] }).value
        const row = r.rows[y]
        const count = row?.retentionPeoples[x] ?? 0
        const text = `<b>${escapeHtml(names[y])}</b> · ${escapeHtml(periods[x])}<br/>${formatNumber(count)} of ${formatNumber(row?.totalPeople)} users · ${formatRate(rate(count, row?.totalPeople))}`
        return row?.byValue === '$ALL' ? `${text}<br/><span style="display:inline-block;max-width:280px;white-space:normal">${escapeHtml(note)}</span>` : text
      },
    },
    xAxis: { type: 'category', data: periods, position: 'top', axisLine: { show: false }, axisTick: { show: false }, axisLabel: { color: p.muted, fontSize: 11 }, splitArea: { show: false } },
    yAxis: { type: 'category', data: names, inverse: true, axisLine: { show: false }, axisTick: { show: false }, axisLabel: { color: p.text, fontSize: 11.5 } },
    dataZoom: [
      ...(scrollsAcross ? [{ ...slider, id: 'offsets', xAxisIndex: 0, startValue: 0, endValue: VISIBLE_OFFSETS - 1, bottom: 6, width: undefined }] : []),
      ...(scrollsDown ? [{ ...slider, id: 'cohorts', yAxisIndex: 0, startValue: 0, endValue: VISIBLE_ROWS - 1, right: 6, height: undefined, orient: 'vertical' as const }] : []),
      ...(scrollsAcross || scrollsDown ? [{ type: 'inside' as const, ...(scrollsAcross ? { xAxisIndex: 0 } : {}), ...(scrollsDown ? { yAxisIndex: 0 } : {}), zoomOnMouseWheel: false, moveOnMouseWheel: true }] : []),
    ],
    visualMap: { show: false, type: 'continuous', min: 0, max: Math.round(top * 1000) / 10, dimension: 2, inRange: { color: p.scale } },
    series: [
      {
        type: 'heatmap',
        data,
        label: { show: true, fontSize: 10.5, formatter: (v) => `${(v.value as number[])[2]}%` },
        itemStyle: { borderColor: p.surface, borderWidth: 2, borderRadius: 3 },
        emphasis: { itemStyle: { borderColor: p.accent } },
      },
    ],
  }
  const shownRows = Math.min(names.length, VISIBLE_ROWS)
  return { option, table, empty, height: Math.max(200, shownRows * ROW_HEIGHT + 40 + (scrollsAcross ? 30 : 0)) }
}
