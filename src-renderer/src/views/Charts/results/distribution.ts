import type { DistributionResponse } from '../../../api/analysis'
import type { ChartOption } from '../../../components/charts/echarts'
import type { ChartPalette } from '../../../components/charts/palette'
import type { ResultLabels } from '../../../models/charts/resultLabels'
import { base, categoryAxis, legend, valueAxis, type Shaped } from './chartBase'
import { formatNumber } from '../../../models/charts/format'
import { cell, type TableModel } from '../../../models/charts/table'

const MAX_ROWS = 6

/** Distribution: how many users fall in each interval of the measure (a histogram per row). */
export function shapeDistribution(r: DistributionResponse, labels: ResultLabels, p: ChartPalette): Shaped {
  const broken = r.byField !== null
  const rowName = (value: string): string => (value === 'all' ? 'All users' : value)
  const table: TableModel = {
    columns: [
      { label: broken ? (labels.breakdowns[0] ?? r.byField ?? 'Value') : labels.unit ? 'Period' : 'Segment' },
      { label: 'Users', numeric: true },
      ...r.series.map((label) => ({ label, numeric: true })),
    ],
    rows: r.rows.map((row) => [cell(rowName(row.byValue)), cell(row.sum), ...r.series.map((_, i) => cell(row.values[i] ?? 0))]),
  }
  const shown = r.rows.slice(0, MAX_ROWS)
  if (r.rows.length > shown.length) table.note = `The chart shows the first ${shown.length} of ${r.rows.length} rows; the table lists them all.`
  const option: ChartOption = {
    ...base(p),
    legend: legend(p, shown.length > 1),
    grid: { left: 8, right: 16, top: shown.length > 1 ? 36 : 16, bottom: 28, containLabel: true },
    tooltip: { ...(base(p).tooltip as object), trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: (v) => `${formatNumber(v as number)} users` },
    xAxis: { ...categoryAxis(p, r.series), name: labels.measures[0] ?? r.measure, nameLocation: 'middle', nameGap: 26, nameTextStyle: { color: p.faint, fontSize: 11 } },
    yAxis: valueAxis(p),
    series: shown.map((row) => ({
      type: 'bar' as const,
      name: rowName(row.byValue),
      data: row.values,
      barCategoryGap: shown.length > 1 ? '20%' : '6%',
      itemStyle: { borderRadius: [3, 3, 0, 0] },
      label: { show: shown.length === 1 && r.series.length <= 12, position: 'top', color: p.muted, fontSize: 11, formatter: (v) => formatNumber(v.value as number) },
    })),
  }
  const empty = r.series.length === 0 || r.rows.every((row) => row.sum === 0)
  return { option, table, empty }
}
