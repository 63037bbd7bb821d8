import { init, type ChartOption } from './echarts'

/** What an exported image says above the chart, and its colours. */
export interface ImageHeading {
  title: string
  /** The date range, who was counted and the filters, in one line. */
  subtitle: string
  background: string
  text: string
  muted: string
}

const HEAD = 58
const LEGEND_ROW = 20
const SIDE = 16

/** Rows a plain legend takes for these names in this width (icon 10, gap 5, item gap 10). */
function legendRows(names: string[], width: number): number {
  const ctx = document.createElement('canvas').getContext('2d')
  if (!ctx || names.length === 0) return names.length ? 1 : 0
  ctx.font = '12px sans-serif'
  let rows = 1
  let used = 0
  for (const name of names) {
    const item = ctx.measureText(name).width + 25
    if (used > 0 && used + item > width) {
      rows += 1
      used = 0
    }
    used += item
  }
  return rows
}

function seriesNames(option: ChartOption): string[] {
  const series = Array.isArray(option.series) ? option.series : option.series ? [option.series] : []
  return [...new Set(series.map((s) => (s as { name?: unknown }).name).filter((n): n is string => typeof n === 'string'))]
}

/** The grid moved down by `by` pixels (the screen's legend space given back first). */
function moved(grid: unknown, by: number, legendSpace: number): unknown {
  const shift = (g: Record<string, unknown>) => ({ ...g, top: (typeof g.top === 'number' ? g.top - legendSpace : 0) + by })
  if (Array.isArray(grid)) return grid.map(shift)
  return grid && typeof grid === 'object' ? shift(grid as Record<string, unknown>) : { top: by }
}

/**
 * A chart as a PNG that reads on its own: drawn again off screen, without animation, with the
 * title and the subtitle above it and the whole legend (plain, wrapping over as many rows as it
 * needs, where the screen's scrolls and shows "1/2"), at twice the resolution.
 */
export function exportImage(option: ChartOption, width: number, height: number, heading: ImageHeading): { url: string; width: number; height: number } {
  const legend = option.legend as Record<string, unknown> | undefined
  const legendShown = !!legend && legend.show !== false
  const rows = legendShown ? legendRows(seriesNames(option), width - 2 * SIDE) : 0
  const top = HEAD + rows * LEGEND_ROW
  const fullHeight = height + top + (legendShown ? -36 : 0) + 8
  const copy: ChartOption = {
    ...option,
    animation: false,
    backgroundColor: heading.background,
    title: {
      text: heading.title,
      subtext: heading.subtitle,
      left: SIDE,
      top: 10,
      textStyle: { color: heading.text, fontSize: 16, fontWeight: 600 },
      subtextStyle: { color: heading.muted, fontSize: 12 },
      itemGap: 8,
    },
    legend: legendShown ? { ...legend, type: 'plain', top: HEAD, left: SIDE, right: SIDE } : legend,
    grid: moved(option.grid, top, legendShown ? 36 : 0) as ChartOption['grid'],
  }
  const el = document.createElement('div')
  Object.assign(el.style, { position: 'fixed', left: '-20000px', top: '0', width: `${width}px`, height: `${fullHeight}px` })
  document.body.appendChild(el)
  const chart = init(el, null, { renderer: 'canvas' })
  try {
    chart.setOption(copy, { notMerge: true })
    return { url: chart.getDataURL({ type: 'png', pixelRatio: 2, backgroundColor: heading.background }), width, height: fullHeight }
  } finally {
    chart.dispose()
    el.remove()
  }
}
