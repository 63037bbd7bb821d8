import { computed, watch } from 'vue'
import { useCellUsersStore } from '../../../stores/cellUsers'
import { useChartsStore } from '../../../stores/charts'
import { useDrilldownStore } from '../../../stores/drilldown'
import { cellTarget, type CellTarget } from './cells'

/**
 * The users behind the table cells of funnels, retention, distributions and user attributes:
 * which cells open them, and opening them. Only an answer to the query on screen does: the server
 * is asked with the request that computed it.
 */
export function useCellUsers() {
  const charts = useChartsStore()
  const cells = useCellUsersStore()
  const drilldown = useDrilldownStore()

  const context = computed(() => {
    const result = charts.result
    const built = charts.built
    if (!result || result.kind === 'events' || !charts.upToDate || !('body' in built)) return null
    return { result, body: built.body as object }
  })

  // the users are of a cell of the answer on screen: another analysis leaves them behind
  watch(
    () => charts.kind,
    () => cells.close(),
  )

  function targetOf(r: number, col: number): CellTarget | null {
    const c = context.value
    return c ? cellTarget(c.result.kind, c.result.response as never, c.result.labels, r, col) : null
  }

  function cellAction(r: number, col: number): { title: string; enabled: boolean } | null {
    const t = targetOf(r, col)
    return t ? { title: `See the users: ${t.title}${t.segment ? ` · ${t.segment}` : ''}`, enabled: true } : null
  }

  function openCell(r: number, col: number): void {
    const t = targetOf(r, col)
    const c = context.value
    if (!t || !c) return
    if (drilldown.phase !== 'idle') void drilldown.close()
    cells.open(t, c.body)
  }

  /**
   * A click on the chart, as the table cell it shows: a funnel bar (one series per row when broken
   * down; else the "Converted" series, the second) is step k's users; a retention heatmap square
   * [offset, row, rate] is that cell.
   */
  function openPoint(click: { seriesIndex?: number; dataIndex?: number; value?: unknown }): void {
    const c = context.value
    if (!c || click.dataIndex === undefined) return
    if (c.result.kind === 'funnels') {
      const broken = (c.result.response as { byField: string | null }).byField !== null
      const row = broken ? (click.seriesIndex ?? -1) : click.seriesIndex === 1 ? 0 : -1
      const k = click.dataIndex
      if (row >= 0) openCell(row, k === 0 ? 1 : 2 * k)
    } else if (c.result.kind === 'retention' && Array.isArray(click.value)) {
      const [x, y] = click.value as number[]
      openCell(y, x + 2)
    }
  }

  return { cellAction, openCell, openPoint, available: computed(() => context.value !== null) }
}
