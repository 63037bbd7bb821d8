import type { EventsResponse } from '../../../api/analysis'
import type { ChartOption } from '../../../components/charts/echarts'
import type { ChartPalette } from '../../../components/charts/palette'
import type { ChartStyle } from '../model/definitions'
import { fullPeriod, periodLabel } from '../model/dates'
import type { ResultLabels } from '../model/resultLabels'
import { axisTooltip, base, categoryAxis, legend, MAX_SERIES, valueAxis, type AxisParam, type Shaped } from './chartBase'
import { cell, type TableModel } from './table'

/** Event analysis: a line (or bars) per measure and breakdown value over the periods. */
export function shapeEvents(r: EventsResponse, labels: ResultLabels, p: ChartPalette, style: ChartStyle): Shaped {
  const measureName = (m: number): string => labels.measures[m] ?? r.measures[m] ?? `Measure ${m + 1}`
  const broken = r.byFields.length > 0
  const byName = (values: string[]): string => values.join(' / ')
  const periods = r.series.map((s) => periodLabel(s, labels.unit))

  const table: TableModel = {
    columns: [
      { label: 'Measure' },
      ...(broken ? [{ label: labels.breakdowns[0] ?? r.byFields[0] }] : []),
      { label: 'Whole range', numeric: true },
      ...periods.map((label, i) => ({ label, full: fullPeriod(r.series[i]), numeric: true })),
    ],
    rows: [],
  }
  r.measures.forEach((_, m) => {
    for (const row of r.rows) {
      table.rows.push([
        cell(measureName(m)),
        ...(broken ? [cell(byName(row.byValue))] : []),
        cell(row.sum[m] ?? null),
        ...r.series.map((_s, i) => cell(row.values[m]?.[i] ?? null)),
      ])
    }
  })

  // the chart draws the rows with the largest first measure; the table keeps every row
  const ranked = [...r.rows].sort((a, b) => (b.sum[0] ?? 0) - (a.sum[0] ?? 0))
  // a series id names its measure and answer row: a click on a point drills down into it
  const series: { id: string; name: string; data: (number | null)[]; measure: number; row: number }[] = []
  ranked.forEach((row, i) => {
    r.measures.forEach((_, m) => {
      const name = broken ? (r.measures.length > 1 ? `${byName(row.byValue)} · ${measureName(m)}` : byName(row.byValue)) : measureName(m)
      series.push({ id: `drill:${m}:${r.rows.indexOf(row)}`, name, data: row.values[m] ?? [], measure: m, row: i })
    })
  })
  const shown = series.slice(0, MAX_SERIES)
  if (series.length > shown.length) table.note = `The chart shows the ${shown.length} largest of ${series.length} series; the table lists them all.`

  // a measure far larger or smaller than the first (a sum next to a count) gets the right-hand axis
  const peak = (m: number): number => Math.max(0, ...r.rows.flatMap((row) => (row.values[m] ?? []).map((v) => Math.abs(v ?? 0))))
  const base0 = peak(0)
  const right = (m: number): boolean => m > 0 && base0 > 0 && (peak(m) > base0 * 5 || peak(m) * 5 < base0)
  const twoAxes = r.measures.some((_, m) => right(m))
  // with a breakdown and several measures, a value keeps its colour and each measure its own line
  const colourOf = (s: (typeof series)[number], i: number): string => p.series[(broken && r.measures.length > 1 ? s.row : i) % p.series.length]
  const dashes = ['solid', 'dashed', 'dotted'] as const

  const asBars = style === 'bar' || r.series.length === 1
  // the period that runs up to today is still filling: its line segment is dashed
  const partial = !asBars && labels.partial === true && r.series.length > 1
  const last = r.series.length - 1
  const lines = shown.flatMap((s, i) => {
    const common = { id: s.id, name: s.name, yAxisIndex: twoAxes && right(s.measure) ? 1 : 0, itemStyle: { color: colourOf(s, i) } }
    const line = {
      ...common,
      type: 'line' as const,
      symbol: 'circle',
      symbolSize: 6,
      showSymbol: r.series.length <= 45,
      lineStyle: { width: 2, type: broken ? dashes[s.measure % dashes.length] : ('solid' as const) },
      emphasis: { focus: 'series' as const },
    }
    if (!partial) return [{ ...line, data: s.data, areaStyle: shown.length === 1 ? { opacity: p.dark ? 0.16 : 0.08 } : undefined }]
    return [
      { ...line, data: s.data.map((v, k) => (k < last ? v : null)), areaStyle: shown.length === 1 ? { opacity: p.dark ? 0.16 : 0.08 } : undefined },
      { ...line, id: `${s.id}:tail`, data: s.data.map((v, k) => (k >= last - 1 ? v : null)), lineStyle: { width: 2, type: 'dotted' as const }, tooltip: { show: false } },
    ]
  })
  const bars = shown.map((s, i) => ({
    id: s.id,
    name: s.name,
    data: s.data,
    yAxisIndex: twoAxes && right(s.measure) ? 1 : 0,
    type: 'bar' as const,
    barMaxWidth: 28,
    itemStyle: { color: colourOf(s, i), borderRadius: [3, 3, 0, 0] },
  }))

  const option: ChartOption = {
    ...base(p),
    legend: legend(p, shown.length > 1),
    grid: { left: 8, right: 16, top: shown.length > 1 ? 36 : 12, bottom: 8, containLabel: true },
    tooltip: {
      ...(base(p).tooltip as object),
      trigger: 'axis',
      // the dotted piece of a line repeats its series: each series is listed once
      formatter: (params) => axisTooltip(params as AxisParam[], partial && last >= 0 ? periods[last] : ''),
    },
    xAxis: categoryAxis(p, periods),
    yAxis: twoAxes ? [valueAxis(p), { ...valueAxis(p), splitLine: { show: false } }] : valueAxis(p),
    series: asBars ? bars : lines,
  }
  const empty = r.rows.length === 0 || r.rows.every((row) => row.sum.every((v) => !v))
  return { option, table, empty }
}

