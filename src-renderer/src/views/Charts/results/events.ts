import type { EventsResponse } from '../../../api/analysis'
import type { ChartOption } from '../../../components/charts/echarts'
import type { ChartPalette } from '../../../components/charts/palette'
import type { ChartStyle } from '../../../models/charts/definitions'
import { fullPeriod, periodLabel } from '../../../models/charts/dates'
import type { ResultLabels } from '../../../models/charts/resultLabels'
import { axisTooltip, base, categoryAxis, legend, MAX_SERIES, valueAxis, type AxisParam, type Shaped } from './chartBase'
import { change, changeText, periodState, splitLine } from './periods'
import { cell, type TableModel } from '../../../models/charts/table'

type Row = EventsResponse['rows'][number]
/** Measure m of a row, or the formula (m = -1). */
const seriesOf = (row: Row, m: number) => (m < 0 ? (row.formula ? { sum: row.formula.sum, values: row.formula.values } : null) : { sum: row.sum[m] ?? null, values: row.values[m] ?? [] })
const previousOf = (row: Row, m: number) => {
  const p = row.previous
  if (!p) return null
  return m < 0 ? (p.formula ? { sum: p.formula.sum, values: p.formula.values } : null) : { sum: p.sum[m] ?? null, values: p.values[m] ?? [] }
}

/**
 * Event analysis: a line (or bars) per measure and breakdown value over the periods; with a
 * formula, one more per row; with compare, each line's earlier twin dashed and the whole range
 * before and its change in the table's last columns.
 */
export function shapeEvents(r: EventsResponse, labels: ResultLabels, p: ChartPalette, style: ChartStyle): Shaped {
  const measureName = (m: number): string => (m < 0 ? `Formula ${r.formula ?? ''}` : (labels.measures[m] ?? r.measures[m] ?? `Measure ${m + 1}`))
  const measureIndexes = [...r.measures.map((_, m) => m), ...(r.formula ? [-1] : [])]
  const compared = r.compare !== undefined
  const broken = r.byFields.length > 0
  const byName = (values: string[]): string => values.join(' / ')
  const periods = r.series.map((s) => periodLabel(s, labels.unit))

  const table: TableModel = {
    columns: [
      { label: 'Measure' },
      ...(broken ? [{ label: labels.breakdowns[0] ?? r.byFields[0] }] : []),
      { label: 'Whole range', numeric: true },
      ...periods.map((label, i) => ({ label, full: fullPeriod(r.series[i]), numeric: true })),
      // after the periods: a cell's users are read from the whole range and the periods at their places
      ...(compared ? [{ label: 'Before', full: `Whole range ${r.compare!.fromDate} to ${r.compare!.toDate}`, numeric: true }, { label: 'Change', numeric: true }] : []),
    ],
    rows: [],
  }
  measureIndexes.forEach((m) => {
    for (const row of r.rows) {
      const now = seriesOf(row, m)
      const before = previousOf(row, m)
      const delta = change(now?.sum, before?.sum)
      table.rows.push([
        cell(measureName(m)),
        ...(broken ? [cell(byName(row.byValue))] : []),
        cell(now?.sum ?? null),
        ...r.series.map((_s, i) => cell(now?.values[i] ?? null)),
        ...(compared ? [cell(before?.sum ?? null), cell(delta, changeText(delta))] : []),
      ])
    }
  })

  // the chart draws the rows with the largest first measure; the table keeps every row
  const ranked = [...r.rows].sort((a, b) => (b.sum[0] ?? 0) - (a.sum[0] ?? 0))
  // a series id names its measure and answer row: a click on a point opens its users (drilldown/eventCells.ts)
  const series: { id: string; name: string; data: (number | null)[]; measure: number; row: number; before?: (number | null)[] }[] = []
  ranked.forEach((row, i) => {
    measureIndexes.forEach((m) => {
      const name = broken ? (measureIndexes.length > 1 ? `${byName(row.byValue)} · ${measureName(m)}` : byName(row.byValue)) : measureName(m)
      // the formula's line is no measure: its id opens no users
      const id = m < 0 ? `formula:${r.rows.indexOf(row)}` : `cell:${m}:${r.rows.indexOf(row)}`
      series.push({ id, name, data: seriesOf(row, m)?.values ?? [], measure: m < 0 ? r.measures.length : m, row: i, before: previousOf(row, m)?.values })
    })
  })
  const shown = series.slice(0, MAX_SERIES)
  if (series.length > shown.length) table.note = `The chart shows the ${shown.length} largest of ${series.length} series; the table lists them all.`

  // a measure far larger or smaller than the first (a sum next to a count) gets the right-hand axis
  const peak = (m: number): number => Math.max(0, ...r.rows.flatMap((row) => (seriesOf(row, m === r.measures.length ? -1 : m)?.values ?? []).map((v) => Math.abs(v ?? 0))))
  const base0 = peak(0)
  const right = (m: number): boolean => m > 0 && base0 > 0 && (peak(m) > base0 * 5 || peak(m) * 5 < base0)
  const twoAxes = measureIndexes.some((m) => right(m < 0 ? r.measures.length : m))
  // with a breakdown and several measures, a value keeps its colour and each measure its own line
  const colourOf = (s: (typeof series)[number], i: number): string => p.series[(broken && measureIndexes.length > 1 ? s.row : i) % p.series.length]
  const dashes = ['solid', 'dashed', 'dotted'] as const

  const asBars = style === 'bar' || r.series.length === 1
  // periods not over (results/periods.ts): the one in progress is reached by a dotted segment,
  // those not begun are not drawn
  const state = periodState(r.series, labels.unit, labels.today)
  const lines = shown.flatMap((s, i) => {
    const twins = compared && s.before ? [{ id: `before:${s.id}`, name: `${s.name} (before)`, type: 'line' as const, data: s.before, yAxisIndex: twoAxes && right(s.measure) ? 1 : 0, itemStyle: { color: colourOf(s, i), opacity: 0.6 }, symbol: 'none', lineStyle: { width: 1.5, type: 'dashed' as const, opacity: 0.7 }, emphasis: { focus: 'series' as const } }] : []
    return [...twins, ...lineOf(s, i)]
  })
  function lineOf(s: (typeof series)[number], i: number) {
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
    const area = shown.length === 1 && !compared ? { opacity: p.dark ? 0.16 : 0.08 } : undefined
    const { line: solid, tail } = splitLine(s.data, state)
    const main = { ...line, data: solid, areaStyle: area }
    return tail ? [main, { ...line, id: `${s.id}:tail`, data: tail, symbol: 'emptyCircle', lineStyle: { width: 2, type: 'dotted' as const }, tooltip: { show: false } }] : [main]
  }
  const bars = shown.flatMap((s, i) => [...(compared && s.before ? [{ id: `before:${s.id}`, name: `${s.name} (before)`, data: s.before, yAxisIndex: twoAxes && right(s.measure) ? 1 : 0, type: 'bar' as const, barMaxWidth: 28, itemStyle: { color: 'transparent', borderColor: colourOf(s, i), borderType: 'dashed' as const, borderWidth: 1.5 } }] : []), {
    id: s.id,
    name: s.name,
    data: s.data,
    yAxisIndex: twoAxes && right(s.measure) ? 1 : 0,
    type: 'bar' as const,
    barMaxWidth: 28,
    itemStyle: { color: colourOf(s, i), borderRadius: [3, 3, 0, 0] },
  }])

  const option: ChartOption = {
    ...base(p),
    legend: legend(p, shown.length > 1 || compared),
    grid: { left: 8, right: 16, top: shown.length > 1 || compared ? 36 : 12, bottom: 8, containLabel: true },
    tooltip: {
      ...(base(p).tooltip as object),
      trigger: 'axis',
      // the dotted piece of a line repeats its series: each series is listed once
      formatter: (params) => axisTooltip(params as AxisParam[], state.current >= 0 ? periods[state.current] : ''),
    },
    xAxis: categoryAxis(p, periods),
    yAxis: twoAxes ? [valueAxis(p), { ...valueAxis(p), splitLine: { show: false } }] : valueAxis(p),
    series: asBars ? bars : lines,
  }
  const empty = r.rows.length === 0 || r.rows.every((row) => row.sum.every((v) => !v))
  return { option, table, empty }
}

