import type { ChartOption } from '../../../components/charts/echarts'
import type { ChartPalette } from '../../../components/charts/palette'
import type { TableModel } from '../../../models/charts/table'
import { formatCompact, formatNumber } from '../../../models/charts/format'

/** What each analysis's shaping gives the result panel. */
export interface Shaped {
  /** null: no chart (e.g. one number, shown as a figure instead). */
  option: ChartOption | null
  table: TableModel
  /** A single headline figure. */
  stat?: { value: string; label: string }
  height?: number
  /** True when the answer holds nothing to show. */
  empty: boolean
}

/** How many series a chart draws at most; the table lists every row. */
export const MAX_SERIES = 10

export function base(p: ChartPalette): ChartOption {
  return {
    color: p.series,
    textStyle: { fontFamily: 'inherit', color: p.muted },
    animationDuration: 250,
    animationDurationUpdate: 250,
    tooltip: {
      backgroundColor: p.surface,
      borderColor: p.border,
      textStyle: { color: p.text, fontSize: 12 },
      extraCssText: 'box-shadow: 0 6px 20px rgba(0,0,0,0.18); border-radius: 6px;',
      confine: true,
    },
  }
}

export function legend(p: ChartPalette, show: boolean): ChartOption['legend'] {
  return { show, type: 'scroll', top: 0, left: 0, right: 0, pageIconSize: 10, pageTextStyle: { color: p.muted }, pageIconColor: p.muted, pageIconInactiveColor: p.border, icon: 'roundRect', itemWidth: 10, itemHeight: 10, textStyle: { color: p.muted, fontSize: 12 } }
}

export function categoryAxis(p: ChartPalette, data: string[]) {
  return {
    type: 'category' as const,
    data,
    axisLine: { lineStyle: { color: p.border } },
    axisTick: { show: false },
    axisLabel: { color: p.muted, fontSize: 11.5, hideOverlap: true },
  }
}

export function valueAxis(p: ChartPalette, format: (v: number) => string = formatCompact) {
  return {
    type: 'value' as const,
    axisLabel: { color: p.faint, fontSize: 11, formatter: format },
    splitLine: { lineStyle: { color: p.border, type: 'dashed' as const } },
  }
}

/** Text for tooltips is built from data values and labels, so it is escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string)
}

export interface AxisParam {
  seriesName?: string
  name?: string
  value?: unknown
  marker?: string
}

/** An axis tooltip: the period, then each series once with its value; `inProgress` marks today's period. */
export function axisTooltip(params: AxisParam[], inProgress: string): string {
  const seen = new Set<string>()
  const head = params[0]?.name ?? ''
  const lines = [`<b>${escapeHtml(head)}</b>${head === inProgress ? ' · in progress' : ''}`]
  for (const item of params) {
    const name = item.seriesName ?? ''
    if (seen.has(name) || item.value === null || item.value === undefined) continue
    seen.add(name)
    lines.push(`${item.marker ?? ''}${escapeHtml(name)} <b style="float:right;margin-left:16px">${formatNumber(item.value as number)}</b>`)
  }
  return lines.join('<br/>')
}
