import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import { ApiError } from '../api/http'
import { createReport, deleteReport, getReport, listReports, updateReport, type ReportRecord } from '../api/reports'
import { decodeState, encodeState, isKind, requestOf, type ChartState } from '../models/charts/chartState'
import { useProjectStore } from './project'
import { projectResource } from './projectResource'
import { useSessionStore } from './session'

/** A saved report with the chart it shows (null: saved without the builder's state, e.g. by another tool). */
export interface SavedReport extends ReportRecord {
  state: ChartState | null
}

/** Where versions before reports lived in the project kept them: this browser's storage, per project. */
export const LOCAL_PREFIX = 'uba-desk.reports.'

interface LocalReport {
  name: string
  kind: string
  definition: unknown
  range: unknown
  crowd: unknown
}

function withState(record: ReportRecord): SavedReport {
  return { ...record, state: record.kind ? decodeState(record.kind, record.options.builder) : null }
}

function optionsOf(state: ChartState): { builder: unknown } {
  return { builder: JSON.parse(encodeState(state)) }
}

/**
 * The project's saved reports, read and written through the API: every browser and tool of the
 * project sees the same ones. The list is the API's order (the latest changed first).
 */
export const useReportStore = defineStore('reports', () => {
  const session = useSessionStore()
  const projects = useProjectStore()

  // read once per project (again on demand or after an error); a switch empties the list at once
  const listing = projectResource<SavedReport[]>([], { needsToken: true, switchOn: 'read', shared: true, loadingOn: 'always' })
  const { data: list, state, error } = listing
  /** How many reports kept in this browser by an earlier version were moved into the project. */
  const moved = ref(0)

  const timeZone = computed(() => projects.overview?.timeZone ?? projects.current?.timeZone)

  function put(report: SavedReport): void {
    list.value = [report, ...list.value.filter((r) => r.id !== report.id)]
  }

  /** Reports an earlier version kept in this browser go into the project once, then leave the browser. */
  async function moveLocal(appKey: string): Promise<void> {
    let kept: LocalReport[]
    try {
      const raw = localStorage.getItem(LOCAL_PREFIX + appKey)
      if (!raw) return
      const parsed = JSON.parse(raw) as unknown
      kept = Array.isArray(parsed) ? (parsed as LocalReport[]) : []
    } catch {
      return
    }
    const left: LocalReport[] = []
    for (const old of kept) {
      const chart = isKind(old.kind) ? decodeState(old.kind, old) : null
      if (!chart || typeof old.name !== 'string') continue
      const write = { kind: chart.kind, request: requestOf(chart, timeZone.value) ?? {}, options: optionsOf(chart) }
      // a name the project already has gets a suffix rather than being lost
      let done = false
      for (const name of [old.name, `${old.name} (from this browser)`]) {
        try {
          await createReport(session.projectAuth, { ...write, name: name.slice(0, 100) })
          moved.value++
          done = true
          break
        } catch (err) {
          if (!(err instanceof ApiError && err.code === 50101)) break
        }
      }
      if (!done) left.push(old)
    }
    if (left.length > 0) localStorage.setItem(LOCAL_PREFIX + appKey, JSON.stringify(left))
    else localStorage.removeItem(LOCAL_PREFIX + appKey)
  }

  /** Reads the list of the current project (again after a project switch or with `again`). */
  async function load(again = false): Promise<void> {
    await listing.load(async (auth) => {
      await moveLocal(auth.appKey)
      return (await listReports(auth)).map(withState)
    }, again)
  }

  function find(id: number): SavedReport | undefined {
    return list.value.find((r) => r.id === id)
  }

  /** One report by id (a link to one saved since the list was read): the API's 400 when it is gone. */
  async function open(id: number): Promise<SavedReport> {
    const report = withState(await getReport(session.projectAuth, id))
    put(report)
    return report
  }

  async function create(name: string, chart: ChartState): Promise<SavedReport> {
    const request = requestOf(chart, timeZone.value) ?? {}
    const report = withState(await createReport(session.projectAuth, { name, kind: chart.kind, request, options: optionsOf(chart) }))
    put(report)
    return report
  }

  /** Saves the chart into a report of its own analysis (the API refuses another kind). */
  async function update(id: number, name: string, chart: ChartState): Promise<SavedReport> {
    const request = requestOf(chart, timeZone.value) ?? {}
    const report = withState(await updateReport(session.projectAuth, id, { name, kind: chart.kind, request, options: optionsOf(chart) }))
    put(report)
    return report
  }

  async function remove(id: number): Promise<void> {
    await deleteReport(session.projectAuth, id)
    list.value = list.value.filter((r) => r.id !== id)
  }

  return { reports: list, state, error, moved, load, find, open, create, update, remove }
})
