import { computed, watch } from 'vue'
import type { EventsRequest, EventsResponse } from '../../../api/analysis'
import { useChartsStore } from '../../../stores/charts'
import { useDrilldownStore } from '../../../stores/drilldown'
import { useMetaStore } from '../../../stores/meta'
import type { TableModel } from '../results/table'
import { chartRefusal, drillOf, type Drill, type DrillNames, type DrillPoint } from './target'

/** A click on the chart: the series id (events.ts writes "drill:<measure>:<row>") and the period. */
export interface PointClick {
  seriesId?: string
  dataIndex?: number
}

/**
 * The drill-down of the event chart on screen: which table cells and chart points open one, and
 * opening it. Only an answer to the query on screen drills down: the rules are written from the
 * request that computed it.
 */
export function useChartDrilldown(table: () => TableModel | null) {
  const charts = useChartsStore()
  const meta = useMetaStore()
  const drilldown = useDrilldownStore()

  const context = computed(() => {
    const result = charts.result
    const built = charts.built
    if (!result || result.kind !== 'events' || !charts.upToDate || !('body' in built)) return null
    const names: DrillNames = {
      event: (id) => meta.eventName(id),
      breakdown: result.labels.breakdowns[0] ?? '',
      measures: result.labels.measures,
      breakdownType: charts.defs.events.breakdown?.property.dataType,
    }
    return { request: built.body as EventsRequest, response: result.response as EventsResponse, names }
  })

  // the drill-down is about a point of the event chart: another analysis leaves it behind
  watch(
    () => charts.kind,
    () => {
      if (drilldown.phase !== 'idle') void drilldown.close()
    },
  )

  function drill(point: DrillPoint): Drill | null {
    const c = context.value
    return c ? drillOf(c.request, c.response, point, c.names) : null
  }

  /** The event table (events.ts): a row per measure and answer row; then the whole range and each period. */
  function pointOfCell(r: number, col: number): DrillPoint | null {
    const c = context.value
    const rows = c?.response.rows.length ?? 0
    if (!c || rows === 0) return null
    const lead = (c.request.byFields?.length ?? 0) > 0 ? 2 : 1
    if (col < lead) return null
    const point = { measure: Math.floor(r / rows), row: r % rows, period: col === lead ? null : col - lead - 1 }
    // the cell must show this point's figure: a table laid out otherwise opens nothing
    const answer = c.response.rows[point.row]
    const value = point.period === null ? answer?.sum[point.measure] : answer?.values[point.measure]?.[point.period]
    return table()?.rows[r]?.[col]?.value === (value ?? null) ? point : null
  }

  function cellAction(r: number, col: number): { title: string; enabled: boolean } | null {
    const point = pointOfCell(r, col)
    const d = point ? drill(point) : null
    if (!d) return null
    return d.ok ? { title: `See the users: ${d.target.title}${d.target.segment ? ` · ${d.target.segment}` : ''}`, enabled: true } : { title: d.reason, enabled: false }
  }

  function openCell(r: number, col: number): void {
    const point = pointOfCell(r, col)
    const d = point ? drill(point) : null
    if (d) void drilldown.open(d)
  }

  function openPoint(click: PointClick): void {
    const match = /^drill:(\d+):(\d+)/.exec(click.seriesId ?? '')
    if (!match || click.dataIndex === undefined) return
    const d = drill({ measure: Number(match[1]), row: Number(match[2]), period: click.dataIndex })
    if (d) void drilldown.open(d)
  }

  /** Whether points of the chart on screen open drill-downs (the hint under the table). */
  const available = computed(() => context.value !== null && chartRefusal(context.value.request) === '')

  return { cellAction, openCell, openPoint, available }
}
