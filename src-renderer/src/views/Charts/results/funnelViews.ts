import type { FunnelsResponse } from '../../../api/analysis'
import type { ChartOption } from '../../../components/charts/echarts'
import type { ChartPalette } from '../../../components/charts/palette'
import { fullPeriod, shortDay } from '../../../models/charts/dates'
import type { ResultLabels } from '../../../models/charts/resultLabels'
import { base, categoryAxis, escapeHtml, legend, valueAxis, type Shaped } from './chartBase'
import { formatNumber, formatRate, rate } from '../../../models/charts/format'
import { cell, type TableModel } from '../../../models/charts/table'

/** The funnel's other two views: the time-to-convert histogram and the conversion trend by entry day. */

/** Lines drawn in the trend at most (the table lists every row). */
const MAX_LINES = 6

type Row = FunnelsResponse['rows'][number]

const segmentName = (row: Row): string => (row.byValue === -1 || row.byValue === '-1' ? 'All users' : String(row.byValue))

/** A bucket's edge, which is round: "30s", "5m", "3h", "7d". */
function edge(seconds: number): string {
  if (seconds < 60) return `${seconds}s`
  if (seconds < 3600) return `${seconds / 60}m`
  if (seconds < 86400) return `${seconds / 3600}h`
  return `${seconds / 86400}d`
}

/** "1m – 5m", "30d +": a bucket as the axis shows it. */
function bucketLabel(from: number, to: number | null): string {
  return to === null ? `${edge(from)} +` : `${edge(from)} – ${edge(to)}`
}

/** Converted users by the time they took, in the answer's buckets (the total over the whole range). */
export function shapeFunnelTime(r: FunnelsResponse, labels: ResultLabels, p: ChartPalette): Shaped {
  const ttc = r.timeToConvert
  const buckets = ttc?.buckets ?? []
  const users = buckets.reduce((n, b) => n + b.users, 0)
  const stepName = (k: number) => `${k + 1}. ${labels.steps[k] ?? r.stepEvents[k] ?? ''}`
  const span = ttc ? `${stepName(ttc.fromStep)} → ${stepName(ttc.toStep)}` : ''
  const names = buckets.map((b) => bucketLabel(b.from, b.to))
  const table: TableModel = {
    columns: [{ label: 'Time to convert' }, { label: 'From (s)', numeric: true }, { label: 'Users', numeric: true }, { label: 'Share', numeric: true }],
    rows: buckets.map((b, i) => [cell(names[i]), cell(b.from), cell(b.users), cell(rate(b.users, users), formatRate(rate(b.users, users)))]),
    note: span ? `Users who reached ${span} over the whole range, by the time it took them.` : undefined,
  }
  const option: ChartOption = {
    ...base(p),
    grid: { left: 8, right: 16, top: 28, bottom: 8, containLabel: true },
    tooltip: {
      ...(base(p).tooltip as object),
      trigger: 'axis',
      axisPointer: { type: 'shadow' },
      formatter: (params) => {
        const i = (params as { dataIndex: number }[])[0]?.dataIndex ?? 0
        const b = buckets[i]
        return b ? `<b>${escapeHtml(names[i])}</b><br/>${formatNumber(b.users)} users · ${formatRate(rate(b.users, users))} of converted` : ''
      },
    },
    xAxis: { ...categoryAxis(p, names), axisLabel: { color: p.muted, fontSize: 11, interval: 0, rotate: names.length > 8 ? 30 : 0 } },
    yAxis: { ...valueAxis(p), minInterval: 1 },
    series: [
      {
        type: 'bar' as const,
        name: 'Users',
        data: buckets.map((b) => b.users),
        barMaxWidth: 48,
        itemStyle: { color: p.accent, borderRadius: [3, 3, 0, 0] },
        label: { show: true, position: 'top', color: p.muted, fontSize: 11, formatter: (v) => ((v.value as number) > 0 ? formatNumber(v.value as number) : '') },
      },
    ],
  }
  return { option, table, empty: users === 0 }
}

/** Conversion from the first step to the last, per entry day: one line per row (the total, then breakdown values). */
export function shapeFunnelTrend(r: FunnelsResponse, labels: ResultLabels, p: ChartPalette): Shaped {
  const last = r.stepEvents.length - 1
  const days = r.dateList.slice(1)
  const names = days.map((d) => shortDay(d))
  const entered = (row: Row, c: number) => row.stepsDetail[0]?.convertedUser[c] ?? 0
  const converted = (row: Row, c: number) => row.stepsDetail[last]?.convertedUser[c] ?? 0
  const table: TableModel = {
    columns: [{ label: r.byField ? (labels.breakdowns[0] ?? r.byField) : 'Segment' }, { label: 'Whole range', numeric: true }, ...days.map((d, i) => ({ label: names[i], full: fullPeriod(d.replaceAll('/', '-').slice(0, 10)), numeric: true }))],
    rows: r.rows.map((row) => [
      cell(segmentName(row)),
      ...[0, ...days.map((_, i) => i + 1)].map((c) => {
        const value = rate(converted(row, c), entered(row, c))
        return cell(value, formatRate(value), `${formatNumber(converted(row, c))} of ${formatNumber(entered(row, c))}`)
      }),
    ]),
    note: 'Conversion from step 1 to the last step of the users who entered each day; the latest days may still convert within the window.',
  }
  const shown = r.rows.slice(0, MAX_LINES)
  const option: ChartOption = {
    ...base(p),
    legend: legend(p, shown.length > 1),
    grid: { left: 8, right: 16, top: shown.length > 1 ? 36 : 20, bottom: 8, containLabel: true },
    tooltip: { ...(base(p).tooltip as object), trigger: 'axis', valueFormatter: (v) => formatRate(v as number) },
    xAxis: { ...categoryAxis(p, names), boundaryGap: false },
    yAxis: { ...valueAxis(p, (v) => formatRate(v, 0)), min: 0, max: 1 },
    series: shown.map((row) => ({
      type: 'line' as const,
      name: segmentName(row),
      // a day nobody entered has no rate: a gap, not a drop to zero
      data: days.map((_, i) => rate(converted(row, i + 1), entered(row, i + 1))),
      showSymbol: days.length <= 31,
      connectNulls: false,
      lineStyle: { width: 2 },
    })),
  }
  if (r.rows.length > MAX_LINES) table.note += ` The chart draws the first ${MAX_LINES} rows.`
  return { option, table, empty: !r.rows[0] || entered(r.rows[0], 0) === 0 }
}
