import type { FunnelsResponse } from '../../../api/analysis'
import type { ChartOption } from '../../../components/charts/echarts'
import type { ChartPalette } from '../../../components/charts/palette'
import type { ResultLabels } from '../../../models/charts/resultLabels'
import { base, categoryAxis, escapeHtml, legend, valueAxis, type Shaped } from './chartBase'
import { formatDuration, formatNumber, formatRate, rate } from '../../../models/charts/format'
import { change, changeText } from './periods'
import { cell, type TableModel, type TableCell } from '../../../models/charts/table'

/** Segments compared in the chart at most (the table lists them all). */
const MAX_SEGMENTS = 6
/** The dateList column of the whole range ($ALL). */
const ALL = 0

type Row = FunnelsResponse['rows'][number]

const segmentName = (row: Row): string => (row.byValue === -1 || row.byValue === '-1' ? 'All users' : String(row.byValue))
const usersAt = (row: Row, k: number): number => row.stepsDetail[k]?.convertedUser[ALL] ?? 0
const medianAt = (row: Row, k: number): number | null => row.medianConvertedTime[k]?.median[ALL] ?? null
/** With compare: users at step k over the whole compared range. */
const beforeAt = (row: Row, k: number): number => row.previous?.stepsDetail[k]?.convertedUser[ALL] ?? 0

/**
 * Funnel: users at each step over the whole range, conversion from the previous step and from the
 * first, and the median time between steps. Without a breakdown the bars show the drop-off too.
 */
export function shapeFunnels(r: FunnelsResponse, labels: ResultLabels, p: ChartPalette): Shaped {
  const steps = r.stepEvents.map((e, k) => `${k + 1}. ${labels.steps[k] ?? e}`)
  const last = steps.length - 1
  const broken = r.byField !== null

  const table: TableModel = {
    columns: [
      { label: broken ? (labels.breakdowns[0] ?? r.byField ?? 'Segment') : 'Segment' },
      ...steps.flatMap((s, k) => (k === 0 ? [{ label: s, numeric: true }] : [{ label: s, numeric: true }, { label: `${k} → ${k + 1}`, numeric: true }])),
      { label: 'Overall', numeric: true },
      ...steps.slice(1).map((_, k) => ({ label: `Median ${k + 1} → ${k + 2}`, numeric: true })),
      ...(r.compare ? [{ label: 'Overall before', numeric: true }, { label: 'Change', numeric: true }] : []),
    ],
    rows: r.rows.map((row) => {
      const cells: TableCell[] = [cell(segmentName(row))]
      steps.forEach((_, k) => {
        cells.push(cell(usersAt(row, k)))
        if (k > 0) {
          const step = rate(usersAt(row, k), usersAt(row, k - 1))
          cells.push(cell(step, formatRate(step)))
        }
      })
      const overall = rate(usersAt(row, last), usersAt(row, 0))
      cells.push(cell(overall, formatRate(overall)))
      steps.slice(1).forEach((_, k) => cells.push(cell(medianAt(row, k), formatDuration(medianAt(row, k)))))
      if (r.compare) {
        // the change of the overall conversion, relative to the earlier one
        const before = rate(beforeAt(row, last), beforeAt(row, 0))
        const delta = change(overall, before)
        cells.push(cell(before, formatRate(before)), cell(delta, changeText(delta)))
      }
      return cells
    }),
  }

  const total = r.rows[0]
  const empty = !total || usersAt(total, 0) === 0
  const axisLabels = steps.map((s, k) => (k === 0 || !total ? s : `${s}\n{rate|${formatRate(rate(usersAt(total, k), usersAt(total, k - 1)))} from previous}`))

  const tooltip = (k: number): string => {
    if (!total) return ''
    const lines = [`<b>${escapeHtml(steps[k])}</b>`, `${formatNumber(usersAt(total, k))} users · ${formatRate(rate(usersAt(total, k), usersAt(total, 0)))} of step 1`]
    if (k > 0) {
      lines.push(`${formatRate(rate(usersAt(total, k), usersAt(total, k - 1)))} from step ${k} · ${formatNumber(usersAt(total, k - 1) - usersAt(total, k))} dropped`)
      lines.push(`Median time from step ${k}: ${formatDuration(medianAt(total, k - 1))}`)
    }
    return lines.join('<br/>')
  }

  const xAxis = { ...categoryAxis(p, axisLabels), axisLabel: { color: p.text, fontSize: 12, interval: 0, lineHeight: 16, rich: { rate: { color: p.muted, fontSize: 11 } } } }
  const option: ChartOption = broken
    ? {
        ...base(p),
        legend: legend(p, true),
        grid: { left: 8, right: 16, top: 36, bottom: 8, containLabel: true },
        tooltip: { ...(base(p).tooltip as object), trigger: 'axis', valueFormatter: (v) => formatRate(v as number) },
        xAxis,
        yAxis: { ...valueAxis(p, (v) => formatRate(v, 0)), max: 1 },
        series: r.rows.slice(0, MAX_SEGMENTS).map((row) => ({
          type: 'bar' as const,
          name: segmentName(row),
          data: steps.map((_, k) => rate(usersAt(row, k), usersAt(row, 0)) ?? 0),
          barMaxWidth: 36,
          itemStyle: { borderRadius: [3, 3, 0, 0] },
          label: { show: Math.min(r.rows.length, MAX_SEGMENTS) * steps.length <= 24, position: 'top', color: p.muted, fontSize: 10.5, formatter: (v) => formatRate(v.value as number, 0) },
        })),
      }
    : {
        ...base(p),
        legend: legend(p, r.compare !== undefined),
        grid: { left: 8, right: 16, top: r.compare ? 40 : 28, bottom: 8, containLabel: true },
        tooltip: { ...(base(p).tooltip as object), trigger: 'axis', axisPointer: { type: 'shadow' }, formatter: (params) => tooltip((params as { dataIndex: number }[])[0]?.dataIndex ?? 0) },
        xAxis,
        yAxis: valueAxis(p),
        series: [
          // the previous step's users, faint behind each bar: the gap above a bar is the drop-off;
          // with compare, the bar beside is the earlier range's instead, a dashed outline
          ...(r.compare
            ? []
            : [{
                type: 'bar' as const,
                name: 'Previous step',
                data: steps.map((_, k) => (total ? usersAt(total, Math.max(k - 1, 0)) : 0)),
                barMaxWidth: 120,
                silent: true,
                itemStyle: { color: p.dark ? 'rgba(138,133,245,0.14)' : 'rgba(87,80,216,0.10)', borderRadius: [3, 3, 0, 0] },
              }]),
          {
            type: 'bar' as const,
            name: 'Converted',
            data: steps.map((_, k) => (total ? usersAt(total, k) : 0)),
            barMaxWidth: 120,
            barGap: r.compare ? '20%' : '-100%',
            itemStyle: { color: p.accent, borderRadius: [3, 3, 0, 0] },
            label: {
              show: true,
              position: 'top',
              color: p.text,
              fontWeight: 600,
              formatter: (v) => (total ? `${formatNumber(usersAt(total, v.dataIndex))} · ${formatRate(rate(usersAt(total, v.dataIndex), usersAt(total, 0)))}` : ''),
            },
          },
          ...(r.compare && total
            ? [{ type: 'bar' as const, name: 'Before', data: steps.map((_, k) => beforeAt(total, k)), barMaxWidth: 120, itemStyle: { color: 'transparent', borderColor: p.accent, borderType: 'dashed' as const, borderWidth: 1.5 } }]
            : []),
        ],
      }
  if (r.rows.length - 1 > MAX_SEGMENTS - 1 && broken) table.note = `The chart compares the first ${MAX_SEGMENTS} rows; the table lists them all.`
  return { option, table, empty }
}
