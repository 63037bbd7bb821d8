import type { UserAttributesResponse } from '../../../api/analysis'
import type { ChartOption } from '../../../components/charts/echarts'
import type { ChartPalette } from '../../../components/charts/palette'
import type { ResultLabels } from '../../../models/charts/resultLabels'
import { base, valueAxis, type Shaped } from './chartBase'
import { formatNumber } from '../../../models/charts/format'
import { cell, type TableModel } from '../../../models/charts/table'

const MAX_BARS = 20
const BAR_HEIGHT = 26

/** User attributes: the measure per breakdown value as horizontal bars (one figure without breakdown). */
export function shapeUserAttributes(r: UserAttributesResponse, labels: ResultLabels, p: ChartPalette): Shaped {
  const measure = labels.measures[0] ?? r.measure
  // without a breakdown the one row is named by who was counted
  const table: TableModel = r.byFields.length
    ? {
        columns: [...r.byFields.map((f, i) => ({ label: labels.breakdowns[i] ?? f })), { label: measure, numeric: true }],
        rows: r.rows.map((row) => [...row.byValue.map((v) => cell(v)), cell(row.value)]),
      }
    : { columns: [{ label: 'Segment' }, { label: measure, numeric: true }], rows: r.rows.map((row) => [cell(labels.crowd ?? 'All users'), cell(row.value)]) }
  const empty = r.rows.length === 0 || r.rows.every((row) => row.value === null || row.value === 0)
  if (r.byFields.length === 0) {
    return { option: null, table, empty, stat: { value: formatNumber(r.rows[0]?.value ?? null), label: measure } }
  }
  const shown = r.rows.slice(0, MAX_BARS)
  if (r.rows.length > shown.length) table.note = `The chart shows the first ${shown.length} of ${r.rows.length} rows; the table lists them all.`
  const names = shown.map((row) => row.byValue.join(' / '))
  const option: ChartOption = {
    ...base(p),
    grid: { left: 8, right: 56, top: 8, bottom: 8, containLabel: true },
    tooltip: { ...(base(p).tooltip as object), trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: (v) => formatNumber(v as number) },
    xAxis: valueAxis(p),
    yAxis: {
      type: 'category',
      data: names,
      inverse: true,
      axisLine: { lineStyle: { color: p.border } },
      axisTick: { show: false },
      axisLabel: { color: p.text, fontSize: 12, width: 160, overflow: 'truncate' },
    },
    series: [
      {
        type: 'bar',
        name: measure,
        data: shown.map((row) => row.value),
        barMaxWidth: 18,
        itemStyle: { color: p.accent, borderRadius: [0, 3, 3, 0] },
        label: { show: true, position: 'right', color: p.muted, fontSize: 11, formatter: (v) => formatNumber(v.value as number) },
      },
    ],
  }
  return { option, table, empty, height: Math.min(560, Math.max(180, shown.length * BAR_HEIGHT + 24)) }
}
