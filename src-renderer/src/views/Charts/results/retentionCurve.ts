import type { RetentionResponse } from '../../../api/analysis'
import type { ChartOption } from '../../../components/charts/echarts'
import type { ChartPalette } from '../../../components/charts/palette'
import { base, categoryAxis, escapeHtml, legend, MAX_SERIES, valueAxis } from './chartBase'
import { formatNumber, formatRate, rate } from '../../../models/charts/format'

interface CurveParam {
  seriesIndex?: number
  dataIndex?: number
  marker?: string
}

/**
 * The retention curve: the share of users back at each offset, one line for all users (the
 * de-duplicated row) and, with a breakdown, one per value. Without a breakdown the cohorts are
 * not drawn one by one: the curve is the whole. A cell not observed yet is a gap, not a drop to 0.
 */
export function retentionCurve(r: RetentionResponse, names: string[], periods: string[], p: ChartPalette, allNote: string): { option: ChartOption; note?: string } {
  const broken = r.byField !== null
  // rows come biggest first after the total: the chart keeps the largest values, the table all
  const rows = broken ? r.rows.slice(0, MAX_SERIES) : r.rows.slice(0, 1)
  const shares = (i: number) => periods.map((_, k) => {
    const share = rate(r.rows[i].retentionPeoples[k], r.rows[i].totalPeople)
    return share === null ? null : Math.round(share * 1000) / 10
  })
  const series = rows.map((row, i) => ({
    id: `curve:${i}`,
    name: names[i],
    type: 'line' as const,
    data: r.rows[i].totalPeople > 0 ? shares(i) : periods.map(() => null),
    symbol: 'circle',
    symbolSize: 6,
    showSymbol: periods.length <= 45,
    connectNulls: false,
    // the total stands out from the values it de-duplicates
    lineStyle: { width: row.byValue === '$ALL' ? 3 : 2, type: row.byValue === '$ALL' && broken ? ('dashed' as const) : ('solid' as const) },
    areaStyle: rows.length === 1 ? { opacity: p.dark ? 0.16 : 0.08 } : undefined,
    emphasis: { focus: 'series' as const },
  }))

  const option: ChartOption = {
    ...base(p),
    legend: legend(p, series.length > 1),
    grid: { left: 8, right: 16, top: series.length > 1 ? 36 : 12, bottom: 8, containLabel: true },
    tooltip: {
      ...(base(p).tooltip as object),
      trigger: 'axis',
      formatter: (params) => {
        const list = params as CurveParam[]
        const k = list[0]?.dataIndex ?? 0
        const lines = [`<b>${escapeHtml(periods[k] ?? '')}</b>`]
        for (const item of list) {
          const row = r.rows[item.seriesIndex ?? 0]
          const count = row?.retentionPeoples[k]
          if (!row || count === null || count === undefined) continue
          lines.push(`${item.marker ?? ''}${escapeHtml(names[item.seriesIndex ?? 0])} <b style="float:right;margin-left:16px">${formatRate(rate(count, row.totalPeople))}</b><br/><span style="opacity:.7;margin-left:14px">${formatNumber(count)} of ${formatNumber(row.totalPeople)} users</span>`)
        }
        if (list.some((item) => r.rows[item.seriesIndex ?? 0]?.byValue === '$ALL')) lines.push(`<span style="display:inline-block;max-width:280px;white-space:normal;opacity:.7">All users: ${escapeHtml(allNote)}</span>`)
        return lines.join('<br/>')
      },
    },
    xAxis: { ...categoryAxis(p, periods), boundaryGap: false },
    yAxis: { ...valueAxis(p, (v) => `${v}%`), min: 0 },
    series,
  }
  const left = broken ? r.rows.length - rows.length : 0
  return { option, note: left > 0 ? `The curve draws all users and the ${rows.length - 1} largest values; the table lists all ${r.rows.length - 1}.` : undefined }
}
