import { defineStore } from 'pinia'
import { computed, ref, shallowReactive, shallowRef } from 'vue'
import { analyze, type AnalysisResponses } from '../api/analysis'
import { createDashboard, deleteDashboard, getDashboard, listDashboards, nextTile, updateDashboard, type Dashboard, type DashboardSummary, type DashboardWrite, type TileWithReport } from '../api/dashboards'
import { decodeState } from '../models/charts/chartState'
import { resolveRange } from '../models/charts/dates'
import { useProjectStore } from './project'
import { projectResource } from './projectResource'
import { useSessionStore } from './session'

type LoadState = 'idle' | 'loading' | 'ready' | 'error'

/** One tile's run: its answer, or why it failed. */
export interface TileRun {
  /** What was asked (the dates shown on the tile). */
  request: Record<string, unknown>
  status: 'loading' | 'ready' | 'error'
  response: AnalysisResponses[keyof AnalysisResponses] | null
  error: Error | null
}

/** Tiles computed at once: the engine's threads are few, and the first tiles then appear sooner. */
const AT_ONCE = 2

/**
 * The project's dashboards and the one on screen: its tiles' reports run with the dashboard's
 * range and cohort (the API applies them to each tile's request), a few at a time, with progress.
 */
export const useDashboardStore = defineStore('dashboards', () => {
  const session = useSessionStore()
  const projects = useProjectStore()

  // the listing: an answer for the project the user has since left is dropped
  const listing = projectResource<DashboardSummary[]>([], { needsToken: true })
  const list = listing.current
  const current = shallowRef<Dashboard | null>(null)
  const currentState = ref<LoadState>('idle')
  const currentError = ref<Error | null>(null)
  /** By tile index of the current dashboard. */
  const runs = shallowReactive<Record<number, TileRun>>({})
  let generation = 0
  /** Where each tile of the running computation stands now (tiles move while they compute). */
  let place: number[] = []

  const progress = computed(() => {
    const tiles = current.value?.tiles.filter((t) => t.report && t.report.kind) ?? []
    const done = tiles.filter((_, i) => runs[i] && runs[i].status !== 'loading').length
    return { done, total: tiles.length }
  })

  function loadList(): Promise<void> {
    return listing.load(listDashboards)
  }

  /**
   * The request a tile runs: the API's (the dashboard's range and cohort applied). Without a
   * dashboard range, a report saved as "the last 30 days" counts back from today, as in Charts.
   */
  function requestOf(board: Dashboard, report: NonNullable<Dashboard['tiles'][number]['report']>): Record<string, unknown> {
    const state = report.kind ? decodeState(report.kind, report.options.builder) : null
    if (board.fromDate || !state || state.range.preset === 'custom' || !('fromDate' in report.request)) return report.request
    const range = resolveRange(state.range, projects.overview?.timeZone ?? projects.current?.timeZone)
    return range ? { ...report.request, ...range } : report.request
  }

  /** Runs every tile's report, AT_ONCE at a time; a newer open or run leaves the older answers unused. */
  async function runAll(): Promise<void> {
    const board = current.value
    if (!board) return
    const mine = ++generation
    const auth = session.projectAuth
    for (const key of Object.keys(runs)) delete runs[Number(key)]
    const queue = board.tiles.flatMap((t, i) => (t.report?.kind ? [{ kind: t.report.kind, i, request: requestOf(board, t.report) }] : []))
    for (const { i, request } of queue) runs[i] = { request, status: 'loading', response: null, error: null }
    place = board.tiles.map((_, i) => i)
    const worker = async (): Promise<void> => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const { kind, request } = next
        if (mine !== generation) return
        try {
          const response = await analyze(auth, kind, request as never)
          // a tile taken off meanwhile has no place any more
          if (mine === generation && place[next.i] !== undefined) runs[place[next.i]] = { request, status: 'ready', response, error: null }
        } catch (err) {
          if (mine === generation && place[next.i] !== undefined) runs[place[next.i]] = { request, status: 'error', response: null, error: err as Error }
        }
      }
    }
    await Promise.all(Array.from({ length: AT_ONCE }, worker))
  }

  async function open(id: number): Promise<void> {
    if (!session.token) return
    currentState.value = 'loading'
    currentError.value = null
    try {
      current.value = await getDashboard(session.projectAuth, id)
      currentState.value = 'ready'
    } catch (err) {
      current.value = null
      currentState.value = 'error'
      currentError.value = err as Error
      return
    }
    await runAll()
  }

  /** Changes the dashboard on screen (its range, cohort, tiles) and runs it again. */
  async function change(write: DashboardWrite): Promise<void> {
    const board = current.value
    if (!board) return
    current.value = await updateDashboard(session.projectAuth, board.id, write)
    void loadList()
    await runAll()
  }

  let arranging = 0
  /**
   * A new layout of the dashboard on screen (tiles moved or resized): shown at once with the
   * answers it has, then saved; nothing is computed again. A refused save puts the layout back.
   */
  async function arrange(next: { tiles: TileWithReport[]; from: number[] }): Promise<void> {
    const board = current.value
    if (!board) return
    const mine = ++arranging
    const before = { tiles: board.tiles, runs: { ...runs }, place }
    const inverse: number[] = []
    next.from.forEach((old, k) => (inverse[old] = k))
    current.value = { ...board, tiles: next.tiles }
    for (const key of Object.keys(runs)) delete runs[Number(key)]
    next.from.forEach((old, k) => before.runs[old] && (runs[k] = before.runs[old]))
    place = place.map((at) => inverse[at])
    try {
      const saved = await updateDashboard(session.projectAuth, board.id, { tiles: next.tiles.map(({ reportId, x, y, w, h }) => ({ reportId, x, y, w, h })) })
      // a later move is already on screen: its own save brings the final answer
      if (mine === arranging && current.value?.id === saved.id) current.value = saved
      void loadList()
    } catch (err) {
      if (mine === arranging && current.value?.id === board.id) {
        current.value = { ...current.value, tiles: before.tiles }
        for (const key of Object.keys(runs)) delete runs[Number(key)]
        Object.assign(runs, before.runs)
        place = before.place
      }
      throw err
    }
  }

  async function create(name: string, reportId?: number): Promise<Dashboard> {
    const board = await createDashboard(session.projectAuth, { name, tiles: reportId ? [nextTile([], reportId)] : [] })
    await loadList()
    return board
  }

  /** Adds a report as a tile of a dashboard (not necessarily the one on screen). */
  async function addReport(dashboardId: number, reportId: number): Promise<void> {
    const board = await getDashboard(session.projectAuth, dashboardId)
    const tiles = board.tiles.map(({ reportId: r, x, y, w, h }) => ({ reportId: r, x, y, w, h }))
    await updateDashboard(session.projectAuth, dashboardId, { tiles: [...tiles, nextTile(tiles, reportId)] })
    await loadList()
  }

  async function remove(id: number): Promise<void> {
    await deleteDashboard(session.projectAuth, id)
    if (current.value?.id === id) current.value = null
    await loadList()
  }

  return { list, listState: listing.state, listError: listing.error, current, currentState, currentError, runs, progress, loadList, open, runAll, change, arrange, create, addReport, remove }
})
