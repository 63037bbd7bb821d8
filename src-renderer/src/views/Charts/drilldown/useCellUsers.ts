import { computed, watch } from 'vue'
import type { EventsRequest, EventsResponse } from '../../../api/analysis'
import { useCellUsersStore } from '../../../stores/cellUsers'
import { useChartsStore } from '../../../stores/charts'
import { cellTarget, type CellTarget } from './cells'
import { eventCell, eventPointOfCell, eventPointOfClick } from './eventCells'

/** A click on the chart: ECharts' series (id, index), the point's index and value. */
export interface PointClick {
  seriesId?: string
  seriesIndex?: number
  dataIndex?: number
  value?: unknown
}

/**
 * The users behind the table cells and chart points of every analysis: which open them, and
 * opening them in the one users panel. Only an answer to the query on screen does: the server is
 * asked with the request that computed it.
 */
export function useCellUsers() {
  const charts = useChartsStore()
  const cells = useCellUsersStore()

  const context = computed(() => {
    const result = charts.result
    const built = charts.built
    if (!result || !charts.upToDate || !('body' in built)) return null
    return { result, body: built.body }
  })

  // the users are of a cell of the answer on screen: another analysis leaves them behind
  watch(
    () => charts.kind,
    () => cells.close(),
  )

  function targetOf(r: number, col: number): CellTarget | null {
    const c = context.value
    if (!c) return null
    if (c.result.kind !== 'events') return cellTarget(c.result.kind, c.result.response as never, c.result.labels, r, col)
    const response = c.result.response as EventsResponse
    const point = eventPointOfCell(response, r, col)
    return point ? eventCell(c.body as EventsRequest, response, c.result.labels, point) : null
  }

  function cellAction(r: number, col: number): { title: string; enabled: boolean } | null {
    const t = targetOf(r, col)
    return t ? { title: `See the users: ${t.title}${t.segment ? ` · ${t.segment}` : ''}`, enabled: true } : null
  }

  function open(t: CellTarget | null): void {
    const c = context.value
    if (t && c) cells.open(t, c.body)
  }

  const openCell = (r: number, col: number): void => open(targetOf(r, col))

  /**
   * A click on the chart, as the table cell it shows: an event line's point (its series id
   * "cell:<measure>:<row>", events.ts; the formula's and the compared range's open nothing); a
   * funnel bar (one series per row when broken down; else the "Converted" series, the second) is
   * step k's users; a retention heatmap square [offset, row, rate] is that cell; a distribution
   * bar (one series per row shown, in the table's order) is its bucket's users; a user-attribute
   * bar (one series, a bar per row) is its row's users.
   */
  function openPoint(click: PointClick): void {
    const c = context.value
    if (!c || click.dataIndex === undefined) return
    if (c.result.kind === 'events') {
      const point = eventPointOfClick(click.seriesId, click.dataIndex)
      if (point) open(eventCell(c.body as EventsRequest, c.result.response as EventsResponse, c.result.labels, point))
    } else if (c.result.kind === 'funnels') {
      const broken = (c.result.response as { byField: string | null }).byField !== null
      const row = broken ? (click.seriesIndex ?? -1) : click.seriesIndex === 1 ? 0 : -1
      const k = click.dataIndex
      if (row >= 0) openCell(row, k === 0 ? 1 : 2 * k)
    } else if (c.result.kind === 'retention' && Array.isArray(click.value)) {
      const [x, y] = click.value as number[]
      openCell(y, x + 2)
    } else if (c.result.kind === 'distribution' && click.seriesIndex !== undefined) {
      openCell(click.seriesIndex, click.dataIndex + 2)
    } else if (c.result.kind === 'userAttributes') {
      const fields = (c.result.response as { byFields: string[] }).byFields.length
      openCell(click.dataIndex, Math.max(1, fields))
    }
  }

  return { cellAction, openCell, openPoint, available: computed(() => context.value !== null) }
}
