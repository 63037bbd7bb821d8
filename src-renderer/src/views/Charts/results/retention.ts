import type { RetentionResponse } from '../../../api/analysis'
import type { ChartOption } from '../../../components/charts/echarts'
import type { ChartPalette } from '../../../components/charts/palette'
import { fullPeriod, periodLabel } from '../model/dates'
import { UNIT_LABELS } from '../model/labels'
import type { ResultLabels } from '../model/resultLabels'
import { base, escapeHtml, type Shaped } from './chartBase'
import { formatNumber, formatRate, rate } from './format'
import { cell, type TableModel } from './table'

const ROW_HEIGHT = 30

/** Where a cell's rate sits between the two ends of the colour scale decides its text colour. */
function labelColor(share: number, p: ChartPalette): string {
  if (p.dark) return share > 0.6 ? '#12121c' : '#e7e9ee'
  return share > 0.45 ? '#ffffff' : '#1b2130'
}

/**
 * Retention: the triangle of returning users, one row per initial period (or breakdown value)
 * after the de-duplicated total, one column per period since; cells coloured by rate.
 */
export function shapeRetention(r: RetentionResponse, labels: ResultLabels, p: ChartPalette): Shaped {
  const unit = UNIT_LABELS[labels.unit as keyof typeof UNIT_LABELS] ?? 'Period'
  const width = Math.max(0, ...r.rows.map((row) => row.retentionPeoples.length))
  const periods = Array.from({ length: width }, (_, k) => `${unit} ${k}`)
  const broken = r.byField !== null
  const rowName = (value: string): string => {
    if (value === '$ALL') return 'All users'
    return !broken && /^\d{4}\/\d{2}\/\d{2}/.test(value) ? periodLabel(value.slice(0, 10).replaceAll('/', '-'), labels.unit) : value
  }

  const table: TableModel = {
    columns: [{ label: broken ? (labels.breakdowns[0] ?? r.byField ?? 'Value') : 'Cohort' }, { label: 'Users', numeric: true }, ...periods.map((label) => ({ label, numeric: true }))],
    rows: r.rows.map((row) => [
      // the raw value, which the CSV holds, is the cohort's full date; the screen shows it short
      !broken && row.byValue !== '$ALL' ? cell(fullPeriod(row.byValue), rowName(row.byValue)) : cell(rowName(row.byValue)),
      cell(row.totalPeople),
      ...periods.map((_, k) => {
        const count = row.retentionPeoples[k] ?? null
        const share = rate(count, row.totalPeople)
        return count === null ? cell(null, '') : { value: count, text: formatRate(share), sub: formatNumber(count), heat: share ?? 0 }
      }),
    ]),
  }

  const names = r.rows.map((row) => rowName(row.byValue))
  const labelled = r.rows.length <= 24 && width <= 16
  const data = r.rows.flatMap((row, y) =>
    row.retentionPeoples.flatMap((count, x) => {
      if (count === null) return []
      const share = rate(count, row.totalPeople) ?? 0
      return [{ value: [x, y, Math.round(share * 1000) / 10], label: { color: labelColor(share, p) } }]
    }),
  )

  const option: ChartOption = {
    ...base(p),
    grid: { left: 8, right: 16, top: 8, bottom: 8, containLabel: true },
    tooltip: {
      ...(base(p).tooltip as object),
      formatter: (params) => {
        const [x, y] = (params as { value: number[] }).value
        const row = r.rows[y]
        const count = row?.retentionPeoples[x] ?? 0
        return `<b>${escapeHtml(names[y])}</b> · ${escapeHtml(periods[x])}<br/>${formatNumber(count)} of ${formatNumber(row?.totalPeople)} users · ${formatRate(rate(count, row?.totalPeople))}`
      },
    },
    xAxis: { type: 'category', data: periods, position: 'top', axisLine: { show: false }, axisTick: { show: false }, axisLabel: { color: p.muted, fontSize: 11 }, splitArea: { show: false } },
    yAxis: { type: 'category', data: names, inverse: true, axisLine: { show: false }, axisTick: { show: false }, axisLabel: { color: p.text, fontSize: 11.5 } },
    visualMap: { show: false, type: 'continuous', min: 0, max: 100, dimension: 2, inRange: { color: p.scale } },
    series: [
      {
        type: 'heatmap',
        data,
        label: { show: labelled, fontSize: 11, formatter: (v) => `${(v.value as number[])[2]}%` },
        itemStyle: { borderColor: p.surface, borderWidth: 2, borderRadius: 3 },
        emphasis: { itemStyle: { borderColor: p.accent } },
      },
    ],
  }
  const empty = r.rows.length === 0 || r.rows[0].totalPeople === 0
  return { option, table, empty, height: Math.min(560, Math.max(200, names.length * ROW_HEIGHT + 40)) }
}
