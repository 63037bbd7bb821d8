import { computed, onBeforeUnmount, ref, watch } from 'vue'
import { useRoute, useRouter, type RouteLocationRaw } from 'vue-router'
import type { AnalysisKind } from '../../api/analysis'
import { useChartsStore } from '../../stores/charts'
import { useReportStore, type SavedReport } from '../../stores/reports'
import { useSessionStore } from '../../stores/session'
import { decodeState, encodeState, isKind, type ChartState } from '../../models/charts/chartState'

/** Edits settle a little longer than the query's own wait, so one history entry follows one run. */
const SETTLE_MS = 400

/**
 * The chart lives in the address: `#/charts/<kind>?q=<state>` for a chart, `#/charts/report/<id>`
 * for a saved report as saved (`?q=` added while it is edited). A reload or a copied link shows the
 * same chart; each query run adds a history entry (edits in between replace it), so Back and
 * Forward step through the runs. A report stays attached only while its own analysis is on screen.
 */
export function useChartAddress() {
  const route = useRoute()
  const router = useRouter()
  const charts = useChartsStore()
  const reports = useReportStore()
  const session = useSessionStore()

  const reportId = computed(() => (route.params.kind === 'report' ? Number(route.params.id) : 0))
  /** The report the address names, once known. */
  const opened = computed(() => (reportId.value ? reports.find(reportId.value) : undefined))
  /** The report the chart on screen belongs to: never one of another analysis. */
  const attached = computed(() => (opened.value && opened.value.kind === charts.kind ? opened.value : undefined))
  const openError = ref<Error | null>(null)
  const current = computed(() => encodeState(charts.state))
  const edited = computed(() => {
    const r = attached.value
    return r !== undefined && (r.state === null || encodeState(r.state) !== current.value)
  })

  /** The project's token arrives with the project list (a reload, a link): reports are read with it. */
  function projectOpened(): Promise<void> {
    if (session.token) return Promise.resolve()
    return new Promise((resolve) => {
      const stop = watch(
        () => session.token,
        (token) => {
          if (!token) return
          stop()
          resolve()
        },
      )
    })
  }

  /** Navigations under way (following the address, or moving it ourselves): the chart is not written into it meanwhile. */
  let following = 0
  /** The query of the run the current history entry holds ('': none yet). */
  let lastKey = ''
  let timer: ReturnType<typeof setTimeout> | undefined

  function addressOf(report: SavedReport | undefined): RouteLocationRaw {
    if (report) return { name: 'charts', params: { kind: 'report', id: String(report.id) }, query: edited.value ? { q: current.value } : {} }
    return { name: 'charts', params: { kind: charts.kind }, query: { q: current.value } }
  }

  function show(chart: ChartState | null, kind?: AnalysisKind): void {
    if (chart && encodeState(chart) !== current.value) charts.apply(chart)
    else if (!chart && kind && charts.kind !== kind) charts.kind = kind
  }

  /** The address changed (Back, a link, a reload): the chart follows it. */
  async function follow(): Promise<void> {
    if (route.name !== 'charts') return
    clearTimeout(timer)
    const kind = route.params.kind
    const q = typeof route.query.q === 'string' ? route.query.q : null
    following++
    try {
      openError.value = null
      if (kind === 'report') {
        const id = reportId.value
        await projectOpened()
        const report = reports.find(id) ?? (await reports.open(id))
        if (reportId.value !== id || !report.kind) return
        show(q ? decodeState(report.kind, q) : report.state, report.kind)
      } else if (isKind(kind)) {
        show(q ? decodeState(kind, q) : null, kind)
      } else {
        await router.replace(addressOf(undefined))
      }
      lastKey = charts.key
    } catch (err) {
      openError.value = err as Error
    } finally {
      following--
    }
  }

  function sameAsRoute(target: RouteLocationRaw): boolean {
    return router.resolve(target).fullPath === route.fullPath
  }

  /**
   * Writes the chart on screen into the address. Leaving the query of the entry's run (for another
   * query, or for one not complete yet) adds an entry; an entry that holds no run yet is replaced,
   * so a step added and then picked is one entry, and Back still shows the run before it.
   */
  function record(): void {
    clearTimeout(timer)
    if (following > 0 || route.name !== 'charts' || (reportId.value && !opened.value && !openError.value)) return
    const target = addressOf(attached.value)
    if (sameAsRoute(target)) {
      lastKey = charts.key
      return
    }
    const leaving = lastKey !== '' && charts.key !== lastKey
    lastKey = charts.key
    void (leaving ? router.push(target) : router.replace(target))
  }

  watch(() => route.fullPath, () => void follow(), { immediate: true })
  watch(current, () => {
    clearTimeout(timer)
    timer = setTimeout(record, SETTLE_MS)
  })
  // another analysis detaches the chart from its report at once (Save then makes a new report)
  watch(() => charts.kind, () => {
    if (following === 0) record()
  })
  // another project has other reports: the chart (reset by its store) leaves the old one's address
  watch(
    () => session.appKey,
    (next, before) => {
      if (before && next !== before && route.params.kind === 'report') void detach()
    },
  )
  onBeforeUnmount(() => clearTimeout(timer))

  /** The chart is now this saved report: picked from the list (a new entry), or just saved (the same entry). */
  async function showReport(report: SavedReport, how: 'push' | 'replace' = 'push'): Promise<void> {
    following++
    try {
      openError.value = null
      if (report.state) show(report.state)
      lastKey = charts.key
      const target = { name: 'charts', params: { kind: 'report', id: String(report.id) } }
      if (!sameAsRoute(target)) await (how === 'push' ? router.push(target) : router.replace(target))
    } finally {
      following--
    }
  }

  /** Leaves the report (New chart): the chart goes on under its own address. */
  async function detach(): Promise<void> {
    following++
    try {
      openError.value = null
      await router.push(addressOf(undefined))
    } finally {
      following--
    }
  }

  return { opened, attached, edited, openError, showReport, detach }
}
